/**
 * Issue 28, what a session's config must keep as a whole, driven by the official clients unmodified:
 * `@composio/core@0.19.0` (v3.1, through its own client alpha.76), `@composio/client@2.0.0-rc.6`
 * (v3.1) and `@composio/client@0.1.0-alpha.62` (v3). Preload against the session's own filters,
 * preload with multi-account, the multi-account limits, and the PRELOAD_TOOLS_HIGH_CONTEXT_USAGE
 * warning. Each refusal: status, envelope, the client's error class, and nothing stored.
 */
import ComposioV3 from '@composio/client';
import Composio from '@composio/client-v2';
import { Composio as Core } from '@composio/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call } from './emulator-http.js';
import { connectedAccount } from './seed-accounts.js';

const KEY = 'rules-config-key-0123456789';
const S31 = '/api/v3.1/tool_router/session';
let emu: RunningEmulator;
let client: Composio;
let v3: ComposioV3;
let core: Core;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY] });
  client = new Composio({ apiKey: KEY, baseURL: emu.url, maxRetries: 0 });
  v3 = new ComposioV3({ apiKey: KEY, baseURL: emu.url, maxRetries: 0 });
  core = new Core({ apiKey: KEY, baseURL: emu.url, allowTracking: false, disableVersionCheck: true });
});
afterAll(() => emu.close());

/** The rejection of `p` (fails the test when it resolves). */
async function refused(p: Promise<unknown>): Promise<{ status: number; name: string; error: Record<string, unknown> }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the call must be refused').toBeInstanceOf(Error);
  const e = err as { status: number; constructor: { name: string }; error: { error: Record<string, unknown> } };
  return { status: e.status, name: e.constructor.name, error: e.error.error };
}

/** What the emulator stores for a session, read over HTTP. */
async function stored(id: string): Promise<any> {
  const r = await call(emu.url, 'GET', `${S31}/${id}`, { key: KEY });
  expect(r.status).toBe(200);
  return r.json;
}

const badRequest = (errors: string[]) => ({ slug: 'ToolRouterV2_BadRequest', code: 4300, status: 400, message: 'The session config is not valid', errors });

describe('preload against the session\'s own filters', () => {
  it.each([
    ['a toolkit the allowlist leaves out', { toolkits: { enable: ['github'] }, preload: { tools: ['GMAIL_SEND_EMAIL'] } }, 'GMAIL_SEND_EMAIL'],
    ['a toolkit the denylist names', { toolkits: { disable: ['gmail'] }, preload: { tools: ['GMAIL_SEND_EMAIL'] } }, 'GMAIL_SEND_EMAIL'],
    ['a tool the toolkit\'s disable list names', { tools: { github: { disable: ['GITHUB_GET_A_REPOSITORY'] } }, preload: { tools: ['GITHUB_GET_A_REPOSITORY'] } }, 'GITHUB_GET_A_REPOSITORY'],
    ['a tool outside the toolkit\'s enable list', { tools: { github: { enable: ['GITHUB_LIST_BRANCHES'] } }, preload: { tools: ['GITHUB_GET_A_REPOSITORY'] } }, 'GITHUB_GET_A_REPOSITORY'],
    ['a tool the global tags filter out', { tags: { disable: ['readOnlyHint'] }, preload: { tools: ['GITHUB_GET_A_REPOSITORY'] } }, 'GITHUB_GET_A_REPOSITORY'],
  ])('create (rc.6, v3.1) preloading a tool of %s is a BadRequestError 4300', async (_name, body, slug) => {
    const r = await refused(client.toolRouter.session.create({ user_id: 'preloader', ...body } as never));
    expect([r.status, r.name]).toEqual([400, 'BadRequestError']);
    expect(r.error).toMatchObject(badRequest([`Error in payload.preload.tools[0]: Tool '${slug}' is blocked by the session's toolkits, tools or tags`]));
  });

  it('the same on v3 (alpha.62) and through core 0.19.0', async () => {
    const body = { user_id: 'preloader', toolkits: { enable: ['github'] }, preload: { tools: ['GITHUB_GET_A_REPOSITORY', 'GMAIL_SEND_EMAIL'] } };
    const line = "Error in payload.preload.tools[1]: Tool 'GMAIL_SEND_EMAIL' is blocked by the session's toolkits, tools or tags";
    const a = await refused(v3.toolRouter.session.create(body as never));
    expect([a.status, a.name, a.error]).toMatchObject([400, 'BadRequestError', badRequest([line])]);
    const b = await refused(core.create('preloader', { toolkits: ['github'], preload: { tools: ['GITHUB_GET_A_REPOSITORY', 'GMAIL_SEND_EMAIL'] } } as never));
    expect([b.status, b.name, b.error]).toMatchObject([400, 'BadRequestError', badRequest([line])]);
  });

  it('a tool the filters allow is preloaded: in tool_router_tools and at /tools', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'preloader', toolkits: { enable: ['github'] }, preload: { tools: ['GITHUB_GET_A_REPOSITORY'] } });
    expect(s.tool_router_tools).toContain('GITHUB_GET_A_REPOSITORY');
    const tools = await client.toolRouter.session.tools(s.session_id);
    expect(tools.items.map((t) => t.slug)).toContain('GITHUB_GET_A_REPOSITORY');
  });

  it('a PATCH that narrows the filters under a preloaded tool is refused and changes nothing', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'preloader', toolkits: { enable: ['github', 'gmail'] }, preload: { tools: ['GMAIL_SEND_EMAIL'] } });
    const r = await refused(client.toolRouter.session.patch(s.session_id, { toolkits: { enable: ['github'] } }));
    expect([r.status, r.name, r.error]).toMatchObject([400, 'BadRequestError', badRequest(["Error in payload.preload.tools[0]: Tool 'GMAIL_SEND_EMAIL' is blocked by the session's toolkits, tools or tags"])]);
    const after = await stored(s.session_id);
    expect([after.config_version, after.config.toolkits]).toEqual([1, { enabled: ['github', 'gmail'] }]);
  });
});

describe('multi-account (v3.1 as v3)', () => {
  it.each([1, 11, 2.5])('max_accounts_per_toolkit %s is 400 HTTP_BadRequest on both versions, with the same line', async (max) => {
    const body = { user_id: 'multi', multi_account: { enable: true, max_accounts_per_toolkit: max } };
    const a = await refused(client.toolRouter.session.create(body as never));
    const b = await refused(v3.toolRouter.session.create(body as never));
    expect([a.status, a.name, a.error['slug'], a.error['code']]).toEqual([400, 'BadRequestError', 'HTTP_BadRequest', 10400]);
    expect([b.status, b.name, b.error['slug'], b.error['errors']]).toEqual([400, 'BadRequestError', 'HTTP_BadRequest', a.error['errors']]);
    expect(a.error['errors']).toEqual([
      max === 2.5 ? 'Error in payload.multi_account.max_accounts_per_toolkit: Expected integer, received number' : `Error in payload.multi_account.max_accounts_per_toolkit: ${max < 2 ? 'must be >= 2' : 'must be <= 10'}`,
    ]);
  });

  it('a PATCH with max_accounts_per_toolkit 11 is refused too', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'multi' });
    const r = await refused(client.toolRouter.session.patch(s.session_id, { multi_account: { enable: true, max_accounts_per_toolkit: 11 } }));
    expect([r.status, r.error['slug'], r.error['errors']]).toEqual([400, 'HTTP_BadRequest', ['Error in payload.multi_account.max_accounts_per_toolkit: must be <= 10']]);
  });

  it('several accounts for one toolkit without multi-account mode are refused (core 0.19.0 and rc.6)', async () => {
    const [a, b] = [await connectedAccount(emu.url, KEY, 'multi', 'github'), await connectedAccount(emu.url, KEY, 'multi', 'github')];
    const line = 'Error in payload.connected_accounts.github: 2 accounts for one toolkit need multi_account.enable: true';
    const viaCore = await refused(core.create('multi', { connectedAccounts: { github: [a, b] } } as never));
    expect([viaCore.status, viaCore.name, viaCore.error]).toMatchObject([400, 'BadRequestError', badRequest([line])]);
    const viaClient = await refused(client.toolRouter.session.create({ user_id: 'multi', connected_accounts: { github: [a, b] }, multi_account: { enable: false } }));
    expect(viaClient.error).toMatchObject(badRequest([line]));
    const ok = await client.toolRouter.session.create({ user_id: 'multi', connected_accounts: { github: [a, b] }, multi_account: { enable: true } });
    expect(ok.config.connected_accounts).toEqual({ github: [a, b] });
  });

  it('more accounts than max_accounts_per_toolkit are refused', async () => {
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push(await connectedAccount(emu.url, KEY, 'multi', 'github'));
    const r = await refused(client.toolRouter.session.create({ user_id: 'multi', connected_accounts: { github: ids }, multi_account: { enable: true, max_accounts_per_toolkit: 2 } }));
    expect(r.error).toMatchObject(badRequest(['Error in payload.connected_accounts.github: 3 accounts, more than multi_account.max_accounts_per_toolkit (2)']));
  });

  it('preload together with multi-account is refused, at create and by a PATCH that turns multi-account on', async () => {
    const line = 'Error in payload.preload: preload is not supported with multi-account (multi_account.enable: true)';
    const r = await refused(core.create('multi', { multiAccount: { enable: true }, preload: { tools: ['GITHUB_GET_A_REPOSITORY'] } } as never));
    expect([r.status, r.name, r.error]).toMatchObject([400, 'BadRequestError', badRequest([line])]);
    const s = await client.toolRouter.session.create({ user_id: 'multi', preload: { tools: ['GITHUB_GET_A_REPOSITORY'] } });
    const p = await refused(client.toolRouter.session.patch(s.session_id, { multi_account: { enable: true } }));
    expect(p.error).toMatchObject(badRequest([line]));
    expect((await stored(s.session_id)).config_version).toBe(1);
  });
});

describe('PRELOAD_TOOLS_HIGH_CONTEXT_USAGE', () => {
  const many = ['GITHUB_GET_A_REPOSITORY', 'GITHUB_LIST_BRANCHES'];

  it('more than 20 preloaded tools: create, retrieve and update answer the warning (rc.6; core exposes it)', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'wide', toolkits: { enable: ['github'] }, preload: { tools: 'all' } });
    const count = s.tool_router_tools.filter((t) => !t.startsWith('COMPOSIO_')).length;
    expect(count).toBeGreaterThan(20);
    const warning = {
      code: 'PRELOAD_TOOLS_HIGH_CONTEXT_USAGE',
      message: `${count} tools are preloaded; more than 20 use much of the model's context. Preload fewer and let the agent search for the rest.`,
    };
    expect(s.warnings).toEqual([warning]);
    expect((await client.toolRouter.session.retrieve(s.session_id)).warnings).toEqual([warning]);
    const narrowed = await client.toolRouter.session.patch(s.session_id, { preload: { tools: many } });
    expect(narrowed.warnings).toBeUndefined();
    const viaCore = await core.create('wide', { toolkits: ['github'], preload: { tools: 'all' } } as never);
    expect(viaCore.warnings).toEqual([warning]);
  });

  it('20 or fewer: no warning', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'narrow', preload: { tools: many } });
    expect(s.warnings).toBeUndefined();
  });
});
