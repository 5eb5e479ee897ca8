import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * `files put` and `files get` send the API key to the service and never to the presigned URL. A
 * server this test starts plays both parts (the mount endpoints, and the storage their presigned
 * URLs point at) and records the headers of every request.
 */

const KEY = 'ak_presigned_boundary_4e8a1c';
const SESSION = 'trs_presignedKey1';
let server: Server;
let base: string;
let dir: string;
const seen: Array<{ method: string; path: string; headers: IncomingHttpHeaders }> = [];
let stored = Buffer.alloc(0);

beforeAll(async () => {
  dir = tempDir('presigned-key');
  await writeFile(join(dir, 'in.txt'), 'bytes for the storage\n');
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push({ method: req.method ?? '', path, headers: req.headers });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const json = (status: number, body: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      const mount = `/api/v3/tool_router/session/${SESSION}/mounts/files`;
      const common = { mount_relative_path: 'docs/in.txt', sandbox_mount_prefix: '/mnt/files', expires_at: '2030-01-01T00:00:00.000Z' };
      if (req.method === 'POST' && path === `${mount}/upload_url`) return json(201, { ...common, upload_url: `${base}/storage/up?sig=abc` });
      if (req.method === 'POST' && path === `${mount}/download_url`) return json(201, { ...common, download_url: `${base}/storage/down?sig=def` });
      if (req.method === 'PUT' && path.startsWith('/storage/up')) {
        stored = Buffer.concat(chunks);
        res.writeHead(200);
        return res.end();
      }
      if (req.method === 'GET' && path.startsWith('/storage/down')) {
        res.writeHead(200, { 'content-length': String(stored.length) });
        return res.end(stored);
      }
      json(404, { error: { message: 'not here', code: 10404, slug: 'HTTP_NotFound', status: 404 } });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

test('the key goes to the mount endpoints only, never to the storage URLs', async () => {
  const env = { env: { COMPOSIO_API_KEY: KEY }, cwd: dir };
  const put = await runCli(['files', 'put', SESSION, 'in.txt', 'docs/in.txt', '--base-url', base], env);
  expect(put.exitCode, put.stderr).toBe(0);
  const get = await runCli(['files', 'get', SESSION, 'docs/in.txt', 'out.txt', '--base-url', base], env);
  expect(get.exitCode, get.stderr).toBe(0);
  expect(await readFile(join(dir, 'out.txt'), 'utf8')).toBe('bytes for the storage\n');

  expect(seen.map((s) => `${s.method} ${s.path.split('?')[0]}`)).toEqual([
    `POST /api/v3/tool_router/session/${SESSION}/mounts/files/upload_url`,
    'PUT /storage/up',
    `POST /api/v3/tool_router/session/${SESSION}/mounts/files/download_url`,
    'GET /storage/down',
  ]);
  for (const s of seen) {
    const storage = s.path.startsWith('/storage/');
    expect(s.headers['x-api-key'], `${s.method} ${s.path}`).toBe(storage ? undefined : KEY);
    expect(JSON.stringify(s.headers), `${s.method} ${s.path}`).toEqual(storage ? expect.not.stringContaining(KEY) : expect.any(String));
    expect(s.headers['authorization']).toBeUndefined();
  }
});
