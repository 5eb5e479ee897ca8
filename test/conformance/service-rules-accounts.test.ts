/**
 * Issue 28, pinned connected accounts, driven by the official clients unmodified:
 * `@composio/core@0.19.0` and `@composio/client@2.0.0-rc.6` on v3.1, `@composio/client@0.1.0-alpha.62`
 * on v3. An account that was never issued, another user's, another key's, or one of another toolkit
 * is refused at create and at PATCH (400 `ToolRouterV2_InvalidConnectedAccountIds`, nothing stored);
 * an account of the session's own user is what /toolkits reports and what tools run with.
 */
import ComposioV3 from '@composio/client';
import Composio from '@composio/client-v2';
import { Composio as Core } from '@composio/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call } from './emulator-http.js';
import { connectedAccount } from './seed-accounts.js';

const KEY = 'rules-accounts-key-0123456789';
const OTHER_KEY = 'rules-accounts-other-key-987';
let emu: RunningEmulator;
let client: Composio;
let v3: ComposioV3;
let core: Core;
let alices: string;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY, OTHER_KEY] });
  client = new Composio({ apiKey: KEY, baseURL: emu.url, maxRetries: 0 });
  v3 = new ComposioV3({ apiKey: KEY, baseURL: emu.url, maxRetries: 0 });
  core = new Core({ apiKey: KEY, baseURL: emu.url, allowTracking: false, disableVersionCheck: true });
  alices = await connectedAccount(emu.url, KEY, 'alice', 'github');
});
afterAll(() => emu.close());

async function refused(p: Promise<unknown>): Promise<{ status: number; name: string; error: Record<string, unknown> }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the call must be refused').toBeInstanceOf(Error);
  const e = err as { status: number; constructor: { name: string }; error: { error: Record<string, unknown> } };
  return { status: e.status, name: e.constructor.name, error: e.error.error };
}

const invalidIds = (ids: string[], errors: string[]) => ({
  slug: 'ToolRouterV2_InvalidConnectedAccountIds',
  code: 4300,
  status: 400,
  message: `Invalid connected account ids: ${ids.join(', ')}`,
  errors,
  suggested_fix: "Pin accounts of the session's own user_id, made for that toolkit (by a link flow)",
});

describe('create', () => {
  it('an id never issued: core 0.19.0 and rc.6 get a BadRequestError, and no session exists', async () => {
    const line = "Error in payload.connected_accounts.github[0]: Connected account 'ca_never_issued' not found";
    const a = await refused(core.create('alice', { connectedAccounts: { github: 'ca_never_issued' } } as never));
    expect([a.status, a.name, a.error]).toEqual([400, 'BadRequestError', { ...invalidIds(['ca_never_issued'], [line]), request_id: expect.stringMatching(/^req_/) }]);
    const b = await refused(client.toolRouter.session.create({ user_id: 'alice', connected_accounts: { github: ['ca_never_issued'] } }));
    expect([b.status, b.name, b.error]).toMatchObject([400, 'BadRequestError', invalidIds(['ca_never_issued'], [line])]);
    const health = await call(emu.url, 'GET', '/_emulator/sessions', { key: KEY });
    expect(health.json.sessions.filter((s: { user_id: string }) => s.user_id === 'alice')).toHaveLength(1);
  });

  it('v3 (alpha.62): the same refusal, the field named without an index', async () => {
    const r = await refused(v3.toolRouter.session.create({ user_id: 'alice', connected_accounts: { github: 'ca_never_issued' } }));
    expect([r.status, r.name, r.error]).toMatchObject([400, 'BadRequestError', invalidIds(['ca_never_issued'], ["Error in payload.connected_accounts.github: Connected account 'ca_never_issued' not found"])]);
  });

  it("mallory pinning alice's account is refused (core 0.19.0)", async () => {
    const r = await refused(core.create('mallory', { toolkits: ['github'], connectedAccounts: { github: alices } } as never));
    expect([r.status, r.name, r.error]).toMatchObject([
      400,
      'BadRequestError',
      invalidIds([alices], [`Error in payload.connected_accounts.github[0]: Connected account '${alices}' does not belong to user 'mallory'`]),
    ]);
  });

  it("another key's account does not exist for this key", async () => {
    const theirs = await connectedAccount(emu.url, OTHER_KEY, 'alice', 'github');
    const r = await refused(client.toolRouter.session.create({ user_id: 'alice', connected_accounts: { github: [theirs] } }));
    expect(r.error).toMatchObject(invalidIds([theirs], [`Error in payload.connected_accounts.github[0]: Connected account '${theirs}' not found`]));
  });

  it('an account of another toolkit is refused; every bad id is named', async () => {
    const r = await refused(client.toolRouter.session.create({ user_id: 'alice', connected_accounts: { gmail: [alices], slack: ['ca_nope'] } }));
    expect(r.error).toMatchObject(
      invalidIds(
        [alices, 'ca_nope'],
        [`Error in payload.connected_accounts.gmail[0]: Connected account '${alices}' is an account of toolkit 'github', not 'gmail'`, "Error in payload.connected_accounts.slack[0]: Connected account 'ca_nope' not found"],
      ),
    );
  });

  it("alice's own account: accepted, /toolkits reports it as hers with its status, tools run with it", async () => {
    const session = await core.create('alice', { toolkits: ['github'], manageConnections: false, connectedAccounts: { github: alices } } as never);
    const kits = await session.toolkits();
    const github = kits.items.find((k: { slug: string }) => k.slug === 'github') as { connection?: { connectedAccount?: { id: string } } } | undefined;
    expect(github?.connection?.connectedAccount?.id).toBe(alices);
    const raw = await call(emu.url, 'GET', `/api/v3.1/tool_router/session/${session.sessionId}/toolkits`, { key: KEY });
    expect(raw.json.items[0].connected_account).toMatchObject({ id: alices, user_id: 'alice', status: 'ACTIVE' });
    const run = await session.execute('GITHUB_GET_A_REPOSITORY', { owner: 'o', repo: 'r' });
    expect(run.error).toBeNull();
    expect((run.data as { connected_account_id: string }).connected_account_id).toBe(alices);
  });

  it('a pinned account whose link flow is not finished is accepted and reported INITIATED: tools do not run yet', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'bob' });
    const link = await client.toolRouter.session.link(s.session_id, { toolkit: 'github' });
    const pinned = await client.toolRouter.session.create({ user_id: 'bob', connected_accounts: { github: [link.connected_account_id] } });
    const kits = await client.toolRouter.session.toolkits(pinned.session_id, { toolkits: ['github'] });
    expect(kits.items[0]?.connected_account).toMatchObject({ id: link.connected_account_id, status: 'INITIATED' });
    const run = await client.toolRouter.session.execute(pinned.session_id, { tool_slug: 'GITHUB_GET_A_REPOSITORY', arguments: { owner: 'o', repo: 'r' } });
    expect(run.error).toBe("No active connection for toolkit 'github'. Connect it first (POST /link, or COMPOSIO_MANAGE_CONNECTIONS).");
  });
});

describe('PATCH', () => {
  it("mallory's session cannot be patched to alice's account; nothing changes (rc.6, then v3)", async () => {
    const s = await client.toolRouter.session.create({ user_id: 'mallory', toolkits: { enable: ['github'] } });
    const line = `Error in payload.connected_accounts.github[0]: Connected account '${alices}' does not belong to user 'mallory'`;
    const a = await refused(client.toolRouter.session.patch(s.session_id, { connected_accounts: { github: [alices] } }));
    expect([a.status, a.name, a.error]).toMatchObject([400, 'BadRequestError', invalidIds([alices], [line])]);
    const b = await refused(v3.patch(`/api/v3/tool_router/session/${s.session_id}`, { body: { connected_accounts: { github: 'ca_never_issued' } } }));
    expect([b.status, b.name, b.error]).toMatchObject([400, 'BadRequestError', invalidIds(['ca_never_issued'], ["Error in payload.connected_accounts.github: Connected account 'ca_never_issued' not found"])]);
    const after = await client.toolRouter.session.retrieve(s.session_id);
    expect([after.config_version, after.config.connected_accounts]).toEqual([1, {}]);
  });

  it('a pin injected through the admin API connects nothing, and a PATCH of other keys still works', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'alice', toolkits: { enable: ['github'] } });
    const injected = await call(emu.url, 'POST', `/_emulator/sessions/${s.session_id}/config`, { key: KEY, body: { config: { connected_accounts: { github: ['ca_injected'] } } } });
    expect(injected.status).toBe(200);
    const kits = await client.toolRouter.session.toolkits(s.session_id);
    expect(kits.items.find((k) => k.slug === 'github')?.connected_account).toBeNull();
    const patched = await client.toolRouter.session.patch(s.session_id, { tags: ['readOnlyHint'] });
    expect([patched.config_version, patched.config.connected_accounts]).toEqual([3, { github: ['ca_injected'] }]);
  });

  it("core 0.19.0's update() with an account never issued is refused", async () => {
    const session = await core.create('alice', { toolkits: ['github'] } as never);
    const r = await refused(session.update({ connectedAccounts: { github: 'ca_never_issued' } } as never));
    expect([r.status, r.name, r.error]).toMatchObject([400, 'BadRequestError', invalidIds(['ca_never_issued'], ["Error in payload.connected_accounts.github[0]: Connected account 'ca_never_issued' not found"])]);
  });
});
