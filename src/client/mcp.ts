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

const MIB = 1024 * 1024;
/**
 * What one exchange may read, all answers together: a tools list of a few hundred tools is well
 * under 1 MiB. A hostile endpoint's 300 MB `tools/list` was read whole (4.4 GB, then abort).
 */
export const MAX_MCP_BYTES = 16 * MIB;
/** Pages of `tools/list` followed; an endpoint that always sends a `nextCursor` is stopped here. */
export const MAX_MCP_PAGES = 100;
/** Tools listed at most; a session's tools are a few dozen. */
export const MAX_MCP_TOOLS = 10_000;

/** The exchange's deadline, for every SDK request (the SDK's own timeout is 60 s per request). */
interface Limits {
  signal: AbortSignal;
  timeout: number;
}

/**
 * fetch with the exchange's deadline and byte budget. The SDK replaces `requestInit.signal` with
 * its own, so a deadline given there never reached a slow answer: it is joined here instead, and
 * every answer's body counts against one budget as it streams, erroring the read past it.
 */
function boundedFetch(deadline: AbortSignal, budget: { left: number; exceeded(): void }): typeof fetch {
  return async (input, init) => {
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
    const response = await fetch(input, { ...init, signal });
    if (response.body === null) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          budget.left -= chunk.byteLength;
          if (budget.left >= 0) return out.enqueue(chunk);
          out.error(new Error('answer too large'));
          budget.exceeded();
        },
      }),
    );
    return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

/** Connects (initialize), runs `work`, and closes, whatever happens. */
async function withMcp<T>(conn: McpConnection, work: (client: McpClient, limits: Limits) => Promise<T>): Promise<T> {
  const target = new URL(conn.url);
  if (target.origin !== new URL(conn.baseUrl).origin) {
    throw new ApiError(`the session's MCP URL is on ${target.origin}, not on the service's origin ${new URL(conn.baseUrl).origin}; the API key is only sent to the service`, {
      kind: 'decode',
      method: 'POST',
      path: target.pathname,
    });
  }
  const { Client, StreamableHTTPClientTransport } = await mcpClientSdk();
  const timeout = conn.timeoutMs ?? 30_000;
  const signal = AbortSignal.timeout(timeout);
  // Past the byte budget the exchange ends at once: an event stream's reader fails apart from the
  // request that waits for it, which would otherwise wait out the whole timeout.
  const overflow = new AbortController();
  const budget = { left: MAX_MCP_BYTES, exceeded: () => overflow.abort() };
  const client = new Client({ name: 'sessionctl', version: '1' });
  const transport = new StreamableHTTPClientTransport(target, { requestInit: { headers: { 'x-api-key': conn.apiKey }, redirect: 'error' }, fetch: boundedFetch(signal, budget) });
  const limits: Limits = { signal: AbortSignal.any([signal, overflow.signal]), timeout };
  try {
    await client.connect(transport, limits);
    return await work(client, limits);
  } catch (err) {
    if (budget.left < 0) throw new ApiError(`the MCP endpoint sent more than ${MAX_MCP_BYTES / MIB} MiB; stopped reading`, { kind: 'decode', method: 'POST', path: target.pathname });
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
  return withMcp(conn, async (client, limits) => {
    const tools: McpTool[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      if (++pages > MAX_MCP_PAGES) throw listRefused(conn, `more than ${MAX_MCP_PAGES} pages of tools (it keeps sending a next cursor)`);
      const page = await client.listTools(cursor === undefined ? {} : { cursor }, limits);
      if (tools.length + page.tools.length > MAX_MCP_TOOLS) throw listRefused(conn, `more than ${MAX_MCP_TOOLS.toLocaleString('en')} tools`);
      for (const t of page.tools) {
        tools.push({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema, ...(t.annotations === undefined ? {} : { annotations: t.annotations }) });
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    return tools;
  });
}

function listRefused(conn: McpConnection, what: string): ApiError {
  return new ApiError(`the MCP endpoint listed ${what}; stopped`, { kind: 'decode', method: 'POST', path: new URL(conn.url).pathname });
}

/** Calls one tool; a tool-level failure is a result with `isError`, not an exception. */
export function callMcpTool(conn: McpConnection, name: string, args: Record<string, unknown>): Promise<McpCallResult> {
  return withMcp(conn, async (client, limits) => {
    const r = await client.callTool({ name, arguments: args }, undefined, limits);
    return {
      isError: r.isError === true,
      content: (Array.isArray(r.content) ? r.content : []) as Array<Record<string, unknown>>,
      ...(r.structuredContent === undefined ? {} : { structuredContent: r.structuredContent as Record<string, unknown> }),
    };
  });
}
