import { createHash, randomBytes } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ApiError } from '../../src/client/errors.js';
import { downloadToFile, uploadFile } from '../../src/client/presigned.js';
import { InputError, UsageError } from '../../src/diagnostics/errors.js';
import { tempDir } from '../helpers/temp-dir.js';

/** Presigned transfers against a storage server this test starts: streamed, keyless, atomic. */

let dir: string;
let server: Server;
let base: string;
const stored = new Map<string, Buffer>();
const seen: Array<{ method: string; url: string; headers: IncomingMessage['headers'] }> = [];

beforeAll(async () => {
  dir = tempDir('presigned');
  server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const key = new URL(req.url ?? '/', 'http://x').pathname;
    if (key === '/truncated') {
      res.writeHead(200, { 'content-length': '100000' });
      res.write(Buffer.alloc(1000, 1));
      setTimeout(() => res.destroy(), 20);
      return;
    }
    if (key === '/expired') {
      res.writeHead(403, { 'content-type': 'application/xml' });
      res.end('<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>');
      return;
    }
    if (key === '/moved') {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' });
      res.end();
      return;
    }
    if (req.method === 'PUT') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        stored.set(key, Buffer.concat(chunks));
        res.writeHead(200);
        res.end();
      });
      return;
    }
    const body = stored.get(key);
    if (body === undefined) {
      res.writeHead(404);
      res.end();
      return;
    }
    res.writeHead(200, { 'content-length': String(body.length) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await rm(dir, { recursive: true, force: true });
});

const sha = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

describe('presigned transfers', () => {
  test('a 3 MiB file goes up and comes back byte for byte, with no API key', async () => {
    const data = randomBytes(3 * 1024 * 1024);
    const src = join(dir, 'src.bin');
    await writeFile(src, data);
    const up = await uploadFile(`${base}/files/big.bin?X-Signature=abc`, src, { contentType: 'application/x-test' });
    expect(up).toEqual({ bytes: data.length, status: 200 });
    const put = seen.find((s) => s.method === 'PUT' && s.url.startsWith('/files/big.bin'))!;
    expect(put.headers['content-type']).toBe('application/x-test');
    expect(put.headers['content-length']).toBe(String(data.length));
    expect(put.headers['x-api-key']).toBeUndefined();
    expect(sha(stored.get('/files/big.bin')!)).toBe(sha(data));

    const dest = join(dir, 'back.bin');
    expect(await downloadToFile(`${base}/files/big.bin?X-Signature=abc`, dest)).toEqual({ bytes: data.length });
    expect(sha(await readFile(dest))).toBe(sha(data));
    expect(seen.filter((s) => s.method === 'GET').every((s) => s.headers['x-api-key'] === undefined)).toBe(true);
  });

  test('a download cut short leaves neither the target nor a temp file', async () => {
    const sub = tempDir('presigned-cut');
    const err = await downloadToFile(`${base}/truncated`, join(sub, 'out.bin')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).kind).toBe('network');
    expect(await readdir(sub)).toEqual([]);
  });

  test('an existing target is only replaced once the download is complete', async () => {
    const sub = tempDir('presigned-keep');
    const dest = join(sub, 'out.bin');
    await writeFile(dest, 'old');
    await downloadToFile(`${base}/truncated`, dest).catch(() => undefined);
    expect(await readFile(dest, 'utf8')).toBe('old');
    expect(await readdir(sub)).toEqual(['out.bin']);
  });

  test('maxBytes refuses a larger download, and removes the temp file', async () => {
    const sub = tempDir('presigned-max');
    const err = await downloadToFile(`${base}/files/big.bin`, join(sub, 'x'), { maxBytes: 1024 }).catch((e: unknown) => e);
    expect((err as ApiError).kind).toBe('decode');
    expect(await readdir(sub)).toEqual([]);
  });

  test('an expired URL is an http error; the query string is not in the message', async () => {
    const err = (await downloadToFile(`${base}/expired?X-Signature=secret-signature`, join(dir, 'e')).catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ kind: 'http', status: 403, path: '/expired' });
    expect(JSON.stringify(err)).not.toContain('secret-signature');
  });

  test('a 404 upload target and a redirect', async () => {
    const src = join(dir, 'small.txt');
    await writeFile(src, 'hello');
    expect(((await downloadToFile(`${base}/missing`, join(dir, 'm')).catch((e: unknown) => e)) as ApiError).status).toBe(404);
    expect(((await uploadFile(`${base}/moved`, src).catch((e: unknown) => e)) as ApiError).kind).toBe('redirect');
  });

  test('plain http to a public host is refused before anything is sent', async () => {
    await expect(downloadToFile('http://storage.example.com/x', join(dir, 'p'))).rejects.toBeInstanceOf(UsageError);
  });

  test('local problems are input errors: a missing source, an unwritable target folder', async () => {
    await expect(uploadFile(`${base}/files/x`, join(dir, 'no-such-file'))).rejects.toBeInstanceOf(InputError);
    await expect(uploadFile(`${base}/files/x`, dir)).rejects.toBeInstanceOf(InputError);
    await expect(downloadToFile(`${base}/files/big.bin`, join(dir, 'no-such-folder', 'x'))).rejects.toBeInstanceOf(InputError);
  });
});
