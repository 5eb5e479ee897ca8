/**
 * Both API versions on one store (issue 10 item 2): v3.1 shapes and defaults, PATCH exactly as api
 * facts §7, DELETE, attach, config_history, the connected-account read, and the key checked
 * before routing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { seedAccounts } from '../conformance/seed-accounts.js';
import { call, SESSION } from '../conformance/emulator-http.js';

const KEY = 'v31-key-0123456789';
const S31 = '/api/v3.1/tool_router/session';
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY, 'v31-other-key-987'] });
  await seedAccounts(emu.url, KEY, [
    { id: 'ca_one', user_id: 'u1', toolkit: 'github' },
    { id: 'ca_two', user_id: 'u2', toolkit: 'github' },
    { id: 'ca_9', user_id: 'p4', toolkit: 'github' },
  ]);
});
afterAll(() => emu.close());

async function create(body: Record<string, unknown>, path = S31): Promise<any> {
  const r = await call(emu.url, 'POST', path, { key: KEY, body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

async function patch(id: string, body: Record<string, unknown>, path = S31): Promise<{ status: number; json: any }> {
  return call(emu.url, 'PATCH', `${path}/${id}`, { key: KEY, body });
}

describe('v3.1 create and retrieve', () => {
  it('answers in v3.1 shapes: account lists, search and execute blocks, config_version', async () => {
    const s = await create({ user_id: 'u1', toolkits: { enable: ['github', 'gmail'] }, connected_accounts: { github: ['ca_one'] }, search: { enable: false } });
    expect(s.config).toMatchObject({ connected_accounts: { github: ['ca_one'] }, search: { enable: false }, execute: { enable_multi_execute: true }, preload: { tools: [] } });
    expect(s.config_version).toBe(1);
    expect(s.tool_router_tools).not.toContain('COMPOSIO_SEARCH_TOOLS');
    expect(s.tool_router_tools).toContain('COMPOSIO_MULTI_EXECUTE_TOOL');
    // The same session on v3: one id per toolkit, no v3.1 blocks.
    const v3 = await call(emu.url, 'GET', `${SESSION}/${s.session_id}`, { key: KEY });
    expect(v3.json.config.connected_accounts).toEqual({ github: 'ca_one' });
    expect(v3.json.config.search).toBeUndefined();
  });

  it('a v3 session is read and patched on v3.1', async () => {
    const s = await create({ user_id: 'u2', connected_accounts: { github: 'ca_two' } }, SESSION);
    const got = await call(emu.url, 'GET', `${S31}/${s.session_id}`, { key: KEY });
    expect(got.json.config.connected_accounts).toEqual({ github: ['ca_two'] });
    const p = await patch(s.session_id, { execute: { enable_multi_execute: false } });
    expect(p.status).toBe(200);
    expect(p.json.tool_router_tools).not.toContain('COMPOSIO_MULTI_EXECUTE_TOOL');
  });

  it('preload "all" lists every allowed tool of the allowlist; without an allowlist it is a 400', async () => {
    const s = await create({ user_id: 'u3', toolkits: { enable: ['hackernews'] }, preload: { tools: 'all' } });
    expect(s.config.preload).toEqual({ tools: 'all' });
    const app = s.tool_router_tools.filter((t: string) => !t.startsWith('COMPOSIO_'));
    expect(app.length).toBeGreaterThan(0);
    expect(app.every((t: string) => t.startsWith('HACKERNEWS_'))).toBe(true);
    const v3 = await call(emu.url, 'GET', `${SESSION}/${s.session_id}`, { key: KEY });
    expect(v3.json.config.preload).toEqual({ tools: app });
    const bad = await call(emu.url, 'POST', S31, { key: KEY, body: { user_id: 'u', preload: { tools: 'all' } } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.slug).toBe('ToolRouterV2_BadRequest');
  });

  it('v3 answers 400 to v3.1 shapes (an account list)', async () => {
    const r = await call(emu.url, 'POST', SESSION, { key: KEY, body: { user_id: 'u', connected_accounts: { github: ['ca_x'] } } });
    expect(r.status).toBe(400);
  });

  it('tools are paged on v3.1 (limit, cursor) and a plain list on v3', async () => {
    const s = await create({ user_id: 'u4' });
    const first = await call(emu.url, 'GET', `${S31}/${s.session_id}/tools?limit=4`, { key: KEY });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ total_items: 6, total_pages: 2, current_page: 1 });
    expect(first.json.items).toHaveLength(4);
    const second = await call(emu.url, 'GET', `${S31}/${s.session_id}/tools?cursor=${first.json.next_cursor}`, { key: KEY });
    expect(second.json.items).toHaveLength(2);
    expect(second.json.next_cursor).toBeNull();
    const v3 = await call(emu.url, 'GET', `${SESSION}/${s.session_id}/tools`, { key: KEY });
    expect(Object.keys(v3.json)).toEqual(['items']);
    const over = await call(emu.url, 'GET', `${S31}/${s.session_id}/tools?limit=501`, { key: KEY });
    expect(over.status).toBe(400);
  });
});

describe('PATCH (api facts §7)', () => {
  it('only supplied keys change; null removes an override; maps replace wholesale; the version bumps', async () => {
    const s = await create({
      user_id: 'p1',
      toolkits: { enable: ['github', 'gmail'] },
      tools: { github: { disable: ['GITHUB_DELETE_A_REPOSITORY'] }, gmail: { tags: ['readOnlyHint'] } },
      auth_configs: { github: 'ac_1', gmail: 'ac_2' },
      manage_connections: { enable: true, callback_url: 'https://example.com/cb', enable_wait_for_connections: true },
      tags: ['readOnlyHint'],
    });
    const p = await patch(s.session_id, { toolkits: null, tools: { slack: { enable: ['SLACK_SEND_MESSAGE'] } }, manage_connections: { callback_url: null }, auth_configs: { slack: 'ac_3' } });
    expect(p.status).toBe(200);
    expect(p.json.session_id).toBe(s.session_id);
    expect(p.json.mcp.url).toBe(s.mcp.url);
    expect(p.json.config_version).toBe(2);
    expect(p.json.config.toolkits).toBeUndefined();
    expect(p.json.config.tools).toEqual({ slack: { enabled: ['SLACK_SEND_MESSAGE'] } });
    expect(p.json.config.auth_configs).toEqual({ slack: 'ac_3' });
    expect(p.json.config.manage_connections).toEqual({ enabled: true, enable_wait_for_connections: true, enable_connection_removal: true });
    expect(p.json.config.tags).toEqual({ enabled: ['readOnlyHint'] });
    const got = await call(emu.url, 'GET', `${S31}/${s.session_id}`, { key: KEY });
    expect(got.json.config).toEqual(p.json.config);
  });

  it('a stale expected_config_version is 409 and changes nothing; the current one applies', async () => {
    const s = await create({ user_id: 'p2', workbench: { enable: true } });
    const stale = await patch(s.session_id, { workbench: { enable: false }, expected_config_version: 7 });
    expect(stale.status).toBe(409);
    expect(stale.json.error).toMatchObject({ status: 409, code: 10409 });
    const same = await call(emu.url, 'GET', `${S31}/${s.session_id}`, { key: KEY });
    expect(same.json.config_version).toBe(1);
    expect(same.json.config.workbench.enable).toBe(true);
    const ok = await patch(s.session_id, { workbench: { enable: false }, expected_config_version: 1 });
    expect(ok.status).toBe(200);
    expect(ok.json.config.workbench).toMatchObject({ enable: false, proxy_execution_enabled: true });
    expect(ok.json.tool_router_tools).not.toContain('COMPOSIO_REMOTE_WORKBENCH');
  });

  it.each([
    ['user_id', { user_id: 'other' }],
    ['custom tools', { experimental: { custom_tools: [] } }],
    ['an unknown key', { toolkit: { enable: ['gmail'] } }],
    ['an unknown toolkit', { toolkits: { enable: ['not-a-toolkit'] } }],
  ])('%s in the body is a 400 and changes nothing', async (_name, body) => {
    const s = await create({ user_id: 'p3' });
    const r = await patch(s.session_id, body);
    expect(r.status).toBe(400);
    const got = await call(emu.url, 'GET', `${S31}/${s.session_id}`, { key: KEY });
    expect(got.json.config_version).toBe(1);
  });

  it('PATCH works on v3 too, in v3 shapes', async () => {
    const s = await create({ user_id: 'p4' }, SESSION);
    const r = await patch(s.session_id, { connected_accounts: { github: 'ca_9' }, expected_config_version: 1 }, SESSION);
    expect(r.status).toBe(200);
    expect(r.json.config.connected_accounts).toEqual({ github: 'ca_9' });
    expect(r.json.config.search).toBeUndefined();
  });

  it('another key cannot patch or delete the session (404)', async () => {
    const s = await create({ user_id: 'p5' });
    const r = await call(emu.url, 'PATCH', `${S31}/${s.session_id}`, { key: 'v31-other-key-987', body: { tags: null } });
    expect(r.status).toBe(404);
    const d = await call(emu.url, 'DELETE', `${S31}/${s.session_id}`, { key: 'v31-other-key-987' });
    expect(d.status).toBe(404);
  });
});

describe('config_history, DELETE, attach', () => {
  it('keeps every version, newest first, the current one marked', async () => {
    const s = await create({ user_id: 'h1', tags: ['readOnlyHint'] });
    await patch(s.session_id, { tags: ['destructiveHint'] });
    await patch(s.session_id, { tags: null });
    const h = await call(emu.url, 'GET', `${S31}/${s.session_id}/config_history`, { key: KEY });
    expect(h.status).toBe(200);
    expect(h.json.items.map((i: any) => [i.version, i.is_current, i.config.tags])).toEqual([
      [3, true, undefined],
      [2, false, { enabled: ['destructiveHint'] }],
      [1, false, { enabled: ['readOnlyHint'] }],
    ]);
    expect(h.json).toMatchObject({ total_items: 3, total_pages: 1, current_page: 1, next_cursor: null });
    const paged = await call(emu.url, 'GET', `${S31}/${s.session_id}/config_history?limit=2`, { key: KEY });
    expect(paged.json.items.map((i: any) => i.version)).toEqual([3, 2]);
    const rest = await call(emu.url, 'GET', `${S31}/${s.session_id}/config_history?cursor=${paged.json.next_cursor}`, { key: KEY });
    expect(rest.json.items.map((i: any) => i.version)).toEqual([1]);
  });

  it('DELETE answers {session_id, deleted: true}; the session is then 404 on both versions', async () => {
    const s = await create({ user_id: 'd1' });
    const d = await call(emu.url, 'DELETE', `${S31}/${s.session_id}`, { key: KEY });
    expect(d.status).toBe(200);
    expect(d.json).toEqual({ session_id: s.session_id, deleted: true });
    expect((await call(emu.url, 'GET', `${S31}/${s.session_id}`, { key: KEY })).status).toBe(404);
    expect((await call(emu.url, 'GET', `${SESSION}/${s.session_id}`, { key: KEY })).status).toBe(404);
    expect((await call(emu.url, 'DELETE', `${S31}/${s.session_id}`, { key: KEY })).status).toBe(404);
  });

  it('attach answers the session with the custom tools re-supplied', async () => {
    const s = await create({ user_id: 'a1' });
    const tool = { slug: 'lookup', name: 'Lookup', description: 'Looks up', input_schema: { type: 'object', properties: { q: { type: 'string' } } } };
    const a = await call(emu.url, 'POST', `${S31}/${s.session_id}/attach`, { key: KEY, body: { experimental: { custom_tools: [tool] } } });
    expect(a.status).toBe(200);
    expect(a.json.session_id).toBe(s.session_id);
    expect(a.json.experimental.custom_tools[0]).toMatchObject({ slug: 'LOCAL_LOOKUP', original_slug: 'lookup' });
  });
});

describe('the connected-account read of the link flow', () => {
  it('is INITIATED after link and ACTIVE once the link was visited', async () => {
    const s = await create({ user_id: 'c1' });
    const link = await call(emu.url, 'POST', `${S31}/${s.session_id}/link`, { key: KEY, body: { toolkit: 'github' } });
    expect(link.status).toBe(201);
    expect(link.json.experimental).toEqual({ account_type: 'PRIVATE' });
    const path = `/api/v3.1/connected_accounts/${link.json.connected_account_id}`;
    const before = await call(emu.url, 'GET', path, { key: KEY });
    expect(before.json).toMatchObject({ id: link.json.connected_account_id, status: 'INITIATED', toolkit: { slug: 'github' }, user_id: 'c1' });
    await call(emu.url, 'GET', new URL(link.json.redirect_url).pathname);
    const after = await call(emu.url, 'GET', path, { key: KEY });
    expect(after.json.status).toBe('ACTIVE');
    expect((await call(emu.url, 'GET', path, { key: 'v31-other-key-987' })).status).toBe(404);
    expect((await call(emu.url, 'GET', '/api/v3.1/connected_accounts/ca_missing', { key: KEY })).status).toBe(404);
  });
});

describe('the key is checked before routing', () => {
  it.each([
    ['an unknown path', 'GET', '/api/v9/nothing'],
    ['a v3.1 route', 'GET', `${S31}/trs_abc`],
    ['a method the path lacks', 'PUT', `${SESSION}/trs_abc`],
  ])('a wrong key on %s is 401', async (_name, method, path) => {
    const r = await call(emu.url, method, path, { key: 'not-a-key-0000' });
    expect(r.status).toBe(401);
    expect(r.json.error.slug).toBe('HTTP_Unauthorized');
  });

  it('with the key, an unknown path is 404 and a wrong method 405', async () => {
    expect((await call(emu.url, 'GET', '/api/v9/nothing', { key: KEY })).status).toBe(404);
    expect((await call(emu.url, 'PUT', `${SESSION}/trs_abc`, { key: KEY })).status).toBe(405);
  });
});

describe('the admin surface PATCHes a session out of band', () => {
  it('as another writer: the version moves, and a client holding the old one gets 409', async () => {
    const s = await create({ user_id: 'o1' });
    const admin = await call(emu.url, 'PATCH', `/_emulator/sessions/${s.session_id}?version=3.1`, { key: KEY, body: { search: { enable: false }, expected_config_version: 1 } });
    expect(admin.status, admin.text).toBe(200);
    expect(admin.json).toMatchObject({ config_version: 2, config: { search: { enable: false } } });
    expect(admin.json.tool_router_tools).not.toContain('COMPOSIO_SEARCH_TOOLS');
    const stale = await patch(s.session_id, { tags: ['readOnlyHint'], expected_config_version: 1 });
    expect(stale.status).toBe(409);
    const bad = await call(emu.url, 'PATCH', `/_emulator/sessions/${s.session_id}`, { key: KEY, body: { user_id: 'x' } });
    expect(bad.status).toBe(400);
  });
});
