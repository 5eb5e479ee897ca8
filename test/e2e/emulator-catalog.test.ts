import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtInCatalog, startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { seedAccounts } from '../conformance/seed-accounts.js';
import { call, createSession, SESSION } from '../conformance/emulator-http.js';

const KEY = 'catalog-key-123456';
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  await seedAccounts(emu.url, KEY, [
    { id: 'ca_gh1', user_id: 'u', toolkit: 'github' },
    { id: 'ca_pinned', user_id: 'pinner', toolkit: 'gmail' },
  ]);
});
afterAll(() => emu.close());

describe('the built-in catalogue', () => {
  it('holds the service’s 530 toolkits, the 885 real tools and tools of its own', async () => {
    const c = await builtInCatalog();
    expect(c.toolkits).toHaveLength(530);
    expect(c.tools.filter((t) => ['github', 'googledrive', 'google_analytics', 'google_maps'].includes(t.toolkit))).toHaveLength(885);
    const withTools = c.toolkitsWithTools();
    expect(withTools.length).toBeGreaterThanOrEqual(12);
    for (const tk of withTools) expect(c.toolkit(tk), tk).toBeDefined();
    expect(withTools.filter((tk) => c.toolkit(tk)?.no_auth === true)).toEqual(['hackernews', 'text_to_pdf', 'weathermap']);
    expect(withTools).toEqual(expect.arrayContaining(['gmail', 'slack', 'notion', 'linear', 'github']));
  });
});

describe('toolkits', () => {
  it('pages over every toolkit with an opaque cursor', async () => {
    const id = await createSession(emu.url, KEY);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: any = await call(emu.url, 'GET', `${SESSION}/${id}/toolkits?limit=50${cursor === null ? '' : `&cursor=${cursor}`}`, { key: KEY });
      expect(r.status).toBe(200);
      pages += 1;
      expect(r.json.current_page).toBe(pages);
      expect(r.json.total_pages).toBe(11);
      expect(r.json.total_items).toBe(530);
      seen.push(...r.json.items.map((t: { slug: string }) => t.slug));
      cursor = r.json.next_cursor;
    } while (cursor !== null);
    expect(seen).toHaveLength(530);
    expect(new Set(seen).size).toBe(530);
    expect([...seen].sort()).toEqual(seen);
  });

  it('a denylist removes toolkits; `toolkits=` overrides and marks enabled; search filters', async () => {
    const id = await createSession(emu.url, KEY, { user_id: 'u', toolkits: { disable: ['gmail'] } });
    const all = await call(emu.url, 'GET', `${SESSION}/${id}/toolkits?limit=1`, { key: KEY });
    expect(all.json.total_items).toBe(529);
    const named = await call(emu.url, 'GET', `${SESSION}/${id}/toolkits?toolkits=slack,gmail`, { key: KEY });
    expect(named.json.items.map((t: any) => [t.slug, t.enabled])).toEqual([
      ['gmail', false],
      ['slack', true],
    ]);
    const searched = await call(emu.url, 'GET', `${SESSION}/${id}/toolkits?search=GoogleD`, { key: KEY });
    expect(searched.json.items.map((t: any) => t.slug)).toEqual(['googledocs', 'googledrive']);
  });

  it('an invalid cursor is 400', async () => {
    const id = await createSession(emu.url, KEY);
    const r = await call(emu.url, 'GET', `${SESSION}/${id}/toolkits?cursor=garbage`, { key: KEY });
    expect(r.status).toBe(400);
  });
});

describe('link flow', () => {
  it('a visit to redirect_url completes the connection; toolkits then show it connected', async () => {
    const id = await createSession(emu.url, KEY, { user_id: 'linker', toolkits: { enable: ['github', 'slack'] } });
    const link = await call(emu.url, 'POST', `${SESSION}/${id}/link`, { key: KEY, body: { toolkit: 'github' } });
    expect(link.status).toBe(201);
    expect(link.json.link_token).toMatch(/^lt_/);
    expect(link.json.connected_account_id).toMatch(/^ca_/);
    expect(link.json.redirect_url).toBe(`${emu.url}/_emulator/link/${link.json.link_token}`);
    const pending = await call(emu.url, 'GET', `${SESSION}/${id}/toolkits`, { key: KEY });
    expect(pending.json.items.find((t: any) => t.slug === 'github').connected_account).toMatchObject({ status: 'INITIATED', user_id: 'linker' });

    const visit = await call(emu.url, 'GET', new URL(link.json.redirect_url).pathname);
    expect(visit.status).toBe(200);
    expect(visit.json).toEqual({ status: 'ACTIVE', connected_account_id: link.json.connected_account_id, toolkit: 'github' });

    const connected = await call(emu.url, 'GET', `${SESSION}/${id}/toolkits?is_connected=true`, { key: KEY });
    expect(connected.json.items).toHaveLength(1);
    expect(connected.json.items[0]).toMatchObject({
      slug: 'github',
      connected_account: { id: link.json.connected_account_id, status: 'ACTIVE', auth_config: { is_composio_managed: true, auth_scheme: 'OAUTH2' } },
    });
    // A second session of the same user sees the same connection.
    const id2 = await createSession(emu.url, KEY, { user_id: 'linker' });
    const other = await call(emu.url, 'GET', `${SESSION}/${id2}/toolkits?is_connected=true`, { key: KEY });
    expect(other.json.items.map((t: any) => t.slug)).toEqual(['github']);
  });

  it.each([
    ['unknown toolkit', {}, 'nope', 'ToolRouterV2_InvalidToolkitSlugs'],
    ['no-auth toolkit', {}, 'hackernews', 'ToolRouterV2_ToolkitsIsNoAuth'],
    ['no managed auth and no auth config', {}, 'jira', 'ToolRouterV2_NoManagedAuth'],
    ['an account already pinned', { user_id: 'pinner', connected_accounts: { gmail: 'ca_pinned' } }, 'gmail', 'ToolRouterV2_BadRequest'],
  ])('refuses: %s', async (_name, extra, toolkit, slug) => {
    const id = await createSession(emu.url, KEY, { user_id: 'u', ...extra });
    const r = await call(emu.url, 'POST', `${SESSION}/${id}/link`, { key: KEY, body: { toolkit } });
    expect(r.status).toBe(400);
    expect(r.json.error.slug).toBe(slug);
  });

  it('with an auth config, a toolkit without managed auth can be linked', async () => {
    const id = await createSession(emu.url, KEY, { user_id: 'u', auth_configs: { jira: 'ac_jira1' } });
    const r = await call(emu.url, 'POST', `${SESSION}/${id}/link`, { key: KEY, body: { toolkit: 'jira', callback_url: 'https://example.com/cb?x=1' } });
    expect(r.status).toBe(201);
    const visit = await call(emu.url, 'GET', new URL(r.json.redirect_url).pathname);
    expect(visit.status).toBe(302);
    expect(visit.headers['location']).toBe(`https://example.com/cb?x=1&status=success&connected_account_id=${r.json.connected_account_id}`);
  });

  it('the admin API can seed a connection without a link flow', async () => {
    const id = await createSession(emu.url, KEY, { user_id: 'seeded' });
    const seeded = await call(emu.url, 'POST', `/_emulator/sessions/${id}/connections`, { body: { toolkit: 'slack' } });
    expect(seeded.status).toBe(201);
    expect(seeded.json).toMatchObject({ toolkit: 'slack', user_id: 'seeded', status: 'ACTIVE', connected_account_id: expect.stringMatching(/^ca_/) });
    const run = await call(emu.url, 'POST', `${SESSION}/${id}/execute`, { key: KEY, body: { tool_slug: 'SLACK_LIST_ALL_CHANNELS' } });
    expect(run.json.error).toBeNull();
    expect(run.json.data.connected_account_id).toBe(seeded.json.connected_account_id);
    const bad = await call(emu.url, 'POST', `/_emulator/sessions/${id}/connections`, { body: { toolkit: 'nope' } });
    expect(bad.status).toBe(400);
    const list = await call(emu.url, 'GET', '/_emulator/sessions');
    expect(list.json.sessions.find((x: any) => x.session_id === id)).toMatchObject({ user_id: 'seeded', config_version: 1 });
  });

  it('an unknown link token is 404', async () => {
    expect((await call(emu.url, 'GET', '/_emulator/link/lt_nope')).status).toBe(404);
  });
});

describe('tools, search, execute, execute_meta, proxy', () => {
  it('tools lists the meta tools with schemas', async () => {
    const id = await createSession(emu.url, KEY, { user_id: 'u', workbench: { enable: false }, preload: { tools: ['HACKERNEWS_GET_FRONTPAGE'] } });
    const r = await call(emu.url, 'GET', `${SESSION}/${id}/tools`, { key: KEY });
    expect(r.json.items.map((t: any) => t.slug)).toEqual([
      'COMPOSIO_GET_TOOL_SCHEMAS',
      'COMPOSIO_MANAGE_CONNECTIONS',
      'COMPOSIO_MULTI_EXECUTE_TOOL',
      'COMPOSIO_SEARCH_TOOLS',
      'HACKERNEWS_GET_FRONTPAGE',
    ]);
    const search = r.json.items.find((t: any) => t.slug === 'COMPOSIO_SEARCH_TOOLS');
    expect(search.input_parameters.required).toEqual(['queries']);
    expect(search.toolkit.slug).toBe('composio');
  });

  it('search ranks the session’s tools by keywords and respects its filters', async () => {
    const id = await createSession(emu.url, KEY, { user_id: 'u', toolkits: { enable: ['slack', 'gmail'] }, tags: { disable: ['destructiveHint'] } });
    const r = await call(emu.url, 'POST', `${SESSION}/${id}/search`, { key: KEY, body: { queries: [{ use_case: 'send a slack message' }, { use_case: 'delete a message' }] } });
    expect(r.status).toBe(200);
    expect(r.json.results[0]).toMatchObject({ index: 1, primary_tool_slugs: ['SLACK_SEND_MESSAGE'], toolkits: expect.arrayContaining(['slack']) });
    // Deletions are filtered out by the session's tag denylist.
    expect(r.json.results[1].primary_tool_slugs).not.toContain('SLACK_DELETE_A_MESSAGE');
    expect(r.json.results[1].primary_tool_slugs).not.toContain('GMAIL_DELETE_MESSAGE');
    expect(r.json.tool_schemas['SLACK_SEND_MESSAGE'].input_schema.required).toEqual(['channel', 'text']);
    expect(r.json.toolkit_connection_statuses.find((s: any) => s.toolkit === 'slack').has_active_connection).toBe(false);
    expect(r.json.session.id).toBe(id);
  });

  it('execute: deterministic results; tool-level failures are 200 with error; unknown slugs 400', async () => {
    const id = await createSession(emu.url, KEY, { user_id: 'u', tools: { hackernews: { disable: ['HACKERNEWS_GET_FRONTPAGE'] } } });
    const run = (tool_slug: string, args: Record<string, unknown>) => call(emu.url, 'POST', `${SESSION}/${id}/execute`, { key: KEY, body: { tool_slug, arguments: args } });
    const a = await run('HACKERNEWS_SEARCH_POSTS', { query: 'node' });
    const b = await run('HACKERNEWS_SEARCH_POSTS', { query: 'node' });
    expect(a.status).toBe(200);
    expect(a.json.error).toBeNull();
    expect(a.json.data).toEqual(b.json.data);
    expect(a.json.log_id).not.toBe(b.json.log_id);
    expect((await run('HACKERNEWS_SEARCH_POSTS', { query: 'deno' })).json.data.result.id).not.toBe(a.json.data.result.id);

    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['HACKERNEWS_GET_FRONTPAGE', {}, "Tool 'HACKERNEWS_GET_FRONTPAGE' is not enabled in this session"],
      ['HACKERNEWS_GET_ITEM_WITH_ID', { id: 'x' }, "Parameter 'id' must be of type integer"],
      ['HACKERNEWS_SEARCH_POSTS', {}, 'Missing required parameter(s): query'],
      ['GMAIL_FETCH_EMAILS', {}, "No active connection for toolkit 'gmail'. Connect it first (POST /link, or COMPOSIO_MANAGE_CONNECTIONS)."],
    ];
    for (const [slug, args, error] of cases) {
      const r = await run(slug, args);
      expect(r.status, slug).toBe(200);
      expect(r.json).toMatchObject({ data: {}, error });
    }
    const unknown = await run('NOPE_TOOL', {});
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.slug).toBe('ToolRouterV2_BadRequest');
  });

  it('execute_meta: search, schemas, multi-execute, manage connections; disabled meta tools fail at tool level', async () => {
    const id = await createSession(emu.url, KEY, { user_id: 'meta-user', workbench: { enable: false } });
    const meta = (slug: string, args: Record<string, unknown>) => call(emu.url, 'POST', `${SESSION}/${id}/execute_meta`, { key: KEY, body: { slug, arguments: args } });
    const schemas = await meta('COMPOSIO_GET_TOOL_SCHEMAS', { tool_slugs: ['GMAIL_SEND_EMAIL', 'NOPE'] });
    expect(Object.keys(schemas.json.data.tool_schemas)).toEqual(['GMAIL_SEND_EMAIL']);
    expect(schemas.json.data.not_found).toEqual(['NOPE']);
    const multi = await meta('COMPOSIO_MULTI_EXECUTE_TOOL', { tools: [{ tool_slug: 'WEATHERMAP_WEATHER', arguments: { location: 'Paris' } }, { tool_slug: 'WEATHERMAP_WEATHER' }] });
    expect(multi.json.error).toBe('1 out of 2 tools failed');
    expect(multi.json.data.results.map((r: any) => r.error)).toEqual([null, 'Missing required parameter(s): location']);
    const manage = await meta('COMPOSIO_MANAGE_CONNECTIONS', { toolkits: ['gmail', 'hackernews'] });
    expect(manage.json.data.results.hackernews).toEqual({ status: 'NO_AUTH_REQUIRED' });
    expect(manage.json.data.results.gmail.status).toBe('INITIATED');
    await call(emu.url, 'GET', new URL(manage.json.data.results.gmail.redirect_url).pathname);
    const fetched = await call(emu.url, 'POST', `${SESSION}/${id}/execute`, { key: KEY, body: { tool_slug: 'GMAIL_FETCH_EMAILS' } });
    expect(fetched.json.error).toBeNull();
    const wb = await meta('COMPOSIO_REMOTE_WORKBENCH', { code_to_execute: 'print(1)' });
    expect(wb.status).toBe(200);
    expect(wb.json.error).toBe("Meta tool 'COMPOSIO_REMOTE_WORKBENCH' is not enabled in this session");
  });

  it('proxy_execute echoes the upstream request; needs an active connection for auth toolkits', async () => {
    const id = await createSession(emu.url, KEY, { user_id: 'u', connected_accounts: { github: 'ca_gh1' } });
    const r = await call(emu.url, 'POST', `${SESSION}/${id}/proxy_execute`, {
      key: KEY,
      body: {
        toolkit_slug: 'github',
        endpoint: '/repos/o/r/issues',
        method: 'POST',
        body: { title: 't' },
        parameters: [
          { name: 'X-Trace', value: '1', type: 'header' },
          { name: 'page', value: '2', type: 'query' },
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      status: 200,
      data: { echo: { method: 'POST', url: 'https://github.api.emulator.invalid/repos/o/r/issues?page=2', headers: { 'x-trace': '1' }, query: { page: '2' }, body: { title: 't' } } },
      headers: { 'content-type': 'application/json', 'x-emulator-proxy': 'echo' },
    });
    const noConn = await call(emu.url, 'POST', `${SESSION}/${id}/proxy_execute`, { key: KEY, body: { toolkit_slug: 'slack', endpoint: '/x', method: 'GET' } });
    expect(noConn.status).toBe(400);
    expect(noConn.json.error.slug).toBe('ToolRouterV2_NoActiveConnection');
  });
});
