/**
 * The API routes of both versions: name (used by faults and stats, shared by the versions), method,
 * path pattern, contract operation, handler. v3: the 13 endpoints and PATCH; v3.1: the same 13,
 * PATCH, DELETE, attach, config_history, and the connected-account read of the SDK's link flow.
 */
import type { ApiVersion } from '../../wire/json.js';
import type { ApiHandler } from '../context.js';
import type { RouteName } from '../faults.js';
import { getConnectedAccount } from './connected-account.js';
import { execute, executeMeta } from './execute.js';
import { createDownloadUrl, createUploadUrl, deleteItem, listItems } from './files.js';
import { configHistory } from './history.js';
import { createLink } from './link.js';
import { proxyExecute } from './proxy.js';
import { search } from './search.js';
import { attachSession, createSession, deleteSession, getSession } from './session.js';
import { listToolkits } from './toolkits.js';
import { listTools } from './tools.js';
import { updateSession } from './update.js';

export type ApiMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface ApiRoute {
  name: RouteName;
  version: ApiVersion;
  method: ApiMethod;
  pattern: RegExp;
  operationId: string;
  handler: ApiHandler;
}

const id = '(?<session_id>[^/]+)';
const mount = '(?<mount_id>[^/]+)';

/** [name, method, path below /session, v3 operation id (without the V31 suffix), handler]. */
const sessionRoutes: ReadonlyArray<[RouteName, ApiMethod, string, string, ApiHandler]> = [
  ['create', 'POST', '', 'postToolRouterSession', createSession],
  ['get', 'GET', `/${id}`, 'getToolRouterSessionBySessionId', getSession],
  ['update', 'PATCH', `/${id}`, 'patchToolRouterSessionBySessionId', updateSession],
  ['execute', 'POST', `/${id}/execute`, 'postToolRouterSessionBySessionIdExecute', execute],
  ['execute_meta', 'POST', `/${id}/execute_meta`, 'postToolRouterSessionBySessionIdExecuteMeta', executeMeta],
  ['proxy_execute', 'POST', `/${id}/proxy_execute`, 'postToolRouterSessionBySessionIdProxyExecute', proxyExecute],
  ['toolkits', 'GET', `/${id}/toolkits`, 'getToolRouterSessionBySessionIdToolkits', listToolkits],
  ['tools', 'GET', `/${id}/tools`, 'getToolRouterSessionBySessionIdTools', listTools],
  ['search', 'POST', `/${id}/search`, 'postToolRouterSessionBySessionIdSearch', search],
  ['link', 'POST', `/${id}/link`, 'postToolRouterSessionBySessionIdLink', createLink],
  ['mount_items', 'GET', `/${id}/mounts/${mount}/items`, 'getToolRouterSessionBySessionIdMountsByMountIdItems', listItems],
  ['download_url', 'POST', `/${id}/mounts/${mount}/download_url`, 'postToolRouterSessionBySessionIdMountsByMountIdDownloadUrl', createDownloadUrl],
  ['upload_url', 'POST', `/${id}/mounts/${mount}/upload_url`, 'postToolRouterSessionBySessionIdMountsByMountIdUploadUrl', createUploadUrl],
  ['mount_delete', 'POST', `/${id}/mounts/${mount}/delete`, 'postToolRouterSessionBySessionIdMountsByMountIdDelete', deleteItem],
];

/** Only on v3.1 (api facts §7). */
const v31Only: ReadonlyArray<[RouteName, ApiMethod, string, string, ApiHandler]> = [
  ['delete', 'DELETE', `/tool_router/session/${id}`, 'deleteToolRouterSessionBySessionIdV31', deleteSession],
  ['attach', 'POST', `/tool_router/session/${id}/attach`, 'postToolRouterSessionBySessionIdAttachV31', attachSession],
  ['config_history', 'GET', `/tool_router/session/${id}/config_history`, 'getToolRouterSessionBySessionIdConfigHistoryV31', configHistory],
  ['connected_account', 'GET', '/connected_accounts/(?<nanoid>[^/]+)', 'getConnectedAccountsByNanoidV31', getConnectedAccount],
];

function route(version: ApiVersion, name: RouteName, method: ApiMethod, path: string, operationId: string, handler: ApiHandler): ApiRoute {
  return { name, version, method, pattern: new RegExp(`^${path}$`), operationId, handler };
}

const routes: readonly ApiRoute[] = [
  ...sessionRoutes.map(([name, method, path, op, handler]) => route('3', name, method, `/api/v3/tool_router/session${path}`, op, handler)),
  ...sessionRoutes.map(([name, method, path, op, handler]) => route('3.1', name, method, `/api/v3\\.1/tool_router/session${path}`, `${op}V31`, handler)),
  ...v31Only.map(([name, method, path, op, handler]) => route('3.1', name, method, `/api/v3\\.1${path}`, op, handler)),
];

export interface RouteMatch {
  route: ApiRoute;
  params: { session_id?: string; mount_id?: string; nanoid?: string };
}

/**
 * The route for a path, or `undefined`; when the path exists only for other methods, those methods
 * (for the 405's `Allow`, which RFC 9110 §15.5.6 requires). Throws on a malformed escape.
 */
export function matchRoute(method: string, path: string): RouteMatch | { allowed: ApiMethod[] } | undefined {
  const allowed: ApiMethod[] = [];
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (m === null) continue;
    if (r.method !== method) {
      if (!allowed.includes(r.method)) allowed.push(r.method);
      continue;
    }
    const params: RouteMatch['params'] = {};
    for (const [key, value] of Object.entries(m.groups ?? {})) {
      if (value !== undefined) params[key as keyof RouteMatch['params']] = decodeURIComponent(value);
    }
    return { route: r, params };
  }
  return allowed.length > 0 ? { allowed } : undefined;
}
