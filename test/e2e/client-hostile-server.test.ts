/**
 * The hostile-server family of the bad-input suite (issue 14 item 10): a local server that answers
 * as the service would, but with JSON nested 100,000 deep, 200,000 keys wide, bodies past the size
 * limit, a 400 MB error body on a file download, and escape-laden text. Every case ends, within
 * the 5 s each test is given, with exit 3, the service's refusal said once and no stack trace, and
 * nothing from the server reaches the terminal raw. A config version the state cannot hold
 * (1.5, past 2^53) is recorded as unknown by import, so the state stays readable.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const KEY = 'ak_hostile_"key\\_7a6b5c';
const ID = 'trs_hostile01';
let server: Server;
let url = '';
let dir: string;
/** What the next API request is answered with. */
let answer: (req: IncomingMessage, res: ServerResponse) => void = () => undefined;

const deep = (n: number): string => `{"session_id":"${ID}","mcp":{"type":"http","url":"x"},"tool_router_tools":[],"config":{"user_id":"u","x":${'['.repeat(n)}${']'.repeat(n)}}}`;
const wide = (n: number): string => `{"session_id":"${ID}","mcp":{"type":"http","url":"x"},"tool_router_tools":[],"config":{"user_id":"u",${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}}`;

function json(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(text);
}

beforeAll(async () => {
  dir = tempDir('hostile');
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/blob') {
      // 400 MB of error body, produced as fast as the client reads it; it stops when the client does.
      res.writeHead(500, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      let sent = 0;
      const pump = (): void => {
        while (sent < 400 && res.write(chunk)) sent += 1;
        if (sent >= 400) res.end();
      };
      res.on('drain', () => {
        sent += 1;
        pump();
      });
      res.on('close', () => (sent = 400));
      pump();
      return;
    }
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function sessionctl(argv: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  return runCli(argv, { cwd: dir, env: { COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: url } });
}

function expectRefusal(r: { exitCode: number; stdout: string; stderr: string }, says: RegExp): void {
  expect(r.exitCode, r.stderr).toBe(3);
  expect(r.stderr).toMatch(says);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).not.toContain('unexpected error');
  expect(`${r.stdout}${r.stderr}`).not.toContain(KEY);
  // eslint-disable-next-line no-control-regex
  expect(`${r.stdout}${r.stderr}`).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
}

describe('hostile answers to get', () => {
  test.each([
    ['JSON nested 100,000 deep', () => deep(100_000), /nested deeper than 64 levels at \/config\/x/],
    ['200,000 config keys', () => wide(200_000), /more than 50000 entries in one object at \/config/],
    ['12 MiB of JSON', () => `{"session_id":"${ID}","pad":"${'y'.repeat(12 * 1024 * 1024)}"}`, /larger than 10485760 bytes/],
  ])('%s: exit 3 with a clear refusal', { timeout: 5_000 }, async (_name, body, says) => {
    const text = body();
    answer = (_req, res) => json(res, 200, text);
    expectRefusal(await sessionctl(['get', ID]), says);
  });

  test.each([
    ['an error body nested 100,000 deep', () => `{"error":{"message":"m","errors":[${'['.repeat(100_000)}${']'.repeat(100_000)}]}}`, /HTTP 400/],
    ['an error body of 5 MiB', () => `{"error":{"message":"${'z'.repeat(5 * 1024 * 1024)}"}}`, /HTTP 400/],
    ['escape-laden text', () => JSON.stringify({ error: { message: 'bad\u001b[2J\r\n::error::forged', slug: 'S\u0007LUG', errors: ['a\u001b]8;;x\u0007b'], request_id: 'r\nq' } }), /HTTP 400/],
  ])('%s: exit 3, said once, nothing raw', { timeout: 5_000 }, async (_name, body, says) => {
    const text = body();
    answer = (_req, res) => json(res, 400, text);
    expectRefusal(await sessionctl(['get', ID]), says);
  });
});

describe('hostile answers to files get', () => {
  test('a 400 MB error body on the download: exit 3, read no further than 64 KiB, no file left', { timeout: 5_000 }, async () => {
    answer = (_req, res) =>
      json(res, 201, JSON.stringify({ download_url: `${url}/blob`, mount_relative_path: 'a.bin', sandbox_mount_prefix: '/mnt/files', expires_at: '2030-01-01T00:00:00Z' }));
    const r = await sessionctl(['files', 'get', ID, 'a.bin', 'a.bin']);
    expectRefusal(r, /HTTP 500/);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('hostile answers to import', () => {
  test.each([
    ['not whole', '1.5'],
    ['past the safe integers', '9007199254740993'],
  ])('a config version %s is recorded as unknown, and the state stays readable', { timeout: 10_000 }, async (_name, version) => {
    mkdirSync(join(dir, 'm'), { recursive: true });
    writeFileSync(join(dir, 'm', 'a.yaml'), 'name: a\nuser_id: u\n');
    answer = (_req, res) => json(res, 200, `{"session_id":"${ID}","mcp":{"type":"http","url":"http://x.invalid/mcp"},"tool_router_tools":[],"config":{"user_id":"u"},"config_version":${version}}`);
    const imported = await sessionctl(['import', 'a', ID, 'm']);
    expect(imported.exitCode, imported.stderr).toBe(0);
    const state = JSON.parse(readFileSync(join(dir, '.sessionctl', 'state.json'), 'utf8')) as { sessions: Array<{ config_version: unknown }> };
    expect(state.sessions.map((s) => s.config_version)).toEqual([null]);
    const listed = await sessionctl(['state', 'list']);
    expect([listed.exitCode, listed.stderr]).toEqual([0, '']);
    await rm(join(dir, 'm'), { recursive: true, force: true });
    await rm(join(dir, '.sessionctl'), { recursive: true, force: true });
  });
});
