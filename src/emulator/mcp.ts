/**
 * Each session's MCP endpoint, at its `mcp.url` (`/tool_router/v3/{session_id}/mcp`): Streamable
 * HTTP served by the official MCP SDK, stateless (a server per HTTP request), answering in JSON. The
 * key was checked before routing, as for every API path; the session must be the key's own (else
 * 404, as on the REST routes). `tools/list` is the session's `tool_router_tools` (meta tools and
 * preloaded tools) with their input schemas, paged; `tools/call` runs them through the code of
 * /execute. Every request reads the session afresh, so a PATCH or DELETE shows on the next one.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorState } from './context.js';
import { importOptional, MCP_SDK_MISSING } from '../util/optional-import.js';
import { httpError } from './errors.js';
import { readJsonBody } from './http.js';
import { inputSchemaOf, metaTool } from './meta-tools.js';
import { cursorOf, readCursor } from './paging.js';
import { logged, runTool } from './routes/execute.js';
import type { SessionRecord } from './store.js';

export const MCP_PATH = /^\/tool_router\/v3\/([^/]+)\/mcp$/;

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [key: string]: unknown };
  annotations: Record<string, unknown>;
}

/** What an agent connected to the session sees: its tools, in `tool_router_tools` order. */
export function mcpTools(session: SessionRecord, state: EmulatorState): McpTool[] {
  const tools: McpTool[] = [];
  for (const slug of session.tool_router_tools) {
    const meta = metaTool(slug);
    const app = meta === undefined ? state.catalog.tool(slug) : undefined;
    if (meta === undefined && app === undefined) continue;
    const tags = meta?.tags ?? app?.tags ?? [];
    const annotations: Record<string, unknown> = { title: meta?.name ?? app?.name ?? slug };
    for (const hint of HINTS) if (tags.includes(hint)) annotations[hint] = true;
    tools.push({
      name: slug,
      description: meta?.description ?? app?.description ?? app?.name ?? slug,
      inputSchema: (meta !== undefined ? structuredClone(meta.input) : inputSchemaOf(app!)) as McpTool['inputSchema'],
      annotations,
    });
  }
  return tools;
}

/**
 * Tools per `tools/list` page. The service's page size is not documented; a session with a
 * `"all"` preload holds up to 1000 app tools, and one answer of that size is what the MCP cursor
 * exists to avoid.
 */
export const MCP_TOOLS_PAGE = 100;

/**
 * One `tools/list` page (MCP 2025-06-18, "Pagination"): `nextCursor` while tools remain. A cursor
 * this server did not issue is a JSON-RPC Invalid params error (-32602), as the spec asks, never
 * silently the first page.
 */
function listPage(tools: McpTool[], cursor: string | undefined, invalid: (message: string) => Error): { tools: McpTool[]; nextCursor?: string } {
  const at = cursor === undefined ? { page: 1, limit: MCP_TOOLS_PAGE } : readCursor(cursor, MCP_TOOLS_PAGE);
  if (at === undefined || at.limit !== MCP_TOOLS_PAGE) throw invalid(`Invalid cursor: '${cursor ?? ''}'`);
  const start = (at.page - 1) * MCP_TOOLS_PAGE;
  if (start > 0 && start >= tools.length) throw invalid(`Invalid cursor: '${cursor ?? ''}' is past the last page`);
  const page = tools.slice(start, start + MCP_TOOLS_PAGE);
  return start + MCP_TOOLS_PAGE < tools.length ? { tools: page, nextCursor: cursorOf(at.page + 1, MCP_TOOLS_PAGE) } : { tools: page };
}

/** `tools/call`: the tool's `{data, error, log_id}` as JSON text; a tool-level failure is `isError`. */
function callTool(name: string, args: Record<string, unknown>, session: SessionRecord, state: EmulatorState): { content: Array<{ type: 'text'; text: string }>; isError: boolean } {
  const text = (value: unknown): Array<{ type: 'text'; text: string }> => [{ type: 'text', text: JSON.stringify(value) }];
  if (!session.tool_router_tools.includes(name)) {
    return { content: text({ data: {}, error: `Tool '${name}' is not available in this session` }), isError: true };
  }
  const outcome = runTool(name, args, session, state) ?? { data: {}, error: `Tool '${name}' not found` };
  const result = logged(session, outcome);
  state.store.changed();
  return { content: text(result), isError: result.error !== null };
}

type ServerSdk = typeof import('@modelcontextprotocol/sdk/server/index.js') &
  typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js') &
  typeof import('@modelcontextprotocol/sdk/types.js');

/**
 * The MCP SDK, loaded on the first MCP request from node_modules. The specifiers are not literals,
 * so the CLI bundle leaves the SDK (and its dependencies, about 2 MB) out: every other command, and
 * the emulator's start, do not parse it. It is an optional dependency: without it the MCP endpoint
 * answers 501 saying what to install, and the rest of the emulator works.
 */
async function mcpServerSdk(): Promise<ServerSdk> {
  const parts = await importOptional('@modelcontextprotocol/sdk', ['server/index.js', 'server/streamableHttp.js', 'types.js']);
  if (parts === undefined) throw httpError(501, MCP_SDK_MISSING);
  return Object.assign({}, ...parts) as ServerSdk;
}

/** Serves one MCP request for `sessionId` (any HTTP method the transport knows). */
export async function handleMcp(req: IncomingMessage, res: ServerResponse, sessionId: string, tenant: string, state: EmulatorState): Promise<void> {
  await state.ready();
  const find = (): SessionRecord => {
    const s = state.store.session(sessionId, tenant);
    if (s === undefined) throw httpError(404, `Tool router session '${sessionId}' not found`);
    return s;
  };
  find();
  let body: unknown;
  if (req.method === 'POST') body = await readJsonBody(req, state.settings.maxBodyBytes);
  const { Server, StreamableHTTPServerTransport, CallToolRequestSchema, ListToolsRequestSchema, McpError, ErrorCode } = await mcpServerSdk();
  const server = new Server({ name: 'sessionctl-emulator', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (r) => listPage(mcpTools(find(), state), r.params?.cursor, (m) => new McpError(ErrorCode.InvalidParams, m)));
  server.setRequestHandler(CallToolRequestSchema, (r) => callTool(r.params.name, r.params.arguments ?? {}, find(), state));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}
