/**
 * One request through the emulator, in order: Host check (DNS rebinding, 421) -> admin surface ->
 * API key (401, on any other path, known or not, as the service does) -> route match -> stats ->
 * scripted fault taken (reset before, status) -> rate limit (429) -> body read with a streaming
 * size limit (413) -> scripted latency -> contract validation of path, query and body (400) ->
 * handler -> scripted fault after handling (reset after, malformed body) -> JSON answer.
 * `/_emulator/...` is the admin and public surface (no faults, no rate limit, and keys of its own
 * rules): see `routes/admin.ts` and `routes/admin-request.ts`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyChecker } from './auth.js';
import type { ApiRequest, ApiResponse, EmulatorState } from './context.js';
import type { EmulatorOperation } from './contract/types.js';
import { challengeOf, envelope, httpError, ServiceError } from './errors.js';
import type { FaultRule } from './faults.js';
import { ClientGone, coerceQuery, readJsonBody, sendJson } from './http.js';
import { isLoopbackHost } from '../util/loopback.js';
import { randomToken } from './random-id.js';
import { handleMcp, MCP_PATH } from './mcp.js';
import type { StreamRefusal } from './mcp-streams.js';
import { handleAdmin } from './routes/admin.js';
import { mergePatch } from './routes/admin-sessions.js';
import type { SessionRecord } from './store.js';
import { matchRoute, type RouteMatch } from './routes/index.js';
import { validateRequest } from './validate.js';

/** What the dispatcher needs besides the shared state. */
export interface Dispatcher {
  state: EmulatorState;
  keys: KeyChecker;
  /** Host names accepted besides loopback ones; undefined: any Host (a wildcard bind). */
  allowedHosts: ReadonlySet<string> | undefined;
  /** The contract's operations (loaded on first use, with the catalogue). */
  operations(): Promise<Readonly<Record<string, EmulatorOperation>>>;
  log: ((line: string) => void) | undefined;
}

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1).toLowerCase();
  const i = hostHeader.lastIndexOf(':');
  return (i === -1 ? hostHeader : hostHeader.slice(0, i)).toLowerCase();
}


export function sendError(res: ServerResponse, err: ServiceError, requestId: string, headers: Record<string, string> = {}): void {
  sendJson(res, err.status, envelope(err, requestId), { 'x-request-id': requestId, ...challengeOf(err), ...headers });
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A request's path as the log shows it: no query, and no presigned file token or link token (each
 * is a credential: whoever reads the log could fetch the file or complete the connection).
 */
export function loggedPath(url: string): string {
  return url.split('?')[0]!.replace(/^(\/_emulator\/(?:files|link))\/[^/]+/, '$1/(token)');
}

/** Handles one request; never throws for anything a client sent. */
export async function dispatch(d: Dispatcher, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const started = performance.now();
  const requestId = `req_${randomToken(8, 'hex')}`;
  // On 'close', so requests cut by a reset fault are logged too (with "reset" for the status).
  if (d.log !== undefined) {
    const log = d.log;
    res.once('close', () =>
      log(`${req.method ?? '?'} ${loggedPath(req.url ?? '')} ${res.writableFinished ? res.statusCode : 'reset'} ${(performance.now() - started).toFixed(1)}ms`),
    );
  }
  if (d.allowedHosts !== undefined) {
    const name = hostnameOf(req.headers.host ?? '');
    if (!isLoopbackHost(name) && !d.allowedHosts.has(name)) return sendError(res, httpError(421, 'Unrecognised Host header'), requestId);
  }
  let url: URL;
  try {
    url = new URL(req.url ?? '/', 'http://emulator.invalid');
  } catch {
    return sendError(res, httpError(400, 'Malformed request target'), requestId);
  }
  if (url.pathname === '/_emulator' || url.pathname.startsWith('/_emulator/')) return handleAdmin(req, res, url, d.state, requestId);
  const method = req.method ?? 'GET';
  let match: ReturnType<typeof matchRoute> | 'malformed';
  try {
    match = matchRoute(method, url.pathname);
  } catch {
    match = 'malformed';
  }
  const rawKey = req.headers['x-api-key'];
  const tenant = d.keys.tenantFor(Array.isArray(rawKey) ? rawKey[0] : rawKey);
  // Counted before the key is refused, so a request that arrived is counted whatever its answer.
  if (typeof match === 'object' && 'route' in match) d.state.stats.received(match.route.name, tenant);
  else if (MCP_PATH.test(url.pathname)) d.state.stats.received('mcp', tenant);
  if (tenant === undefined) {
    const message = rawKey === undefined || rawKey === '' ? 'Missing API key: send it in the x-api-key header' : 'Invalid API key';
    return sendError(res, httpError(401, message), requestId);
  }
  if (match === 'malformed') return sendError(res, httpError(400, 'Malformed path'), requestId);
  const mcp = MCP_PATH.exec(url.pathname);
  if (mcp !== null) return serveMcp(d, req, res, mcp[1] ?? '', { tenant, requestId });
  if (match === undefined) return sendError(res, httpError(404, `No route for ${method} ${url.pathname}`), requestId);
  if ('allowed' in match) return sendError(res, httpError(405, `Method ${method} not allowed on ${url.pathname}`), requestId, { allow: match.allowed.join(', ') });
  await handleApi(d, req, res, url, match, { tenant, requestId });
}

/**
 * A session's MCP endpoint (`mcp.ts`), with the same error answers as the REST routes, once the
 * stream has a place (`mcp-streams.ts`); the place is given back when the exchange closes, and a
 * stream idle for the configured time is closed.
 */
async function serveMcp(d: Dispatcher, req: IncomingMessage, res: ServerResponse, sessionId: string, who: { tenant: string; requestId: string }): Promise<void> {
  const place = d.state.mcpStreams.acquire(who.tenant);
  if (typeof place === 'string') return refuseStream(res, place, d.state, who.requestId);
  res.once('close', place);
  // The socket's own idle timer: any byte either way restarts it. An open SSE stream ends cleanly
  // (the client may open another); an exchange not answered yet has nothing to end, so it is cut.
  res.setTimeout(d.state.settings.mcpIdleMs, () => {
    if (res.headersSent) res.end();
    else res.destroy();
  });
  try {
    let id: string;
    try {
      id = decodeURIComponent(sessionId);
    } catch {
      throw httpError(400, 'Malformed path');
    }
    await handleMcp(req, res, id, who.tenant, d.state);
    d.state.stats.handled('mcp', who.tenant);
  } catch (err) {
    if (err instanceof ClientGone) return;
    if (res.headersSent) {
      res.destroy();
      return;
    }
    answerError(d, req, res, err, 'mcp', who.requestId, { 'x-request-id': who.requestId });
  }
}

/** When a refused stream may try again: places free as other streams close, which no clock foretells. */
const STREAM_RETRY_AFTER_S = 5;

/**
 * A stream past its bound: 429 when the key holds its share (it can free one itself), 503 when the
 * server holds its total (nobody's fault in particular), each with Retry-After and the envelope.
 */
function refuseStream(res: ServerResponse, why: StreamRefusal, state: EmulatorState, requestId: string): void {
  const limit = state.mcpStreams;
  const err =
    why === 'tenant'
      ? httpError(429, `Too many open MCP streams for this API key (at most ${limit.perTenant}): close one, or let an idle one time out`)
      : httpError(503, `The emulator holds its most open MCP streams (${limit.total} in all); try again shortly`);
  sendError(res, err, requestId, { 'retry-after': String(STREAM_RETRY_AFTER_S) });
}

/** An API route of a known key: faults, rate limit, then the route itself. */
async function handleApi(d: Dispatcher, req: IncomingMessage, res: ServerResponse, url: URL, match: RouteMatch, who: { tenant: string; requestId: string }): Promise<void> {
  const { tenant, requestId } = who;
  const { state } = d;
  const { route } = match;
  const fault = state.faults.take(route.name, tenant);
  const held = fault?.hold === true ? state.faults.hold(tenant) : undefined;
  if (fault?.reset === 'before') {
    req.socket.destroy();
    return;
  }
  if (fault?.status !== undefined) {
    if (fault.latency_ms !== undefined) await sleep(fault.latency_ms);
    await held;
    const body = fault.body ?? envelope(httpError(fault.status, `Injected fault: HTTP ${fault.status}`), requestId);
    sendJson(res, fault.status, body, { 'x-request-id': requestId, ...(fault.retry_after === undefined ? {} : { 'retry-after': String(fault.retry_after) }) });
    return;
  }
  const rate = state.rateLimiter.check(tenant);
  if (!rate.allowed) {
    sendJson(res, 429, { message: state.rateLimiter.message() }, { ...rate.headers, 'retry-after': String(rate.retryAfterSeconds), 'x-request-id': requestId });
    return;
  }
  const headers = { ...rate.headers, 'x-request-id': requestId };
  let result: ApiResponse;
  try {
    result = await runRoute(d, req, url, match, fault, who, held);
    state.stats.handled(route.name, tenant);
    if (fault?.misapply !== undefined) misapply(state, tenant, match.params.session_id, fault.misapply);
  } catch (err) {
    if (err instanceof ClientGone) return;
    if (fault?.reset === 'after' && err instanceof ServiceError) {
      req.socket.destroy();
      return;
    }
    return answerError(d, req, res, err, route.name, requestId, headers);
  }
  respond(req, res, fault, result, headers);
}

/** The `misapply` fault: the stored config changed behind the answer just given (see FaultRule). */
function misapply(state: EmulatorState, tenant: string, sessionId: string | undefined, patch: Record<string, unknown>): void {
  const s = sessionId === undefined ? undefined : state.store.session(sessionId, tenant);
  if (s === undefined) return;
  s.config = mergePatch(s.config, patch) as SessionRecord['config'];
  state.store.changed();
}

function answerError(d: Dispatcher, req: IncomingMessage, res: ServerResponse, err: unknown, routeName: string, requestId: string, headers: Record<string, string>): void {
  if (err instanceof ServiceError) {
    sendError(res, err, requestId, headers);
    // A body cut off at the limit is still arriving: close instead of draining it.
    if (err.status === 413) res.once('finish', () => req.socket?.destroy());
    return;
  }
  d.log?.(`internal error on ${routeName}: ${err instanceof Error ? err.message : String(err)}`);
  sendError(res, httpError(500, 'Internal emulator error'), requestId);
}

/** Body, latency, hold, contract validation, handler. Throws `ServiceError` for the client's mistakes. */
async function runRoute(
  d: Dispatcher,
  req: IncomingMessage,
  url: URL,
  match: RouteMatch,
  fault: FaultRule | undefined,
  who: { tenant: string; requestId: string },
  held: Promise<void> | undefined,
): Promise<ApiResponse> {
  const { route, params } = match;
  const op = (await d.operations())[route.operationId];
  if (op === undefined) throw new Error(`no contract operation ${route.operationId}`);
  let body: unknown = undefined;
  if (req.method === 'POST' || req.method === 'PATCH') body = await readJsonBody(req, d.state.settings.maxBodyBytes);
  // The delay comes after the whole request arrived: a client that gives up waiting has still
  // sent it, and it is handled (the "outcome unknown" case a client must not retry blindly).
  if (fault?.latency_ms !== undefined) await sleep(fault.latency_ms);
  await held;
  if (op.pathParams !== undefined) {
    const errors = await validateRequest(route.operationId, 'pathParams', params, 'params');
    if (errors !== undefined) {
      const badId = params.session_id !== undefined && errors.some((e) => e.startsWith('Error in params.session_id'));
      throw httpError(400, badId ? `Invalid session id '${params.session_id}': expected trs_...` : 'Invalid path parameters', errors);
    }
  }
  const query = coerceQuery(url.searchParams, op.query);
  if (op.query !== undefined) {
    const errors = await validateRequest(route.operationId, 'query', query, 'query');
    if (errors !== undefined) throw httpError(400, 'Invalid query parameters', errors);
  }
  if (op.body !== undefined) {
    const errors = await validateRequest(route.operationId, 'body', body, 'payload');
    if (errors !== undefined) throw httpError(400, 'Invalid request body', errors);
  }
  const apiReq: ApiRequest = { route: route.name, version: route.version, tenant: who.tenant, params, query, body, requestId: who.requestId };
  return route.handler(apiReq, d.state);
}

/** The handler's answer, unless a fault cuts it (reset after) or mangles it (malformed). */
function respond(req: IncomingMessage, res: ServerResponse, fault: FaultRule | undefined, result: ApiResponse, headers: Record<string, string>): void {
  if (fault?.reset === 'after') {
    req.socket.destroy();
    return;
  }
  if (fault?.malformed === true) {
    const text = JSON.stringify(result.body);
    res.writeHead(result.status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(text.slice(0, Math.max(1, Math.floor(text.length / 2))));
    return;
  }
  sendJson(res, result.status, result.body, { ...headers, ...result.headers });
}
