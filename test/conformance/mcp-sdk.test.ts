/**
 * The session's MCP endpoint as the official MCP client (`@modelcontextprotocol/sdk`, unmodified)
 * sees it, for what issue 28 asks: `tools/list` pages with `nextCursor`, a cursor the server did not
 * issue is a JSON-RPC Invalid params error, a 401 names its scheme (`WWW-Authenticate`, an API key,
 * not OAuth), and a 405 carries `Allow` (REST routes too).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call } from './emulator-http.js';

const KEY = 'mcp-sdk-key-0123456789';
const S31 = '/api/v3.1/tool_router/session';
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY] });
});
afterAll(() => emu.close());

async function create(body: Record<string, unknown>): Promise<{ session_id: string; mcp: { url: string }; tool_router_tools: string[] }> {
  const r = await call(emu.url, 'POST', S31, { key: KEY, body });
  expect(r.status, r.text).toBe(201);
  return r.json;
}

async function connect(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'sessionctl-conformance', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { 'x-api-key': key } } }));
  return client;
}

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe('MCP tools/list paging (official MCP client)', () => {
  it('pages of 100 with nextCursor; the pages together are tool_router_tools in order; the last page has no cursor', async () => {
    const s = await create({ user_id: 'pager', toolkits: { enable: ['github'] }, preload: { tools: 'all' } });
    expect(s.tool_router_tools.length).toBeGreaterThan(200);
    const client = await connect(s.mcp.url, KEY);
    try {
      const pages: Array<{ names: string[]; nextCursor: string | undefined }> = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        pages.push({ names: page.tools.map((t) => t.name), nextCursor: page.nextCursor });
        cursor = page.nextCursor;
      } while (cursor !== undefined && pages.length < 50);
      expect(pages.map((p) => p.names.length)).toEqual(
        Array.from({ length: Math.ceil(s.tool_router_tools.length / 100) }, (_, n) => Math.min(100, s.tool_router_tools.length - n * 100)),
      );
      expect(pages.flatMap((p) => p.names)).toEqual(s.tool_router_tools);
      expect(pages.at(-1)?.nextCursor).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it('a session that fits one page answers it without nextCursor', async () => {
    const s = await create({ user_id: 'pager-small' });
    const client = await connect(s.mcp.url, KEY);
    try {
      const page = await client.listTools();
      expect(page.tools.map((t) => t.name)).toEqual(s.tool_router_tools);
      expect(page.nextCursor).toBeUndefined();
    } finally {
      await client.close();
    }
  });

  it.each([
    ['not one this server issued', 'not-a-cursor'],
    ['past the last page', Buffer.from('99:100').toString('base64url')],
    ['of another page size', Buffer.from('2:10').toString('base64url')],
  ])('a cursor %s is a JSON-RPC Invalid params error (-32602)', async (_name, cursor) => {
    const s = await create({ user_id: 'pager-bad', toolkits: { enable: ['github'] }, preload: { tools: 'all' } });
    const client = await connect(s.mcp.url, KEY);
    try {
      const err = await rejection(client.listTools({ cursor }));
      expect(err).toBeInstanceOf(McpError);
      expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
      expect((err as McpError).message).toContain(`Invalid cursor: '${cursor}'`);
    } finally {
      await client.close();
    }
  });
});

describe('MCP 401 and 405', () => {
  it('a wrong key: the official client fails with HTTP 401, and the answer challenges for an API key, not OAuth', async () => {
    const s = await create({ user_id: 'auth' });
    const err = await rejection(connect(s.mcp.url, 'wrong-key-0000'));
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
    const raw = await call(emu.url, 'POST', new URL(s.mcp.url).pathname, {
      key: 'wrong-key-0000',
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} },
      headers: { accept: 'application/json, text/event-stream' },
    });
    expect(raw.status).toBe(401);
    expect(raw.headers['www-authenticate']).toBe('ApiKey realm="composio", header="x-api-key"');
    expect(raw.json.error).toMatchObject({ slug: 'HTTP_Unauthorized', code: 10401, status: 401, message: 'Invalid API key' });
  });

  it('a missing key on a REST route: 401 with the same challenge', async () => {
    const r = await call(emu.url, 'GET', `${S31}/trs_abc`);
    expect([r.status, r.headers['www-authenticate'], r.json.error.message]).toEqual([401, 'ApiKey realm="composio", header="x-api-key"', 'Missing API key: send it in the x-api-key header']);
  });

  it.each([
    ['PUT', `${S31}/trs_abc`, 'GET, PATCH, DELETE'],
    ['PUT', '/api/v3/tool_router/session/trs_abc', 'GET, PATCH'],
    ['GET', S31, 'POST'],
    ['DELETE', `${S31}/trs_abc/execute`, 'POST'],
    ['POST', `${S31}/trs_abc/tools`, 'GET'],
  ])('%s %s is 405 with Allow: %s and the envelope', async (method, path, allow) => {
    const r = await call(emu.url, method, path, { key: KEY });
    expect(r.status).toBe(405);
    expect(r.headers['allow']).toBe(allow);
    expect(r.json.error).toMatchObject({ slug: 'HTTP_MethodNotAllowed', code: 10405, status: 405, message: `Method ${method} not allowed on ${path}` });
  });

  it('a method the MCP transport does not serve is 405 with Allow', async () => {
    const s = await create({ user_id: 'mcp-405' });
    const r = await call(emu.url, 'PUT', new URL(s.mcp.url).pathname, { key: KEY, body: {} });
    expect(r.status).toBe(405);
    expect(r.headers['allow']).toBe('GET, POST, DELETE');
  });
});
