/** The 13 API routes: name (used by faults and stats), method, path pattern, contract operation, handler. */
import type { ApiHandler } from '../context.js';
import type { RouteName } from '../faults.js';
import { execute, executeMeta } from './execute.js';
import { createDownloadUrl, createUploadUrl, deleteItem, listItems } from './files.js';
import { createLink } from './link.js';
import { proxyExecute } from './proxy.js';
import { search } from './search.js';
import { createSession, getSession } from './session.js';
import { listToolkits } from './toolkits.js';
import { listTools } from './tools.js';

export interface ApiRoute {
  name: RouteName;
  method: 'GET' | 'POST';
  pattern: RegExp;
  operationId: string;
  handler: ApiHandler;
}

const S = '/api/v3/tool_router/session';
const seg = '([^/]+)';

function route(name: RouteName, method: 'GET' | 'POST', path: string, operationId: string, handler: ApiHandler): ApiRoute {
  return { name, method, pattern: new RegExp(`^${path}$`), operationId, handler };
}

const routes: readonly ApiRoute[] = [
  route('create', 'POST', S, 'postToolRouterSession', createSession),
  route('get', 'GET', `${S}/${seg}`, 'getToolRouterSessionBySessionId', getSession),
  route('execute', 'POST', `${S}/${seg}/execute`, 'postToolRouterSessionBySessionIdExecute', execute),
  route('execute_meta', 'POST', `${S}/${seg}/execute_meta`, 'postToolRouterSessionBySessionIdExecuteMeta', executeMeta),
  route('proxy_execute', 'POST', `${S}/${seg}/proxy_execute`, 'postToolRouterSessionBySessionIdProxyExecute', proxyExecute),
  route('toolkits', 'GET', `${S}/${seg}/toolkits`, 'getToolRouterSessionBySessionIdToolkits', listToolkits),
  route('tools', 'GET', `${S}/${seg}/tools`, 'getToolRouterSessionBySessionIdTools', listTools),
  route('search', 'POST', `${S}/${seg}/search`, 'postToolRouterSessionBySessionIdSearch', search),
  route('link', 'POST', `${S}/${seg}/link`, 'postToolRouterSessionBySessionIdLink', createLink),
  route('mount_items', 'GET', `${S}/${seg}/mounts/${seg}/items`, 'getToolRouterSessionBySessionIdMountsByMountIdItems', listItems),
  route('download_url', 'POST', `${S}/${seg}/mounts/${seg}/download_url`, 'postToolRouterSessionBySessionIdMountsByMountIdDownloadUrl', createDownloadUrl),
  route('upload_url', 'POST', `${S}/${seg}/mounts/${seg}/upload_url`, 'postToolRouterSessionBySessionIdMountsByMountIdUploadUrl', createUploadUrl),
  route('mount_delete', 'POST', `${S}/${seg}/mounts/${seg}/delete`, 'postToolRouterSessionBySessionIdMountsByMountIdDelete', deleteItem),
];

export interface RouteMatch {
  route: ApiRoute;
  params: { session_id?: string; mount_id?: string };
}

/** The route for a path, or `undefined`; `methodMismatch` when the path exists for another method. */
export function matchRoute(method: string, path: string): RouteMatch | { methodMismatch: true } | undefined {
  let mismatch = false;
  for (const r of routes) {
    const m = r.pattern.exec(path);
    if (m === null) continue;
    if (r.method !== method) {
      mismatch = true;
      continue;
    }
    const params: RouteMatch['params'] = {};
    if (m[1] !== undefined) params.session_id = decodeURIComponent(m[1]);
    if (m[2] !== undefined) params.mount_id = decodeURIComponent(m[2]);
    return { route: r, params };
  }
  return mismatch ? { methodMismatch: true } : undefined;
}
