import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call, SESSION } from '../conformance/emulator-http.js';

const KEY = 'faults-key-123456';
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(() => emu.close());
afterEach(async () => {
  await call(emu.url, 'POST', '/_emulator/reset');
});

const fault = (body: unknown) => call(emu.url, 'POST', '/_emulator/faults', { body });
const create = () => call(emu.url, 'POST', SESSION, { key: KEY, body: { user_id: 'u' } });
const stats = async () => (await call(emu.url, 'GET', '/_emulator/stats')).json;
const health = async () => (await call(emu.url, 'GET', '/_emulator/health')).json;

describe('admin', () => {
  it('health, stats and reset', async () => {
    expect(await health()).toMatchObject({ status: 'ok', sessions: 0 });
    await create();
    await create();
    expect((await stats()).routes.create).toEqual({ received: 2, handled: 2 });
    expect((await health()).sessions).toBe(2);
    expect((await call(emu.url, 'POST', '/_emulator/reset')).json).toEqual({ reset: true });
    expect(await health()).toMatchObject({ sessions: 0 });
    expect((await stats()).total).toEqual({ received: 0, handled: 0 });
  });

  it('bad fault rules are 400 naming the problem', async () => {
    const r = await fault([{ route: 'nope', status: 500 }, { route: 'create' }, { route: 'create', misapply: { tags: null } }, { route: 'update', misapply: ['tags'] }]);
    expect(r.status).toBe(400);
    expect(r.json.error.errors).toEqual([
      "faults[0]: route must be '*' or one of create, get, execute, execute_meta, link, proxy_execute, toolkits, tools, search, mount_items, download_url, upload_url, mount_delete, update, delete, attach, config_history, connected_account, mcp",
      'faults[1]: a fault needs at least one of status, latency_ms, reset, malformed, hold, misapply',
      "faults[2]: misapply is a merge patch of the config (an object), on route 'update' only",
      "faults[3]: misapply is a merge patch of the config (an object), on route 'update' only",
    ]);
  });
});

describe('faults', () => {
  it('status with the envelope and Retry-After, for the next N requests only', async () => {
    const r = await fault({ route: 'create', status: 503, retry_after: 2, times: 2 });
    expect(r.status).toBe(201);
    expect(r.json.faults[0]).toMatchObject({ id: expect.stringMatching(/^fault_/), route: 'create', times: 2 });
    for (let i = 0; i < 2; i++) {
      const f = await create();
      expect(f.status).toBe(503);
      expect(f.headers['retry-after']).toBe('2');
      expect(f.json.error).toMatchObject({ slug: 'HTTP_ServiceUnavailable', code: 10503, status: 503 });
    }
    expect((await create()).status).toBe(201);
    expect((await stats()).routes.create).toEqual({ received: 3, handled: 1 });
    expect((await call(emu.url, 'GET', '/_emulator/faults')).json.faults).toEqual([]);
  });

  it('a status fault can carry its own body (e.g. the bare rate-limit body)', async () => {
    await fault({ route: '*', status: 429, retry_after: 'Wed, 21 Oct 2026 07:28:00 GMT', body: { message: 'Rate limit exceeded. Limit: 1 requests per 1 minutes' } });
    const r = await call(emu.url, 'GET', `${SESSION}/trs_x`, { key: KEY });
    expect(r.status).toBe(429);
    expect(r.json).toEqual({ message: 'Rate limit exceeded. Limit: 1 requests per 1 minutes' });
    expect(r.headers['retry-after']).toBe('Wed, 21 Oct 2026 07:28:00 GMT');
  });

  it('faults on one route leave others alone', async () => {
    await fault({ route: 'get', status: 500 });
    expect((await create()).status).toBe(201);
  });

  it('latency delays the answer', async () => {
    await fault({ route: 'create', latency_ms: 400 });
    const aborted = await request(`${emu.url}${SESSION}`, {
      method: 'POST',
      headers: { 'x-api-key': KEY },
      body: '{"user_id":"u"}',
      signal: AbortSignal.timeout(50),
    }).then(
      () => 'answered',
      (e: Error) => e.name,
    );
    expect(aborted).toBe('TimeoutError');
    // The emulator still handles the request after the delay (the client just stopped waiting):
    // wait for that, so no late session leaks into the next test.
    for (let i = 0; i < 100 && (await stats()).routes.create.handled === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect((await stats()).routes.create).toEqual({ received: 1, handled: 1 });
  });

  it('hold: the request waits, unhandled, until released; a release before it arrives whole still lets it through', async () => {
    await fault({ route: 'create', hold: true, times: 2 });
    const first = create();
    // Arrived (counted at once), and held: not handled however long nothing releases it.
    for (let i = 0; i < 200 && (await stats()).routes.create?.received !== 1; i++) await new Promise((r) => setTimeout(r, 10));
    expect((await stats()).routes.create).toEqual({ received: 1, handled: 0 });
    expect((await health()).sessions).toBe(0);
    expect((await call(emu.url, 'POST', '/_emulator/faults/release')).json).toEqual({ released: 1 });
    expect((await first).status).toBe(201);
    expect((await stats()).routes.create).toEqual({ received: 1, handled: 1 });
    // With a status, the answer waits too; a reset lets every held request go on.
    await fault({ route: 'get', status: 503, hold: true });
    const get = call(emu.url, 'GET', `${SESSION}/trs_nothere00001`, { key: KEY });
    for (let i = 0; i < 200 && (await stats()).routes.get?.received !== 1; i++) await new Promise((r) => setTimeout(r, 10));
    await call(emu.url, 'POST', '/_emulator/reset');
    expect((await get).status).toBe(503);
  });

  it('reset before handling: the connection drops and nothing happened', async () => {
    await fault({ route: 'create', reset: 'before' });
    const err = await create().then(() => undefined, (e: Error & { code?: string }) => e.code);
    expect(err).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    expect((await stats()).routes.create).toEqual({ received: 1, handled: 0 });
    expect((await health()).sessions).toBe(0);
  });

  it('reset after handling: the connection drops but the session exists', async () => {
    await fault({ route: 'create', reset: 'after' });
    const err = await create().then(() => undefined, (e: Error & { code?: string }) => e.code);
    expect(err).toMatch(/UND_ERR_SOCKET|ECONNRESET/);
    expect((await stats()).routes.create).toEqual({ received: 1, handled: 1 });
    expect((await health()).sessions).toBe(1);
  });

  it('malformed: the real status with a truncated JSON body', async () => {
    await fault({ route: 'create', malformed: true });
    const r = await create();
    expect(r.status).toBe(201);
    expect(r.json).toBeUndefined();
    expect(r.text.startsWith('{"session_id":"trs_')).toBe(true);
    expect(() => JSON.parse(r.text)).toThrow();
  });

  it('probability 0 never fires, 1 always fires (and never runs out)', async () => {
    await fault({ route: 'create', status: 500, probability: 0 });
    expect((await create()).status).toBe(201);
    await call(emu.url, 'DELETE', '/_emulator/faults');
    const added = await fault({ route: 'create', status: 502, probability: 1 });
    for (let i = 0; i < 3; i++) expect((await create()).status).toBe(502);
    expect((await call(emu.url, 'DELETE', `/_emulator/faults/${added.json.faults[0].id}`)).status).toBe(200);
    expect((await create()).status).toBe(201);
  });

  it('a seeded random source makes probabilistic faults reproducible', async () => {
    let n = 0;
    const seeded = await startEmulator({ port: 0, random: () => [0.1, 0.9, 0.3, 0.7][n++ % 4] as number });
    try {
      await call(seeded.url, 'POST', '/_emulator/faults', { body: { route: 'create', status: 500, probability: 0.5 } });
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await call(seeded.url, 'POST', SESSION, { key: KEY, body: { user_id: 'u' } })).status);
      expect(codes).toEqual([500, 201, 500, 201]);
    } finally {
      await seeded.close();
    }
  });
});

describe('rate limit', () => {
  it('per key, fixed window: headers, then 429 with Retry-After and the bare body', async () => {
    expect((await call(emu.url, 'POST', '/_emulator/rate-limit', { body: { limit: 2, window_ms: 60_000 } })).json).toEqual({ per_window: 2, window_ms: 60_000 });
    const a = await create();
    expect(a.headers['x-ratelimit']).toBe('2');
    expect(a.headers['x-ratelimit-remaining']).toBe('1');
    expect(a.headers['x-ratelimit-window-size']).toBe('60s');
    expect((await create()).status).toBe(201);
    const refused = await create();
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ message: 'Rate limit exceeded. Limit: 2 requests per 1 minutes' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another key has its own window.
    expect((await call(emu.url, 'POST', SESSION, { key: 'another-key-1234', body: { user_id: 'u' } })).status).toBe(201);
    await call(emu.url, 'POST', '/_emulator/rate-limit', { body: { limit: null } });
    expect((await create()).status).toBe(201);
  });

  it('rateLimitPerMinute starts limited', async () => {
    const limited = await startEmulator({ port: 0, rateLimitPerMinute: 1 });
    try {
      expect((await call(limited.url, 'POST', SESSION, { key: KEY, body: { user_id: 'u' } })).status).toBe(201);
      expect((await call(limited.url, 'POST', SESSION, { key: KEY, body: { user_id: 'u' } })).status).toBe(429);
      expect((await call(limited.url, 'GET', '/_emulator/rate-limit')).json).toEqual({ per_window: 1, window_ms: 60_000 });
    } finally {
      await limited.close();
    }
  });
});
