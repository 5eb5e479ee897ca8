/**
 * Conformance with today's official client, unmodified: `@composio/client@2.0.0-rc.6` (installed as
 * the alias `@composio/client-v2`) drives all 17 v3.1 Tool Router operations and the
 * connected-account read against `sessionctl emulator` in a child process. Every response body is
 * validated against the client's own shipped types, as `contract/tool-router-v3.1.openapi.json`
 * carries them (derived from its `.d.mts`, see contract/README.md), with ajv.
 */
import { readFileSync } from 'node:fs';
import Composio, { AuthenticationError, BadRequestError, ConflictError, NotFoundError } from '@composio/client-v2';
import { Ajv, type ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationsOf } from '../../scripts/generate/openapi-to-json-schema.js';
import { repo, spawnEmulator, type SpawnedEmulator } from './cli-bundle.js';
import { seedAccounts } from './seed-accounts.js';

const KEY = 'conformance-v31-key-0123456789';
const ops = operationsOf(JSON.parse(readFileSync(`${repo}contract/tool-router-v3.1.openapi.json`, 'utf8')));
const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<string, ValidateFunction>();

/** Asserts `body` matches the client's type for the success (or error) answer of `operationId`. */
export function expectConforms(operationId: string, body: unknown, part: 'response' | 'error' = 'response'): void {
  const key = `${operationId}:${part}`;
  let v = validators.get(key);
  if (v === undefined) {
    const op = ops[operationId];
    if (op === undefined) throw new Error(`no operation ${operationId}`);
    v = ajv.compile(op[part]);
    validators.set(key, v);
  }
  expect(v(body) ? [] : v.errors, `${operationId} ${part} must match the client's types`).toEqual([]);
}

let emu: SpawnedEmulator;
let client: Composio;

beforeAll(async () => {
  emu = await spawnEmulator(['--port', '0', '--api-key', KEY]);
  await seedAccounts(emu.url, KEY, [{ id: 'ca_gm1', user_id: 'conformance-user', toolkit: 'gmail' }]);
  client = new Composio({ apiKey: KEY, baseURL: emu.url, maxRetries: 0 });
}, 30_000);
afterAll(async () => {
  await emu?.stop();
});

const customTool = { slug: 'lookup', name: 'Lookup', description: 'Finds a record', input_schema: { type: 'object', properties: { q: { type: 'string' } } } };

describe('@composio/client 2.0.0-rc.6 (v3.1) against sessionctl emulator', () => {
  let id: string;

  it.each([
    ['allowlist, tool allowlist, tag array, auth config, account list', { toolkits: { enable: ['github', 'gmail'] }, tools: { github: { enable: ['GITHUB_GET_A_REPOSITORY'] } }, tags: ['readOnlyHint'], auth_configs: { github: 'ac_gh1' }, connected_accounts: { gmail: ['ca_gm1'] } }],
    ['denylist, tool denylist, tag object, tool tags', { toolkits: { disable: ['slack'] }, tools: { github: { disable: ['GITHUB_DELETE_A_REPOSITORY'] }, gmail: { tags: { enable: ['readOnlyHint'], disable: ['destructiveHint'] } } }, tags: { enable: ['readOnlyHint'], disable: ['destructiveHint'] } }],
    ['manage connections, workbench with sandbox size, multi account', { manage_connections: { enable: true, callback_url: 'https://example.com/cb', enable_wait_for_connections: true, enable_connection_removal: false }, workbench: { enable: true, enable_proxy_execution: false, auto_offload_threshold: 5000, sandbox_size: 'large' }, multi_account: { enable: true, max_accounts_per_toolkit: 3 } }],
    ['preload list, search and execute off', { preload: { tools: ['GITHUB_GET_A_REPOSITORY'] }, search: { enable: false }, execute: { enable_multi_execute: false } }],
    ['preload "all"', { toolkits: { enable: ['hackernews'] }, preload: { tools: 'all' } }],
    ['custom tools and toolkits, permissions, link_url_overwrite, assistive prompt', { experimental: { custom_tools: [{ ...customTool, extends_toolkit: 'github', preload: true }], custom_toolkits: [{ slug: 'crm', name: 'CRM', description: 'Our CRM', tools: [customTool] }], permissions: { default: 'ask_once_per_session', overrides: { 'GITHUB_GET_A_REPOSITORY:__none__': 'always_allow' } }, link_url_overwrite: 'https://example.com/link', assistive_prompt_config: { user_timezone: 'Europe/Paris' } } }],
  ] as const)('create with %s (201) conforms, and retrieve (200) answers the same config', async (_name, body) => {
    const { data, response } = await client.toolRouter.session.create({ user_id: 'conformance-user', ...(body as object) } as never).withResponse();
    expect(response.status).toBe(201);
    expectConforms('postToolRouterSessionV31', data);
    const got = await client.toolRouter.session.retrieve(data.session_id);
    expectConforms('getToolRouterSessionBySessionIdV31', got);
    expect(got.config).toEqual(data.config);
    id ??= data.session_id;
  });

  it('update (PATCH) with and without expected_config_version conforms; a stale version is a ConflictError', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'patcher', toolkits: { enable: ['github'] } });
    const a = await client.toolRouter.session.patch(s.session_id, { tags: ['readOnlyHint'] });
    expectConforms('patchToolRouterSessionBySessionIdV31', a);
    expect(a.config_version).toBe(2);
    const b = await client.toolRouter.session.patch(s.session_id, { search: { enable: false }, expected_config_version: 2 } as never);
    expectConforms('patchToolRouterSessionBySessionIdV31', b);
    expect(b.tool_router_tools).not.toContain('COMPOSIO_SEARCH_TOOLS');
    const err = await client.toolRouter.session.patch(s.session_id, { tags: null, expected_config_version: 1 } as never).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expectConforms('patchToolRouterSessionBySessionIdV31', (err as ConflictError).error, 'error');
  });

  it('config_history (200) conforms and pages', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'history' });
    await client.toolRouter.session.patch(s.session_id, { workbench: { enable: false } });
    const h = await client.toolRouter.session.configHistory(s.session_id, { limit: 1 });
    expectConforms('getToolRouterSessionBySessionIdConfigHistoryV31', h);
    expect(h.items.map((i) => [i.version, i.is_current])).toEqual([[2, true]]);
    const rest = await client.toolRouter.session.configHistory(s.session_id, { cursor: h.next_cursor as string });
    expect(rest.items.map((i) => [i.version, i.is_current])).toEqual([[1, false]]);
  });

  it('attach (200) conforms and echoes the custom tools', async () => {
    const a = await client.toolRouter.session.attach(id, { experimental: { custom_tools: [customTool] } });
    expectConforms('postToolRouterSessionBySessionIdAttachV31', a);
    expect(a.experimental?.custom_tools?.[0]?.slug).toBe('LOCAL_LOOKUP');
  });

  it('tools (200) conforms and pages', async () => {
    const first = await client.toolRouter.session.tools(id, { limit: 2 });
    expectConforms('getToolRouterSessionBySessionIdToolsV31', first);
    expect(first.items).toHaveLength(2);
    const second = await client.toolRouter.session.tools(id, { cursor: first.next_cursor as string });
    expectConforms('getToolRouterSessionBySessionIdToolsV31', second);
    expect(second.current_page).toBe(2);
  });

  it('toolkits (200), search (200), execute of an app tool and a meta tool, execute_meta (200) conform', async () => {
    expectConforms('getToolRouterSessionBySessionIdToolkitsV31', await client.toolRouter.session.toolkits(id, { limit: 2 }));
    const found = await client.toolRouter.session.search(id, { queries: [{ use_case: 'get a github repository' }] });
    expectConforms('postToolRouterSessionBySessionIdSearchV31', found);
    const app = await client.toolRouter.session.execute(id, { tool_slug: 'GITHUB_GET_A_REPOSITORY', arguments: { owner: 'o', repo: 'r' } });
    expectConforms('postToolRouterSessionBySessionIdExecuteV31', app);
    const meta = await client.toolRouter.session.execute(id, { tool_slug: 'COMPOSIO_SEARCH_TOOLS', arguments: { queries: [{ use_case: 'send email' }] } });
    expectConforms('postToolRouterSessionBySessionIdExecuteV31', meta);
    expect(meta.error).toBeNull();
    const multi = await client.toolRouter.session.executeMeta(id, { slug: 'COMPOSIO_MULTI_EXECUTE_TOOL', arguments: { tools: [{ tool_slug: 'HACKERNEWS_GET_FRONTPAGE', arguments: {} }] } });
    expectConforms('postToolRouterSessionBySessionIdExecuteMetaV31', multi);
  });

  it('link (201) and the connected-account read (200) conform; proxy_execute (200) once connected', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'linker', toolkits: { enable: ['github'] } });
    const link = await client.toolRouter.session.link(s.session_id, { toolkit: 'github', experimental: { account_type: 'SHARED', acl_config_for_shared: { allow_all_users: true } } });
    expectConforms('postToolRouterSessionBySessionIdLinkV31', link);
    expect(link.experimental?.account_type).toBe('SHARED');
    const before = await client.connectedAccounts.retrieve(link.connected_account_id);
    expectConforms('getConnectedAccountsByNanoidV31', before);
    expect(before.status).toBe('INITIATED');
    await fetch(link.redirect_url, { redirect: 'manual' });
    const after = await client.connectedAccounts.retrieve(link.connected_account_id);
    expectConforms('getConnectedAccountsByNanoidV31', after);
    expect(after.status).toBe('ACTIVE');
    const proxied = await client.toolRouter.session.proxyExecute(s.session_id, { toolkit_slug: 'github', endpoint: '/user', method: 'GET' });
    expectConforms('postToolRouterSessionBySessionIdProxyExecuteV31', proxied);
    expect(proxied.status).toBe(200);
  });

  it('files: upload_url (201), list (200), download_url (201), delete (200) conform', async () => {
    const up = await client.toolRouter.session.files.createUploadURL('files', { session_id: id, mount_relative_path: 'out/report.csv', mimetype: 'text/csv' });
    expectConforms('postToolRouterSessionBySessionIdMountsByMountIdUploadUrlV31', up);
    expect((await fetch(up.upload_url, { method: 'PUT', body: 'a,b\n' })).status).toBe(200);
    const list = await client.toolRouter.session.files.list('files', { session_id: id });
    expectConforms('getToolRouterSessionBySessionIdMountsByMountIdItemsV31', list);
    const down = await client.toolRouter.session.files.createDownloadURL('files', { session_id: id, mount_relative_path: 'out/report.csv' });
    expectConforms('postToolRouterSessionBySessionIdMountsByMountIdDownloadUrlV31', down);
    expect(await (await fetch(down.download_url)).text()).toBe('a,b\n');
    const del = await client.toolRouter.session.files.delete('files', { session_id: id, mount_relative_path: 'out/report.csv' });
    expectConforms('postToolRouterSessionBySessionIdMountsByMountIdDeleteV31', del);
  });

  it('delete (200) conforms; the session is then a NotFoundError', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'deleter' });
    const d = await client.toolRouter.session.delete(s.session_id);
    expectConforms('deleteToolRouterSessionBySessionIdV31', d);
    expect(d).toEqual({ session_id: s.session_id, deleted: true });
    const err = await client.toolRouter.session.retrieve(s.session_id).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
  });

  it('errors arrive as the client’s typed errors with the envelope', async () => {
    const bad = await client.toolRouter.session.create({ user_id: 'u', toolkits: { enabled: ['gmail'] } } as never).then(() => undefined, (e: unknown) => e);
    expect(bad).toBeInstanceOf(BadRequestError);
    expectConforms('postToolRouterSessionV31', (bad as BadRequestError).error, 'error');
    const stranger = new Composio({ apiKey: 'not-the-key-000', baseURL: emu.url, maxRetries: 0 });
    const unauth = await stranger.toolRouter.session.retrieve(id).then(() => undefined, (e: unknown) => e);
    expect(unauth).toBeInstanceOf(AuthenticationError);
  });

  it('the schemas the bodies are checked against do refuse what the client\'s types refuse', () => {
    const v = ajv.compile(ops['getToolRouterSessionBySessionIdV31']?.response ?? {});
    expect(v({ session_id: 'trs_x', mcp: { type: 'http', url: 'http://x' }, tool_router_tools: [], config: { user_id: 'u' } })).toBe(false);
    expect(v.errors?.map((e) => e.params)).toContainEqual({ missingProperty: 'config_version' });
  });

  it('no log line of the emulator carries the key', () => {
    expect(emu.stderr()).not.toContain(KEY);
  });
});
