import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { seedAccounts } from '../conformance/seed-accounts.js';
import { call, SESSION } from '../conformance/emulator-http.js';

const KEY = 'config-key-123456';
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
  await seedAccounts(emu.url, KEY, [{ id: 'ca_456', user_id: 'u2', toolkit: 'github' }]);
});
afterAll(() => emu.close());

async function create(body: Record<string, unknown>): Promise<any> {
  const r = await call(emu.url, 'POST', SESSION, { key: KEY, body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

const BASE_TOOLS = ['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_GET_TOOL_SCHEMAS', 'COMPOSIO_MULTI_EXECUTE_TOOL'];

describe('create and get answer with the effective config', () => {
  it('a bare create gets the documented defaults, config_version and mcp.url', async () => {
    const s = await create({ user_id: 'u1' });
    expect(s.config).toEqual({
      user_id: 'u1',
      auth_configs: {},
      connected_accounts: {},
      manage_connections: { enabled: true, enable_wait_for_connections: false, enable_connection_removal: true },
      tools: {},
      workbench: { enable: true, proxy_execution_enabled: true, tool_execution_enabled: true, sandbox_size: 'standard' },
      preload: { tools: [] },
    });
    expect(s.config_version).toBe(1);
    expect(s.mcp).toEqual({ type: 'http', url: `${emu.url}/tool_router/v3/${s.session_id}/mcp` });
    expect(s.tool_router_tools).toEqual([...BASE_TOOLS, 'COMPOSIO_MANAGE_CONNECTIONS', 'COMPOSIO_REMOTE_WORKBENCH', 'COMPOSIO_REMOTE_BASH_TOOL']);
    expect(s.experimental).toBeUndefined();
    const mcp = await call(emu.url, 'POST', new URL(s.mcp.url).pathname, { key: KEY, body: {} });
    // Served by the MCP transport (emulator-mcp.test.ts): a client that does not accept its answers is refused.
    expect(mcp.status).toBe(406);
  });

  it('renames request spelling to response spelling (facts §4.2)', async () => {
    const s = await create({
      user_id: 'u2',
      toolkits: { enable: ['gmail', 'slack', 'github'] },
      tools: {
        gmail: { enable: ['GMAIL_SEND_EMAIL'] },
        github: { disable: ['GITHUB_ACCEPT_A_REPOSITORY_INVITATION'] },
        slack: { tags: ['readOnlyHint'] },
      },
      tags: { enable: ['readOnlyHint'], disable: ['destructiveHint'] },
      auth_configs: { gmail: 'ac_123' },
      connected_accounts: { github: 'ca_456' },
      manage_connections: { enable: false, callback_url: 'https://example.com/done', enable_wait_for_connections: true, enable_connection_removal: false },
      workbench: { enable: false, enable_proxy_execution: false, auto_offload_threshold: 5000 },
      multi_account: { enable: true },
    });
    expect(s.config).toEqual({
      user_id: 'u2',
      toolkits: { enabled: ['gmail', 'slack', 'github'] },
      tools: {
        gmail: { enabled: ['GMAIL_SEND_EMAIL'] },
        github: { disabled: ['GITHUB_ACCEPT_A_REPOSITORY_INVITATION'] },
        slack: { tags: { enabled: ['readOnlyHint'] } },
      },
      tags: { enabled: ['readOnlyHint'], disabled: ['destructiveHint'] },
      auth_configs: { gmail: 'ac_123' },
      connected_accounts: { github: 'ca_456' },
      manage_connections: { enabled: false, callback_url: 'https://example.com/done', enable_wait_for_connections: true, enable_connection_removal: false },
      workbench: { enable: false, proxy_execution_enabled: false, tool_execution_enabled: true, sandbox_size: 'standard', auto_offload_threshold: 5000 },
      multi_account: { enable: true, max_accounts_per_toolkit: 5 },
      preload: { tools: [] },
    });
    expect(s.tool_router_tools).toEqual([...BASE_TOOLS, 'COMPOSIO_WAIT_FOR_CONNECTIONS']);
  });

  it.each([
    ['manage off', { manage_connections: { enable: false } }, [...BASE_TOOLS, 'COMPOSIO_REMOTE_WORKBENCH', 'COMPOSIO_REMOTE_BASH_TOOL']],
    ['manage null counts as default', { manage_connections: { enable: null } }, [...BASE_TOOLS, 'COMPOSIO_MANAGE_CONNECTIONS', 'COMPOSIO_REMOTE_WORKBENCH', 'COMPOSIO_REMOTE_BASH_TOOL']],
    ['wait on', { manage_connections: { enable_wait_for_connections: true }, workbench: { enable: false } }, [...BASE_TOOLS, 'COMPOSIO_MANAGE_CONNECTIONS', 'COMPOSIO_WAIT_FOR_CONNECTIONS']],
    ['preload', { preload: { tools: ['GMAIL_SEND_EMAIL', 'GITHUB_ACTIVITY_LIST_STARGAZERS_FOR_REPO'] }, workbench: { enable: false }, manage_connections: { enable: false } }, [...BASE_TOOLS, 'GMAIL_SEND_EMAIL', 'GITHUB_ACTIVITY_LIST_STARGAZERS_FOR_REPO']],
  ])('tool_router_tools: %s', async (_name, extra, tools) => {
    const s = await create({ user_id: 'u3', ...extra });
    expect(s.tool_router_tools).toEqual(tools);
  });

  it('get answers with the same config as create, and the experimental answer create gave (issue 28)', async () => {
    const s = await create({ user_id: 'u4', tags: ['readOnlyHint'], experimental: { assistive_prompt_config: { user_timezone: 'Europe/Paris' } } });
    expect(s.experimental.assistive_prompt).toContain('Europe/Paris');
    const g = await call(emu.url, 'GET', `${SESSION}/${s.session_id}`, { key: KEY });
    expect(g.status).toBe(200);
    expect(g.json).toEqual({ session_id: s.session_id, mcp: s.mcp, tool_router_tools: s.tool_router_tools, config: s.config, config_version: 1, experimental: s.experimental });
  });

  it('custom tools are echoed with their LOCAL_ slugs', async () => {
    const s = await create({
      user_id: 'u5',
      experimental: {
        custom_tools: [{ slug: 'lookup', name: 'Lookup', description: 'd', input_schema: { type: 'object', properties: {} }, extends_toolkit: 'gmail' }],
      },
    });
    expect(s.experimental.custom_tools[0]).toMatchObject({ slug: 'LOCAL_GMAIL_LOOKUP', original_slug: 'lookup' });
  });

  it('unknown top-level keys are ignored, as the contract leaves the body open', async () => {
    const s = await create({ user_id: 'u6', not_a_field: true });
    expect(s.config.not_a_field).toBeUndefined();
  });
});

describe('drift injection through the admin API', () => {
  it('patches the stored config (merge patch) and bumps config_version', async () => {
    const s = await create({ user_id: 'u7', toolkits: { enable: ['gmail'] } });
    const patch = await call(emu.url, 'POST', `/_emulator/sessions/${s.session_id}/config`, {
      body: { config: { toolkits: { enabled: ['gmail', 'slack'] }, workbench: { enable: false }, preload: null }, tool_router_tools: ['COMPOSIO_SEARCH_TOOLS'] },
    });
    expect(patch.status).toBe(200);
    const g = await call(emu.url, 'GET', `${SESSION}/${s.session_id}`, { key: KEY });
    expect(g.json.config.toolkits).toEqual({ enabled: ['gmail', 'slack'] });
    expect(g.json.config.workbench).toEqual({ enable: false, proxy_execution_enabled: true, tool_execution_enabled: true, sandbox_size: 'standard' });
    expect(g.json.config.preload).toBeUndefined();
    expect(g.json.tool_router_tools).toEqual(['COMPOSIO_SEARCH_TOOLS']);
    expect(g.json.config_version).toBe(2);
    const admin = await call(emu.url, 'GET', `/_emulator/sessions/${s.session_id}`);
    expect(admin.json.config).toEqual(g.json.config);
  });

  it('deletes a session: the API then answers 404', async () => {
    const s = await create({ user_id: 'u8' });
    const del = await call(emu.url, 'DELETE', `/_emulator/sessions/${s.session_id}`);
    expect(del.json).toEqual({ deleted: s.session_id });
    expect((await call(emu.url, 'GET', `${SESSION}/${s.session_id}`, { key: KEY })).status).toBe(404);
  });

  it('an unknown session is 404', async () => {
    const r = await call(emu.url, 'POST', '/_emulator/sessions/trs_nope/config', { body: { config: {} } });
    expect(r.status).toBe(404);
  });
});

describe('later v3 fields that the contract copy predates', () => {
  it('are accepted and echoed as the newer service does', async () => {
    const s = await create({
      user_id: 'u-later',
      workbench: { sandbox_size: 'medium', enable_tool_execution: false },
      preload: { tools: [] },
      experimental: { fast_mode: true, submit_feedback: { enable: false }, permissions: { default: 'allow_all' } },
    });
    expect(s.config.workbench).toEqual({ enable: true, proxy_execution_enabled: true, tool_execution_enabled: false, sandbox_size: 'medium' });
  });

  it('are still validated: a sandbox size the service does not offer is 400 naming the field', async () => {
    const r = await call(emu.url, 'POST', SESSION, { key: KEY, body: { user_id: 'u', workbench: { sandbox_size: 'huge' } } });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json.error.errors)).toContain('sandbox_size');
  });
});
