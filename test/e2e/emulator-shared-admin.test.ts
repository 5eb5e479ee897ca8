/**
 * Issue 29, item 10: the emulator as a shared server. With `--api-key` keys every admin route needs
 * a key (401 with the envelope without one), an API key sees and changes its own tenant alone
 * (another tenant's session, account or fault is 404, exactly as one that never existed), and the
 * admin key acts for the whole server. Real HTTP to an emulator on loopback; after each refused
 * request the whole server's view (through the admin key) shows nothing changed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call, type Reply } from '../conformance/emulator-http.js';

const A = 'shared-tenant-alpha-0001';
const B = 'shared-tenant-bravo-0002';
const ADMIN = 'shared-admin-key-0003';
const S31 = '/api/v3.1/tool_router/session';
const logs: string[] = [];
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [A, B], adminKeys: [ADMIN], log: (l) => logs.push(l) });
});
afterAll(() => emu.close());

const admin = (method: string, path: string, key: string | undefined, body?: unknown): Promise<Reply> =>
  call(emu.url, method, `/_emulator${path}`, { ...(key === undefined ? {} : { key }), ...(body === undefined ? {} : { body }) });

/** A tenant's world: a session of user `u-<tag>` at config_version 1 and an unfinished link flow's account. */
async function seed(key: string, tag: string): Promise<{ session: string; account: string }> {
  const s = await call(emu.url, 'POST', S31, { key, body: { user_id: `u-${tag}` } });
  expect(s.status, s.text).toBe(201);
  const link = await call(emu.url, 'POST', `${S31}/${s.json.session_id as string}/link`, { key, body: { toolkit: 'github' } });
  expect(link.status, link.text).toBe(201);
  return { session: s.json.session_id as string, account: link.json.connected_account_id as string };
}

/** Everything a refused admin request could have changed, as the whole server sees it (no API request, so no count moves). */
async function world(): Promise<unknown> {
  const [counts, sessions, faults, stats, rate] = await Promise.all(
    ['/counts', '/sessions', '/faults', '/stats', '/rate-limit'].map(async (p) => (await admin('GET', p, ADMIN)).json),
  );
  const details = await Promise.all((sessions.sessions as Array<{ session_id: string }>).map(async (s) => (await admin('GET', `/sessions/${s.session_id}`, ADMIN)).json));
  return { counts, sessions, details, faults, stats, rate };
}

/** The status of a tenant's connected account, read as its application reads it. */
async function accountStatus(key: string, id: string): Promise<unknown> {
  const r = await call(emu.url, 'GET', `/api/v3.1/connected_accounts/${id}`, { key });
  return r.status === 200 ? r.json.status : r.status;
}

let alpha: { session: string; account: string };
let bravo: { session: string; account: string };
beforeEach(async () => {
  expect((await admin('POST', '/reset', ADMIN)).status).toBe(200);
  alpha = await seed(A, 'a');
  bravo = await seed(B, 'b');
  expect((await admin('POST', '/faults', A, { route: 'toolkits', status: 500, times: 5 })).status).toBe(201);
});

function expectEnvelope(r: Reply, status: number, slug: string): void {
  expect(r.status, r.text).toBe(status);
  expect(r.json.error).toMatchObject({ status, slug, code: 10000 + status });
  expect(r.json.error.request_id).toMatch(/^req_/);
}

const everyRoute = (): Array<[string, string, unknown]> => [
  ['GET', '/health', undefined],
  ['POST', '/reset', undefined],
  ['GET', '/stats', undefined],
  ['POST', '/stats/reset', undefined],
  ['GET', '/faults', undefined],
  ['POST', '/faults', { route: 'create', status: 503, times: 10 }],
  ['DELETE', '/faults', undefined],
  ['POST', '/faults/release', undefined],
  ['GET', '/rate-limit', undefined],
  ['POST', '/rate-limit', { limit: 1 }],
  ['GET', '/counts', undefined],
  ['GET', '/sessions', undefined],
  ['GET', `/sessions/${alpha.session}`, undefined],
  ['DELETE', `/sessions/${alpha.session}`, undefined],
  ['PATCH', `/sessions/${alpha.session}`, { workbench: { enable: true } }],
  ['POST', `/sessions/${alpha.session}/config`, { config: { tags: { enabled: ['readOnlyHint'] } } }],
  ['POST', `/sessions/${alpha.session}/connections`, { toolkit: 'gmail' }],
  ['POST', '/connected_accounts', { user_id: 'u-a', toolkit: 'gmail' }],
  ['POST', `/connections/${alpha.account}/approve`, undefined],
  ['GET', '/no-such-route', undefined],
  ['GET', '', undefined],
];

describe('with --api-key keys, an admin request without a key it knows is 401 and changes nothing', () => {
  it.each([
    ['no key', undefined],
    ['an empty key', ''],
    ['an unknown key', 'shared-tenant-unknown-9'],
    ['a key of the right length, one character off', `${A.slice(0, -1)}9`],
  ])('%s, on every admin route', async (_name, key) => {
    const before = await world();
    for (const [method, path, body] of everyRoute()) {
      const r = await admin(method, path, key, body);
      expectEnvelope(r, 401, 'HTTP_Unauthorized');
      expect(r.headers['www-authenticate'], `${method} ${path}`).toBe('ApiKey realm="composio", header="x-api-key"');
      if (key !== undefined && key !== '') expect(r.text).not.toContain(key);
    }
    expect(await world()).toEqual(before);
    expect(await accountStatus(A, alpha.account)).toBe('INITIATED');
  });

  it('the admin key is no API key: 401 on the API, and nothing is created', async () => {
    const before = await world();
    const r = await call(emu.url, 'POST', S31, { key: ADMIN, body: { user_id: 'u-admin' } });
    expectEnvelope(r, 401, 'HTTP_Unauthorized');
    expect((await call(emu.url, 'GET', `${S31}/${alpha.session}`, { key: ADMIN })).status).toBe(401);
    const after = (await world()) as { counts: unknown; sessions: unknown };
    expect(after.counts).toEqual((before as typeof after).counts);
    expect(after.sessions).toEqual((before as typeof after).sessions);
  });

  it('the link page and presigned file URLs still carry their own tokens: no key needed', async () => {
    const link = await call(emu.url, 'POST', `${S31}/${alpha.session}/link`, { key: A, body: { toolkit: 'slack' } });
    const visited = await call(emu.url, 'GET', new URL(link.json.redirect_url).pathname);
    expect(visited.status).toBe(200);
    expect(visited.json.status).toBe('ACTIVE');
  });
});

describe("another tenant's key sees and changes only its own", () => {
  it("reset: B's reset forgets B's sessions, accounts, faults and counters, and leaves A's as they were", async () => {
    const aBefore = await Promise.all(['/counts', '/faults', '/stats'].map(async (p) => (await admin('GET', p, A)).json));
    expect((await admin('POST', '/reset', B)).json).toEqual({ reset: true });
    expect(await Promise.all(['/counts', '/faults', '/stats'].map(async (p) => (await admin('GET', p, A)).json))).toEqual(aBefore);
    expect((await call(emu.url, 'GET', `${S31}/${alpha.session}`, { key: A })).status).toBe(200);
    expect(await accountStatus(A, alpha.account)).toBe('INITIATED');
    expect((await call(emu.url, 'GET', `${S31}/${bravo.session}`, { key: B })).status).toBe(404);
    expect(await accountStatus(B, bravo.account)).toBe(404);
    expect((await admin('GET', '/counts', ADMIN)).json).toMatchObject({ sessions: 1, users: 1 });
  });

  it('counts, sessions, health and stats: each tenant its own; the admin key all of them', async () => {
    await seed(B, 'b2');
    expect((await admin('GET', '/counts', A)).json).toMatchObject({ sessions: 1, users: 1 });
    expect((await admin('GET', '/counts', B)).json).toMatchObject({ sessions: 2, users: 2 });
    expect((await admin('GET', '/counts?user_id=u-a', B)).json).toMatchObject({ sessions: 0, users: 0 });
    expect((await admin('GET', '/counts', ADMIN)).json).toMatchObject({ sessions: 3, users: 3 });
    expect((await admin('GET', '/sessions', B)).json.sessions.map((s: { user_id: string }) => s.user_id)).toEqual(['u-b', 'u-b2']);
    expect((await admin('GET', '/health', A)).json.sessions).toBe(1);
    expect((await admin('GET', '/health', ADMIN)).json.sessions).toBe(3);
    expect((await admin('GET', '/stats', A)).json.routes.create).toEqual({ received: 1, handled: 1 });
    expect((await admin('GET', '/stats', B)).json.routes.create).toEqual({ received: 2, handled: 2 });
    expect((await admin('GET', '/stats', ADMIN)).json.routes.create).toEqual({ received: 3, handled: 3 });
    expect((await admin('POST', '/stats/reset', B)).status).toBe(200);
    expect((await admin('GET', '/stats', A)).json.routes.create).toEqual({ received: 1, handled: 1 });
    expect((await admin('GET', '/stats', ADMIN)).json.total.received).toBeGreaterThan(0);
  });

  it("faults: A's fault applies to A's requests alone; B neither sees, removes nor clears it", async () => {
    const aFaults = (await admin('GET', '/faults', A)).json.faults;
    expect(aFaults).toHaveLength(1);
    expect((await admin('GET', '/faults', B)).json.faults).toEqual([]);
    expectEnvelope(await admin('DELETE', `/faults/${aFaults[0].id as string}`, B), 404, 'HTTP_NotFound');
    expect((await admin('DELETE', '/faults', B)).json).toEqual({ cleared: 0 });
    expect((await call(emu.url, 'GET', `${S31}/${bravo.session}/toolkits`, { key: B })).status).toBe(200);
    expect((await call(emu.url, 'GET', `${S31}/${alpha.session}/toolkits`, { key: A })).status).toBe(500);
    expect((await admin('GET', '/faults', A)).json.faults[0].times).toBe(4);
    // B's own fault: B's requests alone.
    expect((await admin('POST', '/faults', B, { route: 'get', status: 503, times: 3 })).status).toBe(201);
    expect((await call(emu.url, 'GET', `${S31}/${alpha.session}`, { key: A })).status).toBe(200);
    expect((await call(emu.url, 'GET', `${S31}/${bravo.session}`, { key: B })).status).toBe(503);
    // The admin key's fault is the whole server's.
    expect((await admin('POST', '/faults', ADMIN, { route: 'get', status: 502, times: 2 })).status).toBe(201);
    expect((await call(emu.url, 'GET', `${S31}/${alpha.session}`, { key: A })).status).toBe(502);
    expect((await admin('GET', '/faults', ADMIN)).json.faults).toHaveLength(3);
  });

  it("faults: B's release lets none of A's held requests go; A's own release does", async () => {
    expect((await admin('POST', '/faults', A, { route: 'get', hold: true })).status).toBe(201);
    let answered = false;
    const held = call(emu.url, 'GET', `${S31}/${alpha.session}`, { key: A }).then((r) => {
      answered = true;
      return r;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await admin('POST', '/faults/release', B)).json).toEqual({ released: 0 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    expect((await admin('POST', '/faults/release', A)).json).toEqual({ released: 1 });
    expect((await held).status).toBe(200);
  });

  it("session admin: B's GET, DELETE, PATCH and connection of A's session are 404, as for no session at all", async () => {
    const before = await world();
    const missing = 'trs_doesnotexist00';
    for (const [method, tail, body] of [
      ['GET', '', undefined],
      ['DELETE', '', undefined],
      ['PATCH', '', { workbench: { enable: true } }],
      ['POST', '/connections', { toolkit: 'gmail' }],
    ] as const) {
      const theirs = await admin(method, `/sessions/${alpha.session}${tail}`, B, body);
      const none = await admin(method, `/sessions/${missing}${tail}`, B, body);
      expectEnvelope(theirs, 404, 'HTTP_NotFound');
      expect(theirs.json.error.message.replace(alpha.session, 'ID')).toBe(none.json.error.message.replace(missing, 'ID'));
      expect(Object.keys(theirs.headers).sort()).toEqual(Object.keys(none.headers).sort());
    }
    expect(await world()).toEqual(before);
  });

  it("drift injection: B's config merge patch of A's session is 404; A's version and history stay", async () => {
    const before = await world();
    const r = await admin('POST', `/sessions/${alpha.session}/config`, B, { config: { tags: { enabled: ['readOnlyHint'] } }, config_version: 7 });
    expectEnvelope(r, 404, 'HTTP_NotFound');
    expect(await world()).toEqual(before);
    const history = await call(emu.url, 'GET', `${S31}/${alpha.session}/config_history`, { key: A });
    expect(history.json.items.map((i: { version: number }) => i.version)).toEqual([1]);
    // A's own drift is served, and archived.
    expect((await admin('POST', `/sessions/${alpha.session}/config`, A, { config: { tags: { enabled: ['readOnlyHint'] } } })).json.config_version).toBe(2);
  });

  it("accounts: B cannot approve A's link flow (404), and the rate limit is the admin key's alone (403)", async () => {
    const before = await world();
    expectEnvelope(await admin('POST', `/connections/${alpha.account}/approve`, B), 404, 'HTTP_NotFound');
    expectEnvelope(await admin('POST', '/rate-limit', B, { limit: 1 }), 403, 'HTTP_Forbidden');
    expect(await world()).toEqual(before);
    expect(await accountStatus(A, alpha.account)).toBe('INITIATED');
    expect((await admin('POST', `/connections/${alpha.account}/approve`, A)).json.status).toBe('ACTIVE');
    expect((await admin('POST', '/rate-limit', ADMIN, { limit: null })).json).toEqual({ per_window: null, window_ms: 60_000 });
  });

  it('the admin key resets the whole server', async () => {
    expect((await admin('POST', '/reset', ADMIN)).status).toBe(200);
    expect((await admin('GET', '/counts', ADMIN)).json).toMatchObject({ sessions: 0 });
    expect((await admin('GET', '/faults', A)).json.faults).toEqual([]);
    expect(logs.some((l) => l.startsWith('internal error'))).toBe(false);
    expect(logs.join('\n')).not.toContain(ADMIN);
  });
});
