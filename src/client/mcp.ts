/**
 * What an agent sees at a session's `mcp.url`, through the official MCP client (Streamable HTTP):
 * the tools with their descriptions and input schemas, and calling one. The key goes only to the
 * service's own origin, as the SDK does (api facts §8): an `mcp.url` on another origin than the
 * base URL is refused before anything is sent. Failures become `ApiError`s without the key.
 */
import { UsageError } from '../diagnostics/errors.js';
import { importOptional, MCP_SDK_MISSING } from '../util/optional-import.js';
import { keyScrubber } from './api-key.js';
import { ApiError } from './errors.js';
import { errorCode } from './response.js';

export interface McpTool {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface McpCallResult {
  isError: boolean;
  content: Array<Record<string, unknown>>;
  structuredContent?: Record<string, unknown>;
}

export interface McpConnection {
  /** The session's `mcp.url`. */
  url: string;
  /** The API's base URL: the only origin the key is sent to. */
  baseUrl: string;
  apiKey: string;
  /** Gives up on the whole exchange after this many ms. Default 30 000. */
  timeoutMs?: number;
}

type ClientSdk = typeof import('@modelcontextprotocol/sdk/client/index.js') & typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js');
type McpClient = InstanceType<ClientSdk['Client']>;

/**
 * The MCP SDK's client, loaded when first used, from node_modules: the specifiers are not literals,
 * so the CLI bundle leaves the SDK out and commands that never speak MCP do not parse it. The SDK
 * is an optional dependency (most of an application's install otherwise): without it, MCP is a
 * usage error that says what to install.
 */
async function mcpClientSdk(): Promise<ClientSdk> {
  const parts = await importOptional('@modelcontextprotocol/sdk', ['client/index.js', 'client/streamableHttp.js']);
  if (parts === undefined) throw new UsageError(MCP_SDK_MISSING);
  return Object.assign({}, ...parts) as ClientSdk;
}

/** Connects (initialize), runs `work`, and closes, whatever happens. */
async function withMcp<T>(conn: McpConnection, work: (client: McpClient) => Promise<T>): Promise<T> {
  const target = new URL(conn.url);
  if (target.origin !== new URL(conn.baseUrl).origin) {
    throw new ApiError(`the session's MCP URL is on ${target.origin}, not on the service's origin ${new URL(conn.baseUrl).origin}; the API key is only sent to the service`, {
      kind: 'decode',
      method: 'POST',
      path: target.pathname,
    });
  }
  const { Client, StreamableHTTPClientTransport } = await mcpClientSdk();
  const signal = AbortSignal.timeout(conn.timeoutMs ?? 30_000);
  const client = new Client({ name: 'sessionctl', version: '1' });
  const transport = new StreamableHTTPClientTransport(target, { requestInit: { headers: { 'x-api-key': conn.apiKey }, signal, redirect: 'error' } });
  try {
    await client.connect(transport);
    return await work(client);
  } catch (err) {
    throw mcpError(err, target.pathname, conn.apiKey, signal);
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** An MCP SDK failure as an ApiError: the HTTP status when there was one, the key scrubbed. */
function mcpError(err: unknown, path: string, apiKey: string, signal: AbortSignal): ApiError {
  if (err instanceof ApiError) return err;
  const scrub = keyScrubber(apiKey);
  const e = err as { code?: unknown; message?: unknown };
  const raw = typeof e.message === 'string' ? e.message : String(err);
  const status = typeof e.code === 'number' && e.code >= 400 && e.code < 600 ? e.code : /\b(4\d\d|5\d\d)\b/.exec(raw)?.[1];
  if (signal.aborted) return new ApiError('no answer from the MCP endpoint in time', { kind: 'timeout', method: 'POST', path, cause: err });
  if (status !== undefined) {
    const slug = /"slug":"([^"]+)"/.exec(raw)?.[1];
    return new ApiError(scrub(`the MCP endpoint answered ${status}${slug === undefined ? '' : ` (${slug})`}`), { kind: 'http', method: 'POST', path, status: Number(status), ...(slug === undefined ? {} : { slug }), cause: err });
  }
  const code = errorCode(err);
  if (code !== 'UNKNOWN') return new ApiError(`cannot reach the MCP endpoint: ${code}`, { kind: 'network', method: 'POST', path, cause: err });
  return new ApiError(scrub(`the MCP endpoint failed: ${raw.slice(0, 300)}`), { kind: 'decode', method: 'POST', path, cause: err });
}

/** Every tool the endpoint lists (following `nextCursor`), in its order. */
export function listMcpTools(conn: McpConnection): Promise<McpTool[]> {
  return withMcp(conn, async (client) => {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      for (const t of page.tools) {
        tools.push({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema, ...(t.annotations === undefined ? {} : { annotations: t.annotations }) });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  });
}

/** Calls one tool; a tool-level failure is a result with `isError`, not an exception. */
export function callMcpTool(conn: McpConnection, name: string, args: Record<string, unknown>): Promise<McpCallResult> {
  return withMcp(conn, async (client) => {
    const r = await client.callTool({ name, arguments: args });
    return {
      isError: r.isError === true,
      content: (Array.isArray(r.content) ? r.content : []) as Array<Record<string, unknown>>,
      ...(r.structuredContent === undefined ? {} : { structuredContent: r.structuredContent as Record<string, unknown> }),
    };
  });
}
