import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call, createSession, SESSION } from '../conformance/emulator-http.js';

describe('with --api-key keys', () => {
  const A = 'key-alpha-0001';
  const B = 'key-bravo-0002';
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, apiKeys: [A, B] });
  });
  afterAll(() => emu.close());

  it('a missing key is 401 HTTP_Unauthorized', async () => {
    const r = await call(emu.url, 'POST', SESSION, { body: { user_id: 'u' } });
    expect(r.status).toBe(401);
    expect(r.json.error).toMatchObject({ slug: 'HTTP_Unauthorized', code: 10401, status: 401 });
  });

  it('an unknown key is 401, and the answer does not repeat it', async () => {
    const r = await call(emu.url, 'GET', `${SESSION}/trs_abc`, { key: 'key-alpha-0003' });
    expect(r.status).toBe(401);
    expect(r.json.error.slug).toBe('HTTP_Unauthorized');
    expect(r.text).not.toContain('key-alpha-0003');
  });

  it('an empty key is 401', async () => {
    const r = await call(emu.url, 'GET', `${SESSION}/trs_abc`, { key: '' });
    expect(r.status).toBe(401);
  });

  it('each key is its own project: another key’s session is 404 on every session route', async () => {
    const id = await createSession(emu.url, A);
    const routes: Array<[string, string, unknown]> = [
      ['GET', `${SESSION}/${id}`, undefined],
      ['POST', `${SESSION}/${id}/execute`, { tool_slug: 'GMAIL_SEND_EMAIL' }],
      ['POST', `${SESSION}/${id}/execute_meta`, { slug: 'COMPOSIO_SEARCH_TOOLS' }],
      ['POST', `${SESSION}/${id}/link`, { toolkit: 'gmail' }],
      ['POST', `${SESSION}/${id}/proxy_execute`, { toolkit_slug: 'gmail', endpoint: '/x', method: 'GET' }],
      ['GET', `${SESSION}/${id}/toolkits`, undefined],
      ['GET', `${SESSION}/${id}/tools`, undefined],
      ['POST', `${SESSION}/${id}/search`, { queries: [{ use_case: 'email' }] }],
      ['GET', `${SESSION}/${id}/mounts/files/items`, undefined],
      ['POST', `${SESSION}/${id}/mounts/files/download_url`, { mount_relative_path: 'a.txt' }],
      ['POST', `${SESSION}/${id}/mounts/files/upload_url`, { mount_relative_path: 'a.txt' }],
      ['POST', `${SESSION}/${id}/mounts/files/delete`, { mount_relative_path: 'a.txt' }],
    ];
    for (const [method, path, body] of routes) {
      const r = await call(emu.url, method, path, { key: B, body });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.json.error.slug).toBe('HTTP_NotFound');
    }
    const own = await call(emu.url, 'GET', `${SESSION}/${id}`, { key: A });
    expect(own.status).toBe(200);
  });

  it('a well-formed id that does not exist is 404', async () => {
    const r = await call(emu.url, 'GET', `${SESSION}/trs_doesnotexist`, { key: A });
    expect(r.status).toBe(404);
  });
});

describe('without --api-key', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0 });
  });
  afterAll(() => emu.close());

  it('any non-empty key works, each its own project', async () => {
    const id = await createSession(emu.url, 'any-key-one');
    expect((await call(emu.url, 'GET', `${SESSION}/${id}`, { key: 'any-key-one' })).status).toBe(200);
    expect((await call(emu.url, 'GET', `${SESSION}/${id}`, { key: 'any-key-two' })).status).toBe(404);
    expect((await call(emu.url, 'GET', `${SESSION}/${id}`)).status).toBe(401);
  });

  it('session ids are trs_ plus a random token', async () => {
    const ids = await Promise.all([1, 2, 3].map(() => createSession(emu.url, 'k-123456')));
    for (const id of ids) expect(id).toMatch(/^trs_[A-Za-z0-9_-]{12}$/);
    expect(new Set(ids).size).toBe(3);
  });
});
