import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

/**
 * `proxy` when the toolkit's own API refuses: the service answers 200 with the upstream `status`
 * (api facts §2.6). The emulator always answers an upstream 200, so a server this test starts plays
 * the service and answers with an upstream 404 and binary data, and records the request body.
 */

const KEY = 'ak_proxy_upstream_2f7c';
let server: Server;
let base: string;
let lastBody: unknown;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      lastBody = JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null');
      res.writeHead(200, { 'content-type': 'application/json' });
      const notFound = req.url?.includes('trs_upstream404') === true;
      res.end(
        JSON.stringify(
          notFound
            ? { status: 404, data: { message: 'Not Found' }, headers: { 'x-github-request-id': 'AB:CD' } }
            : { status: 200, binary_data: { url: 'https://storage.example/x.png', content_type: 'image/png', size: 2048, expires_at: '2030-01-01T00:00:00Z' } },
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((r) => server.close(() => r())));

test('an upstream 404 prints the answer and exits 1', async () => {
  const r = await runCli(
    ['proxy', 'trs_upstream404', '--toolkit', 'github', '--method', 'delete', '--endpoint', '/repos/acme/gone', '--param', 'header:X-Trace=1', '--base-url', base],
    { env: { COMPOSIO_API_KEY: KEY } },
  );
  expect(r.exitCode).toBe(1);
  expect(r.stdout).toBe('upstream HTTP 404\nx-github-request-id:  AB:CD\n\n{\n  "message": "Not Found"\n}\n');
  expect(r.stderr).toBe('error: the github API answered HTTP 404\n');
  expect(lastBody).toEqual({ toolkit_slug: 'github', method: 'DELETE', endpoint: '/repos/acme/gone', parameters: [{ type: 'header', name: 'X-Trace', value: '1' }] });
});

test('binary data is described, not printed; a JSON body comes from stdin', async () => {
  const r = await runCli(['proxy', 'trs_binary', '--toolkit', 'github', '--method', 'POST', '--endpoint', '/x', '--body', '-', '--base-url', base], {
    env: { COMPOSIO_API_KEY: KEY },
    stdin: '{"title": "hi"}',
  });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stdout).toBe('upstream HTTP 200\n\nbinary data   https://storage.example/x.png\ncontent type  image/png\nsize          2.0 KiB\nexpires       2030-01-01T00:00:00Z\n');
  expect(lastBody).toEqual({ toolkit_slug: 'github', method: 'POST', endpoint: '/x', body: { title: 'hi' } });
});
