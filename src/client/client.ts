import type { ApiVersion } from '../wire/json.js';
import type {
  AttachRequest,
  ConnectedAccount,
  ExecuteMetaRequest,
  ExecuteRequest,
  ExecuteResult,
  LinkRequest,
  LinkResult,
  ListMountItemsQuery,
  ListToolkitsQuery,
  ListToolsQuery,
  MountDeleteResult,
  MountDownloadUrl,
  MountItemList,
  MountUploadUrl,
  ProxyExecuteRequest,
  ProxyExecuteResult,
  SearchRequest,
  SearchResult,
  ToolkitList,
  ToolList,
} from '../wire/operations.js';
import type { CreateSessionRequest, CreateSessionRequestV31, UpdateSessionRequest } from '../wire/request.js';
import type { ConfigHistory, ConfigHistoryQuery, DeletedSession, Session } from '../wire/session.js';
import { ApiError } from './errors.js';
import { checkedSession } from './session-answer.js';
import { callMcpTool, listMcpTools, type McpCallResult, type McpConnection, type McpTool } from './mcp.js';
import { createTransport, type Transport, type TransportOptions } from './transport.js';

export { defaultTimeouts, type ClientRetryOptions, type ClientTimeouts } from './transport.js';

export interface ClientOptions extends TransportOptions {
  /**
   * The API version of the paths and shapes: `/api/v3/...` (default, the 13-endpoint surface) or
   * `/api/v3.1/...` (today's clients). DELETE, attach and config history exist on v3.1 only and
   * use their v3.1 routes whichever is chosen (said in the `--verbose` trace).
   */
  apiVersion?: ApiVersion;
}

/**
 * A client for the Tool Router session API, v3 or v3.1. Every method resolves with the decoded body
 * (unknown fields kept) or rejects with an `ApiError`.
 */
export interface SessionClient {
  /** The normalised base URL requests go to. */
  readonly baseUrl: string;
  readonly apiVersion: ApiVersion;
  /** POST /session, 201. Unsafe: retried only when surely not received. */
  createSession(body: CreateSessionRequest | CreateSessionRequestV31): Promise<Session>;
  /** GET /session/{id}, 200. */
  getSession(sessionId: string): Promise<Session>;
  /**
   * PATCH /session/{id}, 200: only the supplied keys change (`null` removes an override). Never
   * retried, as the official SDK does. With `expected_config_version`, a session that moved on is
   * an `ApiError` of kind `conflict` naming both versions.
   */
  updateSession(sessionId: string, body: UpdateSessionRequest): Promise<Session>;
  /** DELETE /api/v3.1/.../session/{id}, 200 `{session_id, deleted: true}`. Unsafe. */
  deleteSession(sessionId: string): Promise<DeletedSession>;
  /** POST /api/v3.1/.../session/{id}/attach, 200: the session, with inline custom tools re-supplied. */
  attachSession(sessionId: string, body?: AttachRequest): Promise<Session>;
  /** GET /api/v3.1/.../session/{id}/config_history, 200: one page, newest first. */
  configHistory(sessionId: string, query?: ConfigHistoryQuery): Promise<ConfigHistory>;
  /** GET /api/v3.1/connected_accounts/{id}, 200: the account a link flow made (its status). */
  getConnectedAccount(accountId: string): Promise<ConnectedAccount>;
  /** POST /session/{id}/execute, 200 (a tool failure is a 200 with `error`). Unsafe. */
  execute(sessionId: string, body: ExecuteRequest): Promise<ExecuteResult>;
  /** POST /session/{id}/execute_meta, 200. Unsafe (meta tools can act). */
  executeMeta(sessionId: string, body: ExecuteMetaRequest): Promise<ExecuteResult>;
  /** POST /session/{id}/link, 201. Unsafe. */
  link(sessionId: string, body: LinkRequest): Promise<LinkResult>;
  /** POST /session/{id}/proxy_execute, 200. Unsafe. */
  proxyExecute(sessionId: string, body: ProxyExecuteRequest): Promise<ProxyExecuteResult>;
  /** GET /session/{id}/toolkits, 200; `toolkits` is sent comma-joined. */
  listToolkits(sessionId: string, query?: ListToolkitsQuery): Promise<ToolkitList>;
  /** GET /session/{id}/tools, 200 (v3.1: one page; `limit` and `cursor`). */
  listTools(sessionId: string, query?: ListToolsQuery): Promise<ToolList>;
  /** POST /session/{id}/search, 200. Safe (no side effects). */
  search(sessionId: string, body: SearchRequest): Promise<SearchResult>;
  /** GET /session/{id}/mounts/{mount}/items, 200. Mount id defaults to `files`. */
  listMountItems(sessionId: string, query?: ListMountItemsQuery, mountId?: string): Promise<MountItemList>;
  /** POST /session/{id}/mounts/{mount}/download_url, 201. Safe. */
  mountDownloadUrl(sessionId: string, mountRelativePath: string, mountId?: string): Promise<MountDownloadUrl>;
  /** POST /session/{id}/mounts/{mount}/upload_url, 201. Unsafe. */
  mountUploadUrl(sessionId: string, mountRelativePath: string, options?: { mimetype?: string; mountId?: string }): Promise<MountUploadUrl>;
  /** POST /session/{id}/mounts/{mount}/delete, 200. Safe (idempotent by contract). */
  mountDelete(sessionId: string, mountRelativePath: string, mountId?: string): Promise<MountDeleteResult>;
  /** What an agent connected to the session's `mcp.url` sees: its tools (MCP `tools/list`). */
  mcpTools(sessionId: string): Promise<McpTool[]>;
  /** Calls one tool over the session's MCP endpoint (`tools/call`). */
  mcpCall(sessionId: string, name: string, args: Record<string, unknown>): Promise<McpCallResult>;
  /**
   * Closes the client's own connections (not an injected dispatcher) once the requests in flight
   * end; with `abort`, at once (an interrupted run that waited long enough), failing them.
   */
  close(options?: { abort?: boolean }): Promise<void>;
}

/** Paths of one version. */
interface Paths {
  version: ApiVersion;
  session(id?: string): string;
  mount(id: string, mountId: string | undefined): string;
}

function pathsFor(version: ApiVersion): Paths {
  const api = version === '3.1' ? '/api/v3.1/tool_router' : '/api/v3/tool_router';
  const session = (id?: string): string => (id === undefined ? `${api}/session` : `${api}/session/${encodeURIComponent(id)}`);
  return { version, session, mount: (id, mountId) => `${session(id)}/mounts/${encodeURIComponent(mountId ?? 'files')}` };
}

/** Sets query parameters that have a value (lists comma-joined, facts §1). */
function query(values: Record<string, string | number | boolean | readonly string[] | undefined>): URLSearchParams {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value !== undefined) q.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  return q;
}

/** Creates a client. Throws `UsageError` for a base URL the key may not be sent to. */
export function createClient(options: ClientOptions): SessionClient {
  const transport = createTransport(options);
  const paths = pathsFor(options.apiVersion ?? '3');
  return {
    baseUrl: transport.baseUrl,
    apiVersion: paths.version,
    ...sessionOperations(transport, paths),
    ...lifecycleOperations(transport, paths),
    ...mountOperations(transport, paths),
    ...mcpOperations(transport, paths, options.apiKey),
    close: (options) => transport.close(options),
  };
}

type Operations<K extends keyof SessionClient> = Pick<SessionClient, K>;

function sessionOperations(t: Transport, p: Paths): Operations<'createSession' | 'getSession' | 'execute' | 'executeMeta' | 'link' | 'proxyExecute' | 'listToolkits' | 'listTools' | 'search'> {
  const s = p.session;
  return {
    createSession: async (body) => checkedSession(await t.call<Session>({ name: 'create session', method: 'POST', path: s(), expect: 201, callClass: 'unsafe', body }), { method: 'POST', path: s(), status: 201 }),
    getSession: async (id) => checkedSession(await t.call<Session>({ name: 'get session', method: 'GET', path: s(id), expect: 200, callClass: 'safe' }), { method: 'GET', path: s(id), status: 200, id }),
    execute: (id, body) => t.call({ name: 'execute', method: 'POST', path: `${s(id)}/execute`, expect: 200, callClass: 'unsafe', body }),
    executeMeta: (id, body) => t.call({ name: 'execute meta tool', method: 'POST', path: `${s(id)}/execute_meta`, expect: 200, callClass: 'unsafe', body }),
    link: (id, body) => t.call({ name: 'link', method: 'POST', path: `${s(id)}/link`, expect: 201, callClass: 'unsafe', body }),
    proxyExecute: (id, body) => t.call({ name: 'proxy execute', method: 'POST', path: `${s(id)}/proxy_execute`, expect: 200, callClass: 'unsafe', body }),
    listToolkits: (id, q = {}) =>
      t.call({ name: 'list toolkits', method: 'GET', path: `${s(id)}/toolkits`, expect: 200, callClass: 'safe' }, query({ cursor: q.cursor, limit: q.limit, toolkits: q.toolkits, is_connected: q.is_connected, search: q.search })),
    listTools: (id, q = {}) => t.call({ name: 'list tools', method: 'GET', path: `${s(id)}/tools`, expect: 200, callClass: 'safe' }, query(p.version === '3.1' ? { cursor: q.cursor, limit: q.limit } : {})),
    search: (id, body) => t.call({ name: 'search', method: 'POST', path: `${s(id)}/search`, expect: 200, callClass: 'safe', body }),
  };
}

/** The operations of the session's lifecycle: PATCH on the chosen version; the rest exist on v3.1 only. */
function lifecycleOperations(t: Transport, p: Paths): Operations<'updateSession' | 'deleteSession' | 'attachSession' | 'configHistory' | 'getConnectedAccount'> {
  const v31 = pathsFor('3.1');
  const only31 = (what: string): void => {
    if (p.version !== '3.1') t.trace(`* ${what} exists on API v3.1 only: using its /api/v3.1 route (--api-version ${p.version} for the rest)`);
  };
  return {
    updateSession: async (id, body) => {
      try {
        // Never retried: a PATCH that may have landed must not be sent twice (the SDK sets maxRetries 0 too).
        const answer = await t.call<Session>({ name: 'update session', method: 'PATCH', path: p.session(id), expect: 200, callClass: 'unsafe', body, retry: false });
        return checkedSession(answer, { method: 'PATCH', path: p.session(id), status: 200, id });
      } catch (err) {
        if (err instanceof ApiError && err.kind === 'http' && err.status === 409) throw await conflict(t, p, id, body, err);
        throw err;
      }
    },
    deleteSession: (id) => {
      only31('delete session');
      return t.call({ name: 'delete session', method: 'DELETE', path: v31.session(id), expect: 200, callClass: 'unsafe' });
    },
    attachSession: (id, body = {}) => {
      only31('attach session');
      const path = `${v31.session(id)}/attach`;
      return t.call<Session>({ name: 'attach session', method: 'POST', path, expect: 200, callClass: 'unsafe', body }).then((s) => checkedSession(s, { method: 'POST', path, status: 200, id }));
    },
    configHistory: (id, q = {}) => {
      only31('config history');
      return t.call({ name: 'config history', method: 'GET', path: `${v31.session(id)}/config_history`, expect: 200, callClass: 'safe' }, query({ cursor: q.cursor, limit: q.limit }));
    },
    getConnectedAccount: (id) => {
      only31('connected account read');
      return t.call({ name: 'get connected account', method: 'GET', path: `/api/v3.1/connected_accounts/${encodeURIComponent(id)}`, expect: 200, callClass: 'safe' });
    },
  };
}

/**
 * The 409 of a conditional PATCH as its own error: the version the update expected and the one the
 * session is at now (read again, since the service's message is free text).
 */
async function conflict(t: Transport, p: Paths, id: string, body: UpdateSessionRequest, err: ApiError): Promise<ApiError> {
  const expected = body.expected_config_version;
  const session = await t
    .call<Session>({ name: 'get session', method: 'GET', path: p.session(id), expect: 200, callClass: 'safe' })
    .then((s) => checkedSession(s, { method: 'GET', path: p.session(id), status: 200, id }))
    .catch(() => undefined);
  const current = typeof session?.config_version === 'number' ? session.config_version : undefined;
  const versions = `${expected === undefined ? 'no expected version was sent' : `the update expected config_version ${expected}`}, the session is at ${current === undefined ? 'an unknown version' : `config_version ${current}`}`;
  return new ApiError(`session ${id} changed since it was read: ${versions}`, {
    kind: 'conflict',
    method: err.method,
    path: err.path,
    status: 409,
    ...(err.slug === undefined ? {} : { slug: err.slug }),
    ...(err.code === undefined ? {} : { code: err.code }),
    ...(err.request_id === undefined ? {} : { request_id: err.request_id }),
    ...(expected === undefined ? {} : { expected_config_version: expected }),
    ...(current === undefined ? {} : { current_config_version: current }),
    ...(session === undefined ? {} : { current_session: session }),
    suggested_fix: 'read the session again, reapply the change to its current config, and update with its config_version',
    cause: err,
  });
}

function mountOperations(t: Transport, p: Paths): Operations<'listMountItems' | 'mountDownloadUrl' | 'mountUploadUrl' | 'mountDelete'> {
  return {
    listMountItems: (id, q = {}, mountId) =>
      t.call({ name: 'list mount items', method: 'GET', path: `${p.mount(id, mountId)}/items`, expect: 200, callClass: 'safe' }, query({ cursor: q.cursor, limit: q.limit, mount_relative_prefix: q.mount_relative_prefix })),
    mountDownloadUrl: (id, path, mountId) =>
      t.call({ name: 'mount download url', method: 'POST', path: `${p.mount(id, mountId)}/download_url`, expect: 201, callClass: 'safe', body: { mount_relative_path: path } }),
    mountUploadUrl: (id, path, opts = {}) =>
      t.call({
        name: 'mount upload url',
        method: 'POST',
        path: `${p.mount(id, opts.mountId)}/upload_url`,
        expect: 201,
        callClass: 'unsafe',
        body: opts.mimetype === undefined ? { mount_relative_path: path } : { mount_relative_path: path, mimetype: opts.mimetype },
      }),
    mountDelete: (id, path, mountId) =>
      t.call({ name: 'mount delete', method: 'POST', path: `${p.mount(id, mountId)}/delete`, expect: 200, callClass: 'safe', body: { mount_relative_path: path } }),
  };
}

/** The session's MCP endpoint, found through GET session (its `mcp.url`). */
function mcpOperations(t: Transport, p: Paths, apiKey: string): Operations<'mcpTools' | 'mcpCall'> {
  const connection = async (id: string): Promise<McpConnection> => {
    const s = checkedSession(await t.call<Session>({ name: 'get session', method: 'GET', path: p.session(id), expect: 200, callClass: 'safe' }), { method: 'GET', path: p.session(id), status: 200, id });
    t.trace(`* MCP endpoint of ${id}: ${s.mcp.url}`);
    return { url: s.mcp.url, baseUrl: t.baseUrl, apiKey, timeoutMs: t.callBudgetMs() };
  };
  return {
    mcpTools: async (id) => listMcpTools(await connection(id)),
    mcpCall: async (id, name, args) => callMcpTool(await connection(id), name, args),
  };
}

/** The names of the tools an MCP client sees for a session, in the order it lists them. */
export async function mcpToolNames(client: SessionClient, sessionId: string): Promise<string[]> {
  return (await client.mcpTools(sessionId)).map((t) => t.name);
}
