/**
 * Each session's MCP endpoint, driven by the official MCP client over Streamable HTTP (issue 10
 * item 3): initialize, tools/list equal to the session's tool_router_tools, tools/call of the
 * search meta tool, 401 without the key, and a PATCH or DELETE seen on the next request.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call } from '../conformance/emulator-http.js';

const KEY = 'mcp-key-0123456789';
const S31 = '/api/v3.1/tool_router/session';
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY, 'mcp-other-key-987'] });
});
afterAll(() => emu.close());

async function create(body: Record<string, unknown>): Promise<any> {
  const r = await call(emu.url, 'POST', S31, { key: KEY, body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

async function connect(url: string, key: string | null = KEY): Promise<Client> {
  const client = new Client({ name: 'sessionctl-test', version: '1.0.0' });
  const headers: Record<string, string> = key === null ? {} : { 'x-api-key': key };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe('MCP at mcp.url', () => {
  it('initialize, tools/list equal to tool_router_tools with input schemas, tools/call of the search meta tool', async () => {
    const s = await create({ user_id: 'm1', toolkits: { enable: ['github', 'hackernews'] }, preload: { tools: ['HACKERNEWS_GET_FRONTPAGE'] } });
    const client = await connect(s.mcp.url);
    try {
      expect(client.getServerVersion()?.name).toBe('sessionctl-emulator');
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(s.tool_router_tools);
      expect(tools.map((t) => t.name)).toContain('HACKERNEWS_GET_FRONTPAGE');
      for (const t of tools) expect(t.inputSchema.type).toBe('object');
      expect(tools.find((t) => t.name === 'COMPOSIO_SEARCH_TOOLS')?.annotations).toMatchObject({ readOnlyHint: true });
      const result = await client.callTool({ name: 'COMPOSIO_SEARCH_TOOLS', arguments: { queries: [{ use_case: 'get a github repository' }] } });
      expect(result.isError).toBe(false);
      const body = JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? '{}');
      expect(body.error).toBeNull();
      expect(body.data.results[0].primary_tool_slugs.length).toBeGreaterThan(0);
      const missing = await client.callTool({ name: 'GITHUB_GET_A_REPOSITORY', arguments: {} });
      expect(missing.isError).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('the tool list changes after a PATCH that turns search off; a DELETE makes the endpoint 404', async () => {
    const s = await create({ user_id: 'm2' });
    const client = await connect(s.mcp.url);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('COMPOSIO_SEARCH_TOOLS');
      const p = await call(emu.url, 'PATCH', `${S31}/${s.session_id}`, { key: KEY, body: { search: { enable: false } } });
      expect(p.status).toBe(200);
      const after = (await client.listTools()).tools.map((t) => t.name);
      expect(after).toEqual(p.json.tool_router_tools);
      expect(after).not.toContain('COMPOSIO_SEARCH_TOOLS');
      await call(emu.url, 'DELETE', `${S31}/${s.session_id}`, { key: KEY });
      await expect(client.listTools()).rejects.toThrow();
    } finally {
      await client.close();
    }
    const gone = await call(emu.url, 'POST', new URL(s.mcp.url).pathname, { key: KEY, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers: { accept: 'application/json, text/event-stream' } });
    expect(gone.status).toBe(404);
  });

  it('401 without the key or with a wrong one; another key\'s session is 404', async () => {
    const s = await create({ user_id: 'm3' });
    await expect(connect(s.mcp.url, null)).rejects.toThrow(/HTTP_Unauthorized/);
    await expect(connect(s.mcp.url, 'wrong-key-0000')).rejects.toThrow(/HTTP_Unauthorized/);
    const raw = await call(emu.url, 'POST', new URL(s.mcp.url).pathname, { body: {} });
    expect(raw.status).toBe(401);
    expect(raw.json.error.slug).toBe('HTTP_Unauthorized');
    await expect(connect(s.mcp.url, 'mcp-other-key-987')).rejects.toThrow(/HTTP_NotFound/);
  });
});
