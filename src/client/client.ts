import type { ExecuteMetaRequest, ExecuteRequest, ExecuteResult, LinkRequest, LinkResult, ListMountItemsQuery, ListToolkitsQuery, MountDeleteResult, MountDownloadUrl, MountItemList, MountUploadUrl, ProxyExecuteRequest, ProxyExecuteResult, SearchRequest, SearchResult, ToolkitList, ToolList } from '../wire/operations.js';
import type { CreateSessionRequest } from '../wire/request.js';
import type { Session } from '../wire/session.js';
import { createTransport, type TransportOptions } from './transport.js';

export { defaultTimeouts, type ClientRetryOptions, type ClientTimeouts } from './transport.js';

export type ClientOptions = TransportOptions;

const API = '/api/v3/tool_router';

/**
 * A client for the 13 Tool Router v3 endpoints. Every method resolves with the decoded body
 * (unknown fields kept) or rejects with an `ApiError`.
 */
export interface SessionClient {
  /** The normalised base URL requests go to. */
  readonly baseUrl: string;
  /** POST /session, 201. Unsafe: retried only when surely not received. */
  createSession(body: CreateSessionRequest): Promise<Session>;
  /** GET /session/{id}, 200. */
  getSession(sessionId: string): Promise<Session>;
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
  /** GET /session/{id}/tools, 200. */
  listTools(sessionId: string): Promise<ToolList>;
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
  /** Closes the client's own connections (not an injected dispatcher). */
  close(): Promise<void>;
}

/** Creates a client. Throws `UsageError` for a base URL the key may not be sent to. */
export function createClient(options: ClientOptions): SessionClient {
  const transport = createTransport(options);
  const call = transport.call;
  const session = (id: string): string => `${API}/session/${encodeURIComponent(id)}`;
  const mount = (id: string, mountId: string | undefined): string => `${session(id)}/mounts/${encodeURIComponent(mountId ?? 'files')}`;

  return {
    baseUrl: transport.baseUrl,
    createSession: (body) => call({ name: 'create session', method: 'POST', path: `${API}/session`, expect: 201, callClass: 'unsafe', body }),
    getSession: (id) => call({ name: 'get session', method: 'GET', path: session(id), expect: 200, callClass: 'safe' }),
    execute: (id, body) => call({ name: 'execute', method: 'POST', path: `${session(id)}/execute`, expect: 200, callClass: 'unsafe', body }),
    executeMeta: (id, body) => call({ name: 'execute meta tool', method: 'POST', path: `${session(id)}/execute_meta`, expect: 200, callClass: 'unsafe', body }),
    link: (id, body) => call({ name: 'link', method: 'POST', path: `${session(id)}/link`, expect: 201, callClass: 'unsafe', body }),
    proxyExecute: (id, body) => call({ name: 'proxy execute', method: 'POST', path: `${session(id)}/proxy_execute`, expect: 200, callClass: 'unsafe', body }),
    listToolkits: (id, query = {}) => {
      const q = new URLSearchParams();
      if (query.cursor !== undefined) q.set('cursor', query.cursor);
      if (query.limit !== undefined) q.set('limit', String(query.limit));
      if (query.toolkits !== undefined) q.set('toolkits', query.toolkits.join(','));
      if (query.is_connected !== undefined) q.set('is_connected', String(query.is_connected));
      if (query.search !== undefined) q.set('search', query.search);
      return call({ name: 'list toolkits', method: 'GET', path: `${session(id)}/toolkits`, expect: 200, callClass: 'safe' }, q);
    },
    listTools: (id) => call({ name: 'list tools', method: 'GET', path: `${session(id)}/tools`, expect: 200, callClass: 'safe' }),
    search: (id, body) => call({ name: 'search', method: 'POST', path: `${session(id)}/search`, expect: 200, callClass: 'safe', body }),
    listMountItems: (id, query = {}, mountId) => {
      const q = new URLSearchParams();
      if (query.cursor !== undefined) q.set('cursor', query.cursor);
      if (query.limit !== undefined) q.set('limit', String(query.limit));
      if (query.mount_relative_prefix !== undefined) q.set('mount_relative_prefix', query.mount_relative_prefix);
      return call({ name: 'list mount items', method: 'GET', path: `${mount(id, mountId)}/items`, expect: 200, callClass: 'safe' }, q);
    },
    mountDownloadUrl: (id, p, mountId) =>
      call({ name: 'mount download url', method: 'POST', path: `${mount(id, mountId)}/download_url`, expect: 201, callClass: 'safe', body: { mount_relative_path: p } }),
    mountUploadUrl: (id, p, opts = {}) =>
      call({
        name: 'mount upload url',
        method: 'POST',
        path: `${mount(id, opts.mountId)}/upload_url`,
        expect: 201,
        callClass: 'unsafe',
        body: opts.mimetype === undefined ? { mount_relative_path: p } : { mount_relative_path: p, mimetype: opts.mimetype },
      }),
    mountDelete: (id, p, mountId) =>
      call({ name: 'mount delete', method: 'POST', path: `${mount(id, mountId)}/delete`, expect: 200, callClass: 'safe', body: { mount_relative_path: p } }),
    close: () => transport.close(),
  };
}
