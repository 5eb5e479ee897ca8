import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, type SessionClient } from '../../src/client/client.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { cliBundle } from '../conformance/cli-bundle.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `files put` then `files get` of a 20 MiB file through the built CLI in a child process, against
 * the emulator's presigned URLs over loopback: the bytes come back identical, and the child's live
 * memory stays flat while they move.
 *
 * The meter (a preload in the child): from the child's first HTTP request (after start-up) to its
 * exit, every 50 ms it forces a garbage collection and samples `heapUsed + external` (external
 * counts every Buffer); growth = peak - the value at the first request. Peak RSS is not used: it is
 * dominated by start-up, and glibc keeps freed 64 KiB chunks in the process, so RSS grows by about
 * the same for a streamed and a buffered transfer. A control run through the same meter, a script
 * that reads the file into memory and PUTs it, shows the meter sees buffering (growth >= the file).
 * The emulator runs in this test process, so its own copy of the bytes does not count.
 */

const KEY = 'ak_operate_transfer_7b3e19';
const BIG = 20 * 1024 * 1024;
let emu: RunningEmulator;
let client: SessionClient;
let dir: string;
let main: string;
let session: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY], maxFileBytes: 64 * 1024 * 1024 });
  client = createClient({ baseUrl: emu.url, apiKey: KEY });
  dir = tempDir('transfer');
  session = (await client.createSession({ user_id: 'transfer' })).session_id;
  main = await cliBundle();
  await writeFile(join(dir, 'meter.mjs'), METER);
  // The control: a client that reads the whole file into memory, then PUTs it (what put must not do).
  await writeFile(join(dirname(main), 'buffering-put.mjs'), BUFFERING_PUT);
  await writeFile(join(dir, 'small.bin'), randomBytes(1024));
  // 20 MiB of random bytes, written in pieces so that this process does not hold them all either.
  const chunks = [];
  for (let i = 0; i < BIG / (1024 * 1024); i++) chunks.push(randomBytes(1024 * 1024));
  await writeFile(join(dir, 'big.bin'), Buffer.concat(chunks));
}, 60_000);

afterAll(async () => {
  await client.close();
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

const METER = `import { writeFileSync } from 'node:fs';
import diagnostics from 'node:diagnostics_channel';
const live = () => { globalThis.gc(); const m = process.memoryUsage(); return m.heapUsed + m.external; };
let base;
let peak = 0;
diagnostics.subscribe('undici:request:create', () => {
  if (base !== undefined) return;
  base = live();
  peak = base;
  setInterval(() => { peak = Math.max(peak, live()); }, 10).unref();
});
// No sample at exit: everything the command used is dead by then, but the buffers of a transfer
// that ran between two samples are not all swept yet (V8 frees them after the collection, off
// the main thread), so an exit sample counted up to the whole file on an idle machine.
process.on('exit', () => {
  writeFileSync(process.env.GROWTH_FILE, JSON.stringify({ base, peak }));
});
`;

const BUFFERING_PUT = `import { readFileSync } from 'node:fs';
import { request } from 'undici';
const [health, url, file] = process.argv.slice(2);
await (await request(health)).body.dump();
const body = readFileSync(file);
const res = await request(url, { method: 'PUT', body });
await res.body.dump();
if (res.statusCode !== 200) process.exitCode = 1;
// Held a while after the upload, as a client that keeps what it sent would: the meter samples it.
await new Promise((resolve) => setTimeout(resolve, 100));
if (body.length === 0) process.exitCode = 1;
`;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Growth of live memory (heap + Buffers) from the first request to the exit, bytes. */
  growth: number;
}

async function sessionctl(args: string[], tag: string): Promise<Ran> {
  return node([main, ...args, '--base-url', emu.url], tag);
}

async function node(args: string[], tag: string): Promise<Ran> {
  const growthFile = join(dir, `growth-${tag}.json`);
  const child = spawn(process.execPath, ['--expose-gc', '--import', pathToFileURL(join(dir, 'meter.mjs')).href, ...args], {
    cwd: dir,
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', COMPOSIO_API_KEY: KEY, GROWTH_FILE: growthFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  const { base, peak } = JSON.parse(await readFile(growthFile, 'utf8')) as { base: number; peak: number };
  return { code, stdout, stderr, growth: peak - base };
}

async function sha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

describe('files put / files get of 20 MiB', () => {
  test('round-trips byte for byte with flat memory', async () => {
    const smallPut = await sessionctl(['files', 'put', session, 'small.bin', 'data/small.bin'], 'small-put');
    expect(smallPut.code, smallPut.stderr).toBe(0);
    const bigPut = await sessionctl(['files', 'put', session, 'big.bin', 'data/big.bin'], 'big-put');
    expect(bigPut.code, bigPut.stderr).toBe(0);
    expect(bigPut.stdout).toBe('uploaded big.bin (20.0 MiB) to /mnt/files/data/big.bin\n');

    const listed = await client.listMountItems(session, { mount_relative_prefix: 'data/big' });
    expect(listed.items.map((i) => [i.mount_relative_path, i.size])).toEqual([['data/big.bin', BIG]]);

    const smallGet = await sessionctl(['files', 'get', session, 'data/small.bin', 'small-copy.bin'], 'small-get');
    expect(smallGet.code, smallGet.stderr).toBe(0);
    const bigGet = await sessionctl(['files', 'get', session, 'data/big.bin', 'big-copy.bin'], 'big-get');
    expect(bigGet.code, bigGet.stderr).toBe(0);
    expect(bigGet.stdout).toBe('downloaded /mnt/files/data/big.bin to big-copy.bin (20.0 MiB)\n');

    expect((await stat(join(dir, 'big-copy.bin'))).size).toBe(BIG);
    expect(await sha256(join(dir, 'big-copy.bin'))).toBe(await sha256(join(dir, 'big.bin')));
    expect(await readFile(join(dir, 'small-copy.bin'))).toEqual(await readFile(join(dir, 'small.bin')));

    // The memory bound: moving 20 MiB grows the CLI's live memory by less than 20 MiB (in practice
    // about 1 MiB), in both directions.
    const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(1)} MiB`;
    expect(bigPut.growth, `put grew ${mib(bigPut.growth)} (1 KiB file: ${mib(smallPut.growth)})`).toBeLessThan(BIG);
    expect(bigGet.growth, `get grew ${mib(bigGet.growth)} (1 KiB file: ${mib(smallGet.growth)})`).toBeLessThan(BIG);

    // The meter is not blind: a client that holds the file in memory shows growth of at least its size.
    const upload = await client.mountUploadUrl(session, 'data/control.bin');
    const control = await node([join(dirname(main), 'buffering-put.mjs'), `${emu.url}/_emulator/health`, upload.upload_url, join(dir, 'big.bin')], 'control');
    expect(control.code, control.stderr).toBe(0);
    expect(control.growth, `the buffering control grew ${mib(control.growth)}`).toBeGreaterThanOrEqual(BIG);
    for (const r of [smallPut, bigPut, smallGet, bigGet]) expect(r.stdout + r.stderr).not.toContain(KEY);
    // Five child processes moving 60 MiB: up to 45 s beside a CPU hog on two cores.
  }, 120_000);
});
