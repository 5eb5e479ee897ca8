/**
 * Conformance with the official SDK an application uses, unmodified: `@composio/core@0.19.0` (which
 * calls `/api/v3.1` through its own `@composio/client@0.1.0-alpha.76`) against `sessionctl
 * emulator` in a child process. No path rewriting, no patching: the SDK is given the emulator's URL
 * as its `baseURL`, as an application's tests would. The SDK parses every answer with its own zod
 * schemas, so a call that resolves has an answer the SDK accepts; the results are also checked
 * against the schemas the SDK exports.
 *
 * Where the SDK itself refuses to work with a local emulator, the test says so: its SSRF guard
 * refuses presigned file URLs on loopback (`ComposioBlockedInternalUrlError`, no opt-out), so
 * `files.upload` / `download` cannot work through core here; the same operations are covered
 * through `@composio/client` (composio-client-v31.test.ts, files).
 */
import { Composio, SessionPreset, ToolRouterSessionExecuteResponseSchema, ToolRouterSessionSearchResponseSchema, experimental_createTool } from '@composio/core';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnEmulator, type SpawnedEmulator } from './cli-bundle.js';
import { seedAccounts } from './seed-accounts.js';

const KEY = 'conformance-core-key-0123456789';
let emu: SpawnedEmulator;
let composio: Composio;

beforeAll(async () => {
  emu = await spawnEmulator(['--port', '0', '--api-key', KEY]);
  await seedAccounts(emu.url, KEY, [
    { id: 'ca_gm1', user_id: 'core-user', toolkit: 'gmail' },
    { id: 'ca_gh1', user_id: 'core-user', toolkit: 'github' },
  ]);
  // No telemetry and no version check: the tests reach loopback only.
  composio = new Composio({ apiKey: KEY, baseURL: emu.url, allowTracking: false, disableVersionCheck: true });
}, 30_000);
afterAll(async () => {
  await emu?.stop();
});

/** One of the zod schemas the SDK exports (its own zod instance, so typed by shape). */
interface SdkSchema {
  safeParse(value: unknown): { success: boolean; error?: { issues: unknown[] } };
}

function conforms(schema: SdkSchema, value: unknown): void {
  const parsed = schema.safeParse(value);
  expect(parsed.success ? [] : parsed.error?.issues, 'the SDK\'s own schema must accept the result').toEqual([]);
}

const lookup = experimental_createTool('LOOKUP', {
  name: 'Lookup',
  description: 'Finds a record',
  inputParams: z.object({ q: z.string() }),
  execute: async (input: { q: string }) => ({ data: { found: input.q }, error: null, successful: true }),
});

describe('@composio/core 0.19.0 (v3.1) against sessionctl emulator', () => {
  it.each([
    ['toolkit allowlist (bare list), tools as a list, tags as a list', { toolkits: ['github', 'gmail'], tools: { github: ['GITHUB_GET_A_REPOSITORY'] }, tags: ['readOnlyHint'] }],
    ['toolkit denylist, tools enable/disable/tags objects, tags object', { toolkits: { disable: ['slack'] }, tools: { github: { disable: ['GITHUB_DELETE_A_REPOSITORY'] }, gmail: { tags: ['readOnlyHint'] }, hackernews: { enable: ['HACKERNEWS_GET_FRONTPAGE'] } }, tags: { enable: ['readOnlyHint'], disable: ['destructiveHint'] } }],
    ['auth configs, connected accounts (one id and a list), manage connections', { authConfigs: { github: 'ac_gh1' }, connectedAccounts: { gmail: 'ca_gm1', github: ['ca_gh1'] }, manageConnections: { enable: true, callbackUrl: 'https://example.com/cb', waitForConnections: true } }],
    ['workbench with sandbox size, multi account', { workbench: { enable: true, enableProxyExecution: false, autoOffloadThreshold: 5000, sandboxSize: 'medium' }, multiAccount: { enable: true, maxAccountsPerToolkit: 3 } }],
    ['preload list', { preload: { tools: ['GITHUB_GET_A_REPOSITORY'] } }],
    ['preload "all" through the direct-tools preset (search and multi-execute off)', { toolkits: ['hackernews'], sessionPreset: SessionPreset.DIRECT_TOOLS }],
    ['custom tools, assistive prompt', { experimental: { customTools: [lookup], assistivePrompt: { userTimezone: 'Europe/Paris' } } }],
  ] as const)('create with %s', async (_name, config) => {
    const session = await composio.create('core-user', config as never);
    expect(session.sessionId).toMatch(/^trs_/);
    expect(session.mcp.url).toBe(`${emu.url}/tool_router/v3/${session.sessionId}/mcp`);
  });

  it('the direct-tools preset turns search and multi-execute off and preloads every allowed tool', async () => {
    const session = await composio.create('core-user', { toolkits: ['hackernews'], sessionPreset: SessionPreset.DIRECT_TOOLS } as never);
    const raw = await fetch(`${emu.url}/api/v3.1/tool_router/session/${session.sessionId}`, { headers: { 'x-api-key': KEY } }).then((r) => r.json() as Promise<any>);
    expect(raw.config).toMatchObject({ search: { enable: false }, execute: { enable_multi_execute: false }, preload: { tools: 'all' } });
    expect(raw.tool_router_tools).not.toContain('COMPOSIO_SEARCH_TOOLS');
    expect(raw.tool_router_tools.some((t: string) => t.startsWith('HACKERNEWS_'))).toBe(true);
  });

  it('use (attach), tools, toolkits, search, execute (app tool, meta tool, multi-execute)', async () => {
    const created = await composio.create('core-user', { toolkits: ['github', 'hackernews'], experimental: { customTools: [lookup] } } as never);
    const session = await composio.sessions.use(created.sessionId, { customTools: [lookup] });
    expect(session.sessionId).toBe(created.sessionId);
    const tools = await session.tools();
    expect(Array.isArray(tools)).toBe(true);
    const kits = await session.toolkits();
    expect(kits.items.map((k: { slug: string }) => k.slug)).toEqual(['github', 'hackernews']);
    const found = await session.search({ query: 'get a github repository' });
    conforms(ToolRouterSessionSearchResponseSchema, found);
    const app = await session.execute('HACKERNEWS_GET_FRONTPAGE', {});
    conforms(ToolRouterSessionExecuteResponseSchema, app);
    expect(app.error).toBeNull();
    const meta = await session.execute('COMPOSIO_SEARCH_TOOLS', { queries: [{ use_case: 'front page stories' }] });
    conforms(ToolRouterSessionExecuteResponseSchema, meta);
    const multi = await session.execute('COMPOSIO_MULTI_EXECUTE_TOOL', { tools: [{ tool_slug: 'HACKERNEWS_GET_FRONTPAGE', arguments: {} }] });
    conforms(ToolRouterSessionExecuteResponseSchema, multi);
    expect(multi.error).toBeNull();
  });

  it('authorize, then waitForConnection once the link is completed; proxy execute then succeeds', async () => {
    const session = await composio.create('core-linker', { toolkits: ['github'], manageConnections: false } as never);
    const request = await session.authorize('github');
    expect(request.redirectUrl).toMatch(/\/_emulator\/link\//);
    // The user finishes the hosted connect page (the emulator's redirect_url).
    await fetch(request.redirectUrl as string, { redirect: 'manual' });
    const account = await request.waitForConnection(10_000);
    expect(account.status).toBe('ACTIVE');
    const proxied = await session.proxyExecute({ toolkit: 'github', endpoint: '/user', method: 'GET' } as never);
    expect(proxied.status).toBe(200);
  });

  it('update (PATCH, no version: core 0.19 sends none; the conflict is covered through @composio/client) and delete', async () => {
    const session = await composio.create('core-updater', { toolkits: ['github'] } as never);
    const config = await session.update({ toolkits: ['github', 'gmail'], tags: ['readOnlyHint'] } as never);
    expect(config).toBeDefined();
    const raw = await fetch(`${emu.url}/api/v3.1/tool_router/session/${session.sessionId}`, { headers: { 'x-api-key': KEY } }).then((r) => r.json() as Promise<any>);
    expect(raw.config_version).toBe(2);
    expect(raw.config.toolkits).toEqual({ enabled: ['github', 'gmail'] });
    const deleted = await session.delete();
    expect(deleted).toMatchObject({ deleted: true });
    const gone = await fetch(`${emu.url}/api/v3.1/tool_router/session/${session.sessionId}`, { headers: { 'x-api-key': KEY } });
    expect(gone.status).toBe(404);
  });

  it('files: list and delete work; upload and download are refused by the SDK itself on loopback', async () => {
    const session = await composio.create('core-files');
    const listed = await session.experimental.files.list({ path: '/' });
    expect(listed.items).toEqual([]);
    await expect(session.experimental.files.delete('/missing.txt')).resolves.toBeDefined();
    // The SDK's SSRF guard refuses the emulator's presigned URL (127.0.0.1), before any byte moves.
    const upload = await session.experimental.files.upload(new TextEncoder().encode('hello'), { remotePath: '/a.txt' } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((upload as Error | undefined)?.name).toBe('ComposioBlockedInternalUrlError');
  });
});
