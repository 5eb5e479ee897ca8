/**
 * Issue 29, item 10: a path segment with a malformed percent-escape (`%zz`, a lone `%`, a cut or
 * overlong UTF-8 sequence, a lone surrogate) is a 400 with the service's error envelope on every
 * route that decodes one (the API of both versions, MCP, the admin surface, the link page and
 * presigned file URLs): never a 500 or a dropped connection, nothing handled, nothing changed, and
 * the emulator answers on. On a shared emulator the key is checked first, as for any request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call, type Reply } from '../conformance/emulator-http.js';

const A = 'escapes-tenant-alpha-01';
const ADMIN = 'escapes-admin-key-0002';
const S31 = '/api/v3.1/tool_router/session';
const ESCAPES = ['%zz', '%', '%2', '%E0%A4%A', '%C0%AF', '%ED%A0%80', 'trs_ab%G1cd'];

/** [method, path with `BAD` for the malformed segment, body, whether it is the admin surface (its own key rules)]. */
const ROUTES: ReadonlyArray<[string, string, unknown, 'api' | 'admin' | 'token']> = [
  ['GET', '/api/v3/tool_router/session/BAD', undefined, 'api'],
  ['PATCH', `${S31}/BAD`, { workbench: { enable: true } }, 'api'],
  ['DELETE', `${S31}/BAD`, undefined, 'api'],
  ['POST', `${S31}/BAD/execute`, { tool_slug: 'COMPOSIO_SEARCH_TOOLS', arguments: {} }, 'api'],
  ['GET', `${S31}/BAD/config_history`, undefined, 'api'],
  ['GET', `${S31}/SESSION/mounts/BAD/items`, undefined, 'api'],
  ['POST', `${S31}/SESSION/mounts/BAD/upload_url`, { mount_relative_path: 'a.txt' }, 'api'],
  ['GET', '/api/v3.1/connected_accounts/BAD', undefined, 'api'],
  ['POST', '/tool_router/v3/BAD/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, 'api'],
  ['GET', '/_emulator/sessions/BAD', undefined, 'admin'],
  ['PATCH', '/_emulator/sessions/BAD', { workbench: { enable: true } }, 'admin'],
  ['POST', '/_emulator/sessions/BAD/config', { config: { tags: { enabled: ['readOnlyHint'] } } }, 'admin'],
  ['POST', '/_emulator/connections/BAD/approve', undefined, 'admin'],
  ['DELETE', '/_emulator/faults/BAD', undefined, 'admin'],
  ['GET', '/_emulator/BAD', undefined, 'admin'],
  ['GET', '/_emulator/link/BAD', undefined, 'token'],
  ['PUT', '/_emulator/files/BAD', undefined, 'token'],
];

function expectMalformed(r: Reply, what: string): void {
  expect(r.status, `${what}: ${r.text}`).toBe(400);
  expect(r.json.error, what).toMatchObject({ status: 400, slug: 'HTTP_BadRequest', code: 10400, message: 'Malformed path' });
}

describe.each([
  ['a shared emulator (--api-key keys)', true],
  ['a single user\'s emulator (no keys)', false],
])('malformed escapes on %s', (_name, shared) => {
  const logs: string[] = [];
  let emu: RunningEmulator;
  let session: string;
  const adminKey = shared ? ADMIN : undefined;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, ...(shared ? { apiKeys: [A], adminKeys: [ADMIN] } : {}), log: (l) => logs.push(l) });
    const s = await call(emu.url, 'POST', S31, { key: A, body: { user_id: 'u' } });
    expect(s.status, s.text).toBe(201);
    session = s.json.session_id as string;
  });
  afterAll(() => emu.close());

  /** What a request could have changed: sessions, versions, faults, and what was handled. */
  async function world(): Promise<unknown> {
    const get = async (p: string): Promise<any> => (await call(emu.url, 'GET', `/_emulator${p}`, adminKey === undefined ? {} : { key: adminKey })).json;
    const stats = await get('/stats');
    return { counts: await get('/counts'), session: await get(`/sessions/${session}`), faults: await get('/faults'), handled: stats.total.handled };
  }

  it.each(ESCAPES)('%s in a path segment: 400 with the envelope on every route, nothing changed', async (bad) => {
    const before = await world();
    for (const [method, template, body, kind] of ROUTES) {
      const path = template.replace('SESSION', session).replace('BAD', bad);
      const what = `${method} ${path}`;
      const r = await call(emu.url, method, path, { ...(kind === 'token' || (kind === 'admin' && !shared) ? {} : { key: A }), ...(body === undefined ? {} : { body }) });
      expectMalformed(r, what);
      expect(r.headers['x-request-id'], what).toBe(r.json.error.request_id);
    }
    expect(await world()).toEqual(before);
    expect((await call(emu.url, 'GET', `${S31}/${session}`, { key: A })).status).toBe(200);
    expect(logs.filter((l) => l.includes('internal error'))).toEqual([]);
    expect(logs.filter((l) => / 5\d\d |reset/.test(l))).toEqual([]);
  });

  it('without a key, the key is refused first where one is needed (401), and a token route still answers 400', async () => {
    for (const [method, template, body, kind] of ROUTES) {
      const path = template.replace('SESSION', session).replace('BAD', '%zz');
      const r = await call(emu.url, method, path, body === undefined ? {} : { body });
      const needsKey = kind === 'api' || (kind === 'admin' && shared);
      if (needsKey) {
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(r.json.error.slug).toBe('HTTP_Unauthorized');
      } else {
        expectMalformed(r, `${method} ${path}`);
      }
    }
  });
});
