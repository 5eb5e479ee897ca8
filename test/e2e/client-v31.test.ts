/**
 * The client on both API versions against the real emulator over loopback (issue 10 item 1): v3.1
 * paths and shapes, the lifecycle operations, PATCH never retried and its 409 as a `conflict`
 * naming both versions, and the v3.1-only routes said so under --verbose when v3 is selected.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createClient, type ClientOptions, type SessionClient } from '../../src/client/client.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { seedAccounts } from '../conformance/seed-accounts.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { apiFailure } from '../helpers/rejection.js';

const KEY = 'ak_client_v31_5a4b3c2d1e';
let emu: RunningEmulator;
const clients: SessionClient[] = [];

beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY] });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await emu.close();
});
beforeEach(async () => {
  await emulatorAdmin(emu.url, 'POST', '/reset', undefined, KEY);
});

function client(options: Partial<ClientOptions> = {}): SessionClient {
  const c = createClient({ baseUrl: emu.url, apiKey: KEY, retries: { sleep: async () => undefined }, ...options });
  clients.push(c);
  return c;
}

describe('v3.1', () => {
  test('create, get and list tools use /api/v3.1 and its shapes', async () => {
    const trace: string[] = [];
    const c = client({ apiVersion: '3.1', onTrace: (l) => trace.push(l) });
    expect(c.apiVersion).toBe('3.1');
    await seedAccounts(emu.url, KEY, [{ id: 'ca_1', user_id: 'u1', toolkit: 'github' }]);
    const s = await c.createSession({ user_id: 'u1', connected_accounts: { github: ['ca_1'] }, preload: { tools: ['GITHUB_GET_A_REPOSITORY'] } });
    expect(s.config.connected_accounts).toEqual({ github: ['ca_1'] });
    expect(s.config.search).toEqual({ enable: true });
    expect((await c.getSession(s.session_id)).config_version).toBe(1);
    const tools = await c.listTools(s.session_id, { limit: 2 });
    expect(tools.items).toHaveLength(2);
    expect(tools.total_items).toBe(7);
    const next = await c.listTools(s.session_id, { cursor: tools.next_cursor as string, limit: 2 });
    expect(next.current_page).toBe(2);
    expect(trace.filter((l) => /^> [A-Z]+ http/.test(l)).map((l) => l.split(' ').slice(1, 3).join(' '))).toEqual([
      `POST ${emu.url}/api/v3.1/tool_router/session`,
      `GET ${emu.url}/api/v3.1/tool_router/session/${s.session_id}`,
      `GET ${emu.url}/api/v3.1/tool_router/session/${s.session_id}/tools?limit=2`,
      `GET ${emu.url}/api/v3.1/tool_router/session/${s.session_id}/tools?cursor=${tools.next_cursor}&limit=2`,
    ]);
  });

  test('update, history, attach, delete', async () => {
    const c = client({ apiVersion: '3.1' });
    const s = await c.createSession({ user_id: 'u2', tags: ['readOnlyHint'] });
    const u = await c.updateSession(s.session_id, { tags: null, search: { enable: false }, expected_config_version: 1 });
    expect(u.config_version).toBe(2);
    expect(u.config.tags).toBeUndefined();
    expect(u.tool_router_tools).not.toContain('COMPOSIO_SEARCH_TOOLS');
    const h = await c.configHistory(s.session_id, { limit: 1 });
    expect(h.items.map((i) => [i.version, i.is_current])).toEqual([[2, true]]);
    expect(h.total_items).toBe(2);
    expect((await c.configHistory(s.session_id, { cursor: h.next_cursor as string })).items.map((i) => i.version)).toEqual([1]);
    const a = await c.attachSession(s.session_id);
    expect(a.session_id).toBe(s.session_id);
    expect(await c.deleteSession(s.session_id)).toEqual({ session_id: s.session_id, deleted: true });
    expect((await apiFailure(c.getSession(s.session_id))).status).toBe(404);
  });

  test('getConnectedAccount follows a link flow', async () => {
    const c = client({ apiVersion: '3.1' });
    const s = await c.createSession({ user_id: 'u3' });
    const link = await c.link(s.session_id, { toolkit: 'github' });
    expect((await c.getConnectedAccount(link.connected_account_id)).status).toBe('INITIATED');
    await fetch(link.redirect_url);
    expect(await c.getConnectedAccount(link.connected_account_id)).toMatchObject({ status: 'ACTIVE', toolkit: { slug: 'github' } });
  });
});

describe('PATCH', () => {
  test('a stale version is a conflict naming both versions, and nothing changed', async () => {
    const c = client({ apiVersion: '3.1' });
    const s = await c.createSession({ user_id: 'u4' });
    await c.updateSession(s.session_id, { workbench: { enable: false } });
    const err = await apiFailure(c.updateSession(s.session_id, { workbench: { enable: true }, expected_config_version: 1 }));
    expect(err.kind).toBe('conflict');
    expect(err.status).toBe(409);
    expect([err.expected_config_version, err.current_config_version]).toEqual([1, 2]);
    expect(err.message).toContain('config_version 1');
    expect(err.message).toContain('config_version 2');
    expect((await c.getSession(s.session_id)).config.workbench?.enable).toBe(false);
  });

  test('is never retried, even on a 503 with Retry-After that other calls retry', async () => {
    const c = client({ apiVersion: '3' });
    const s = await c.createSession({ user_id: 'u5' });
    await emulatorAdmin(emu.url, 'POST', '/faults', { route: 'update', status: 503, retry_after: 0, times: 2 }, KEY);
    const err = await apiFailure(c.updateSession(s.session_id, { tags: ['readOnlyHint'] }));
    expect(err.status).toBe(503);
    expect(err.attempts).toBe(1);
    const stats = await emulatorAdmin(emu.url, 'GET', '/stats', undefined, KEY);
    expect(stats.routes.update).toEqual({ received: 1, handled: 0 });
  });
});

describe('v3 selected', () => {
  test('delete, attach, history and the account read use their v3.1 routes, and say so under --verbose', async () => {
    const trace: string[] = [];
    const c = client({ apiVersion: '3', onTrace: (l) => trace.push(l) });
    const s = await c.createSession({ user_id: 'u6' });
    expect(s.config.connected_accounts).toEqual({});
    await c.configHistory(s.session_id);
    await c.attachSession(s.session_id);
    await c.deleteSession(s.session_id);
    const notes = trace.filter((l) => l.startsWith('* '));
    expect(notes).toEqual([
      '* config history exists on API v3.1 only: using its /api/v3.1 route (--api-version 3 for the rest)',
      '* attach session exists on API v3.1 only: using its /api/v3.1 route (--api-version 3 for the rest)',
      '* delete session exists on API v3.1 only: using its /api/v3.1 route (--api-version 3 for the rest)',
    ]);
    expect(trace.filter((l) => /^> [A-Z]+ http/.test(l)).map((l) => new URL(l.split(' ')[2] as string).pathname)).toEqual([
      '/api/v3/tool_router/session',
      `/api/v3.1/tool_router/session/${s.session_id}/config_history`,
      `/api/v3.1/tool_router/session/${s.session_id}/attach`,
      `/api/v3.1/tool_router/session/${s.session_id}`,
    ]);
    expect(trace.join('\n')).not.toContain(KEY);
  });
});
