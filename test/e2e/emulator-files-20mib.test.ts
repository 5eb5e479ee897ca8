/**
 * A real agent's files fit the emulator as it starts by default (issue 10): `sessionctl files put`
 * and `files get` round-trip a 20 MiB file, byte for byte, through `sessionctl emulator` spawned
 * with no flag but a port.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { spawnEmulator, type SpawnedEmulator } from '../conformance/cli-bundle.js';
import { createSession } from '../conformance/emulator-http.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'files-20mib-key-0123';
let emu: SpawnedEmulator;
let dir: string;

beforeAll(async () => {
  emu = await spawnEmulator(['--port', '0']);
  dir = tempDir('20mib');
}, 30_000);
afterAll(async () => {
  await emu?.stop();
  await rm(dir, { recursive: true, force: true });
});

test('files put and files get round-trip 20 MiB byte for byte on the default settings', { timeout: 60_000 }, async () => {
  const bytes = randomBytes(20 * 1024 * 1024);
  await writeFile(join(dir, 'big.bin'), bytes);
  const id = await createSession(emu.url, KEY);
  const env = { COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emu.url };
  const put = await runCli(['files', 'put', id, 'big.bin', 'data/big.bin'], { cwd: dir, env });
  expect(put.exitCode, put.stderr).toBe(0);
  const get = await runCli(['files', 'get', id, 'data/big.bin', 'back.bin'], { cwd: dir, env });
  expect(get.exitCode, get.stderr).toBe(0);
  const back = await readFile(join(dir, 'back.bin'));
  expect(back.length).toBe(bytes.length);
  expect(back.equals(bytes)).toBe(true);
});
