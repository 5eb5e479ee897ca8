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

describe('the admin surface refuses what a web page could send (issue 14 item 6)', () => {
  const K = 'key-admin-0001';
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, apiKeys: [K, 'key-admin-0002'] });
  });
  afterAll(() => emu.close());

  it.each([
    ['a foreign Origin', { origin: 'https://evil.example', 'content-type': 'application/json' }, '{}', 403],
    ['a foreign Origin without a body', { origin: 'https://evil.example' }, undefined, 403],
    ['text/plain', { 'content-type': 'text/plain' }, '{}', 415],
    ['a form', { 'content-type': 'application/x-www-form-urlencoded' }, 'a=1', 415],
    ['a body without a type', {}, '{}', 415],
  ] as const)('POST /_emulator/reset with %s is %i and resets nothing', async (_name, headers, raw, status) => {
    const id = await createSession(emu.url, K);
    const r = await call(emu.url, 'POST', '/_emulator/reset', { headers: { ...headers }, ...(raw === undefined ? {} : { raw }) });
    expect(r.status).toBe(status);
    expect((await call(emu.url, 'GET', `${SESSION}/${id}`, { key: K })).status).toBe(200);
  });

  it('its own origin with JSON, or no body at all, is served', async () => {
    const own = await call(emu.url, 'POST', '/_emulator/faults', { key: K, headers: { origin: emu.url }, body: { route: 'get', status: 500 } });
    expect(own.status).toBe(201);
    expect((await call(emu.url, 'POST', '/_emulator/reset', { key: K })).status).toBe(200);
  });

  it('the session listing needs a key and shows only that key\'s sessions', async () => {
    const mine = await createSession(emu.url, K);
    const theirs = await createSession(emu.url, 'key-admin-0002');
    expect((await call(emu.url, 'GET', '/_emulator/sessions')).status).toBe(401);
    expect((await call(emu.url, 'GET', '/_emulator/sessions', { key: 'not-a-key-000' })).status).toBe(401);
    const listed = await call(emu.url, 'GET', '/_emulator/sessions', { key: K });
    const ids = listed.json.sessions.map((s: { session_id: string }) => s.session_id);
    expect(ids).toContain(mine);
    expect(ids).not.toContain(theirs);
  });
});

describe('request bodies nested or spread past what the API needs (issue 14 item 11)', () => {
  const K = 'key-deep-0001';
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, apiKeys: [K] });
  });
  afterAll(() => emu.close());

  it.each([
    ['custom_tools nested 10,000 deep', `{"user_id":"u","experimental":{"custom_tools":[{"slug":"a","name":"a","description":"a","input_schema":{"type":"object","properties":{"x":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}}}]}}`],
    ['an array of 100,000 toolkits', `{"user_id":"u","toolkits":{"enable":[${Array.from({ length: 100_000 }, () => '"gmail"').join(',')}]}}`],
  ])('a create with %s is a 400 before anything is stored', async (_name, raw) => {
    const before = (await call(emu.url, 'GET', '/_emulator/sessions', { key: K })).json.sessions.length;
    const r = await call(emu.url, 'POST', SESSION, { key: K, raw, headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.json.error.slug).toBe('HTTP_BadRequest');
    expect((await call(emu.url, 'GET', '/_emulator/sessions', { key: K })).json.sessions.length).toBe(before);
  });
});
