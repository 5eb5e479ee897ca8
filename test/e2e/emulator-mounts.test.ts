import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call, createSession, SESSION } from '../conformance/emulator-http.js';

const KEY = 'mounts-key-123456';
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, maxFileBytes: 1024 });
});
afterAll(() => emu.close());

const path = (u: string): string => new URL(u).pathname;

async function upload(id: string, file: string, bytes: string, mimetype?: string): Promise<any> {
  const r = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/upload_url`, { key: KEY, body: { mount_relative_path: file, ...(mimetype ? { mimetype } : {}) } });
  expect(r.status, r.text).toBe(201);
  const put = await call(emu.url, 'PUT', path(r.json.upload_url), { raw: bytes });
  expect(put.status, put.text).toBe(200);
  return r.json;
}

describe('mounts', () => {
  it('upload, list, download and delete through presigned URLs served by the emulator (no key needed there)', async () => {
    const id = await createSession(emu.url, KEY);
    const up = await upload(id, 'data/out.csv', 'a,b\n', 'text/csv');
    expect(up).toMatchObject({ mount_relative_path: 'data/out.csv', sandbox_mount_prefix: '/mnt/files' });
    expect(up.upload_url.startsWith(`${emu.url}/_emulator/files/`)).toBe(true);
    expect(Date.parse(up.expires_at)).toBeGreaterThan(Date.now());

    const list = await call(emu.url, 'GET', `${SESSION}/${id}/mounts/files/items`, { key: KEY });
    expect(list.json.items).toEqual([{ mount_relative_path: 'data/out.csv', sandbox_mount_prefix: '/mnt/files', size: 4, last_modified: expect.any(String) }]);
    expect(list.json.next_cursor).toBeUndefined();

    const dl = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/download_url`, { key: KEY, body: { mount_relative_path: 'data/out.csv' } });
    expect(dl.status).toBe(201);
    const got = await call(emu.url, 'GET', path(dl.json.download_url));
    expect(got.text).toBe('a,b\n');
    expect(got.headers['content-type']).toBe('text/csv');

    const del = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/delete`, { key: KEY, body: { mount_relative_path: 'data/out.csv' } });
    expect(del.json).toEqual({ mount_relative_path: 'data/out.csv', sandbox_mount_prefix: '/mnt/files' });
    // Idempotent: deleting again succeeds.
    const again = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/delete`, { key: KEY, body: { mount_relative_path: 'data/out.csv' } });
    expect(again.status).toBe(200);
    expect((await call(emu.url, 'GET', path(dl.json.download_url))).status).toBe(404);
    expect((await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/download_url`, { key: KEY, body: { mount_relative_path: 'data/out.csv' } })).status).toBe(404);
  });

  it('lists with a prefix and pages with an opaque cursor', async () => {
    const id = await createSession(emu.url, KEY);
    for (const f of ['a/1.txt', 'a/2.txt', 'a/3.txt', 'b/1.txt']) await upload(id, f, f);
    const p1 = await call(emu.url, 'GET', `${SESSION}/${id}/mounts/files/items?limit=2&mount_relative_prefix=a/`, { key: KEY });
    expect(p1.json.items.map((i: any) => i.mount_relative_path)).toEqual(['a/1.txt', 'a/2.txt']);
    const p2 = await call(emu.url, 'GET', `${SESSION}/${id}/mounts/files/items?limit=2&mount_relative_prefix=a/&cursor=${p1.json.next_cursor}`, { key: KEY });
    expect(p2.json.items.map((i: any) => i.mount_relative_path)).toEqual(['a/3.txt']);
    expect(p2.json.next_cursor).toBeUndefined();
  });

  it.each(['../etc/passwd', 'a/../../b', '//abs/path', '/', 'a//b', './a', 'a\\b', 'a/'])('refuses path traversal and odd paths: %s', async (bad) => {
    const id = await createSession(emu.url, KEY);
    for (const op of ['upload_url', 'download_url', 'delete']) {
      const r = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/${op}`, { key: KEY, body: { mount_relative_path: bad } });
      expect(r.status, op).toBe(400);
      expect(r.json.error.errors[0]).toMatch(/^Error in payload\.mount_relative_path: /);
    }
  });

  it('an unknown mount is 404', async () => {
    const id = await createSession(emu.url, KEY);
    const r = await call(emu.url, 'GET', `${SESSION}/${id}/mounts/other/items`, { key: KEY });
    expect(r.status).toBe(404);
  });

  it('an upload over the size limit is 413', async () => {
    const id = await createSession(emu.url, KEY);
    const r = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/upload_url`, { key: KEY, body: { mount_relative_path: 'big.bin' } });
    const put = await call(emu.url, 'PUT', path(r.json.upload_url), { raw: Buffer.alloc(2048) });
    expect(put.status).toBe(413);
    const list = await call(emu.url, 'GET', `${SESSION}/${id}/mounts/files/items`, { key: KEY });
    expect(list.json.items).toEqual([]);
  });

  it('a tampered URL, or one used for the other method, is refused with 403', async () => {
    const id = await createSession(emu.url, KEY);
    const up = await upload(id, 'x.txt', 'x');
    const token = path(up.upload_url).split('/').pop() as string;
    const [payload, sig] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload as string, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...claims, p: 'y.txt' })).toString('base64url')}.${sig}`;
    expect((await call(emu.url, 'PUT', `/_emulator/files/${forged}`, { raw: 'y' })).status).toBe(403);
    expect((await call(emu.url, 'GET', path(up.upload_url))).status).toBe(403);
    expect((await call(emu.url, 'GET', '/_emulator/files/garbage')).status).toBe(403);
  });
});

describe('presigned URLs expire', () => {
  let short: RunningEmulator;
  beforeAll(async () => {
    short = await startEmulator({ port: 0, presignTtlMs: 1 });
  });
  afterAll(() => short.close());

  it('an expired upload URL is 403', async () => {
    const id = await createSession(short.url, KEY);
    const r = await call(short.url, 'POST', `${SESSION}/${id}/mounts/files/upload_url`, { key: KEY, body: { mount_relative_path: 'late.txt' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const put = await call(short.url, 'PUT', path(r.json.upload_url), { raw: 'late' });
    expect(put.status).toBe(403);
    expect(put.json.error.message).toBe('Presigned URL expired');
  });
});

describe('paths that name Object.prototype members are files like any other (issue 14 item 11)', () => {
  it.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'dir/__proto__'])('%s uploads, lists, downloads and deletes', async (file) => {
    const id = await createSession(emu.url, KEY);
    // Before any upload, such a path is not found (no 201 for a prototype member).
    const missing = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/download_url`, { key: KEY, body: { mount_relative_path: file } });
    expect(missing.status).toBe(404);
    await upload(id, file, 'proto');
    const list = await call(emu.url, 'GET', `${SESSION}/${id}/mounts/files/items`, { key: KEY });
    expect(list.json.items.map((i: any) => [i.mount_relative_path, i.size])).toEqual([[file, 5]]);
    const dl = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/download_url`, { key: KEY, body: { mount_relative_path: file } });
    expect(dl.status).toBe(201);
    expect((await call(emu.url, 'GET', path(dl.json.download_url))).text).toBe('proto');
    await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/delete`, { key: KEY, body: { mount_relative_path: file } });
    expect((await call(emu.url, 'GET', `${SESSION}/${id}/mounts/files/items`, { key: KEY })).json.items).toEqual([]);
  });
});

describe('a leading slash names the mount root, as the SDK writes paths', () => {
  it('/dir/a.txt is dir/a.txt', async () => {
    const id = await createSession(emu.url, KEY);
    const up = await upload(id, '/dir/a.txt', 'root');
    expect(up.mount_relative_path).toBe('dir/a.txt');
    const dl = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/download_url`, { key: KEY, body: { mount_relative_path: 'dir/a.txt' } });
    expect((await call(emu.url, 'GET', path(dl.json.download_url))).text).toBe('root');
    const del = await call(emu.url, 'POST', `${SESSION}/${id}/mounts/files/delete`, { key: KEY, body: { mount_relative_path: '/dir/a.txt' } });
    expect(del.json.mount_relative_path).toBe('dir/a.txt');
    expect((await call(emu.url, 'GET', `${SESSION}/${id}/mounts/files/items`, { key: KEY })).json.items).toEqual([]);
  });
});
