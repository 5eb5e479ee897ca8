/**
 * The client's MCP helper and `sessionctl mcp` against the emulator's MCP endpoint (issue 10 item
 * 3): the tools an agent sees, a tool called over MCP, exit codes, and the key kept to the
 * service's own origin and out of every output.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient, mcpToolNames } from '../../src/client/client.js';
import { listMcpTools } from '../../src/client/mcp.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { call } from '../conformance/emulator-http.js';
import { apiFailure } from '../helpers/rejection.js';
import { runCli } from '../helpers/run-cli.js';

const KEY = 'ak_mcp_cli_"quote\\slash_9f8e';
let emu: RunningEmulator;
let sessionId: string;
let tools: string[];

beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY] });
  const r = await call(emu.url, 'POST', '/api/v3.1/tool_router/session', { key: KEY, body: { user_id: 'agent', workbench: { enable: false }, manage_connections: { enable: false } } });
  sessionId = r.json.session_id;
  tools = r.json.tool_router_tools;
});
afterAll(() => emu.close());

const env = (): Record<string, string> => ({ COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emu.url, COLUMNS: '200' });

describe('client', () => {
  test('mcpTools and mcpToolNames list what an agent sees: the session\'s tool_router_tools', async () => {
    const client = createClient({ baseUrl: emu.url, apiKey: KEY, apiVersion: '3.1' });
    try {
      expect(await mcpToolNames(client, sessionId)).toEqual(tools);
      const listed = await client.mcpTools(sessionId);
      expect(listed.every((t) => t.description.length > 0 && t.inputSchema['type'] === 'object')).toBe(true);
      const r = await client.mcpCall(sessionId, 'COMPOSIO_GET_TOOL_SCHEMAS', { tool_slugs: ['GITHUB_GET_A_REPOSITORY'] });
      expect(r.isError).toBe(false);
    } finally {
      await client.close();
    }
  });

  test('the key is never sent to an MCP URL on another origin', async () => {
    const err = await apiFailure(listMcpTools({ url: 'http://127.0.0.2:9/tool_router/v3/trs_x/mcp', baseUrl: emu.url, apiKey: KEY }));
    expect(err.message).toContain('only sent to the service');
    expect(JSON.stringify(err.toJSON())).not.toContain(KEY);
  });
});

describe('sessionctl mcp', () => {
  test('lists the tools with their descriptions', async () => {
    const r = await runCli(['mcp', sessionId], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      [
        'TOOL                         DESCRIPTION',
        'COMPOSIO_SEARCH_TOOLS        Discover tools for a task; returns plans, tool schemas and connection status.',
        'COMPOSIO_GET_TOOL_SCHEMAS    Full input schemas for known tool slugs.',
        'COMPOSIO_MULTI_EXECUTE_TOOL  Run several discovered tools in parallel (up to 50).',
        '',
        '3 tools',
        '',
      ].join('\n'),
    );
  });

  test('--format json gives the tools as the MCP server sent them', async () => {
    const r = await runCli(['mcp', sessionId, '--format', 'json'], { env: env() });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout).tools.map((t: { name: string }) => t.name)).toEqual(tools);
  });

  test('--call runs one tool over MCP; a tool the session lacks exits 1', async () => {
    const ok = await runCli(['mcp', sessionId, '--call', 'COMPOSIO_SEARCH_TOOLS', '--arg', 'queries=[{"use_case": "send an email"}]'], { env: env() });
    expect(ok.exitCode).toBe(0);
    expect(JSON.parse(ok.stdout).error).toBeNull();
    const missing = await runCli(['mcp', sessionId, '--call', 'COMPOSIO_REMOTE_WORKBENCH', '--arg', 'code_to_execute=1'], { env: env() });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("Tool 'COMPOSIO_REMOTE_WORKBENCH' is not available in this session");
  });

  test('a refused key is exit 3, and no output carries the key', async () => {
    const r = await runCli(['mcp', sessionId, '--verbose'], { env: { ...env(), COMPOSIO_API_KEY: `${KEY}x` } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain('HTTP 401');
    expect(`${r.stdout}${r.stderr}`).not.toContain(KEY);
  });
});
