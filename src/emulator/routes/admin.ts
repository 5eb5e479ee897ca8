/**
 * The admin and public surface under `/_emulator/`: no faults, no rate limit (tests script the
 * emulator through these). Bodies are JSON; answers are JSON. Whom a request acts for is
 * `admin-request.ts`: without configured keys, anyone for the whole server; with `--api-key` keys,
 * a key is needed, an API key acts for its own tenant alone ("own" below) and the admin key for the
 * whole server ("all" below). The link page and presigned file URLs carry their own tokens instead.
 *
 *   GET    /_emulator/health                  200 {status: "ok", sessions (own), uptime_ms}
 *   POST   /_emulator/reset                   200 {reset: true}: forget sessions, connections, files,
 *                                             faults, stats and rate-limit windows (settings stay);
 *                                             a tenant's: its own alone
 *   GET    /_emulator/stats                   200 {routes: {<route>: {received, handled}}, total} (own)
 *                                             received = arrived (faulted or not); handled = the
 *                                             handler ran (its effect happened)
 *   POST   /_emulator/stats/reset             200 {reset: true}
 *   GET    /_emulator/faults                  200 {faults: [rule...]}
 *   POST   /_emulator/faults                  201 {faults: [rule...]}; body: one rule, an array, or
 *                                             {faults: [...]}. Rule: {route: <route>|"*", status?,
 *                                             body?, retry_after?, latency_ms?, reset?: "before"|"after",
 *                                             malformed?: true, hold?: true, times?: N (default 1),
 *                                             probability?: 0..1}
 *   POST   /_emulator/faults/release          200 {released: N}: the requests `hold` stopped go on
 *   DELETE /_emulator/faults                  200 {cleared: N} (held requests go on)
 *   DELETE /_emulator/faults/{id}             200 {deleted: id} | 404
 *   GET    /_emulator/rate-limit              200 {per_window: N|null, window_ms}
 *   POST   /_emulator/rate-limit              200 same; body {per_minute: N|null} or {limit: N|null, window_ms?};
 *                                             the whole server's setting: 403 for an API key
 *   GET    /_emulator/counts[?user_id=U]      200 {sessions, users, by_config_version: {V: N}, users_with_several,
 *                                             several: [{user_id, sessions}] (first 100)}: a fleet counted
 *   GET    /_emulator/sessions                200 {sessions: [{session_id, user_id, created_at, config_version}]}
 *                                             (own, oldest first)
 *   GET    /_emulator/sessions/{id}           200 {session_id, config, tool_router_tools, config_version,
 *                                             created_at, mounts} (own; config as v3 answers
 *                                             it, or v3.1 with ?version=3.1) | 404
 *   DELETE /_emulator/sessions/{id}           200 {deleted: id}: the session is gone (its files too);
 *                                             the API then answers 404 for it
 *   POST   /_emulator/sessions/{id}/connections  201 {connected_account_id, toolkit, user_id, status}: a
 *                                             connection for the session's user without a link flow;
 *                                             body {toolkit, status?: "ACTIVE" (default) | "INITIATED"}
 *   PATCH  /_emulator/sessions/{id}           200 same: a PATCH as another writer would send it (the
 *                                             v3.1 body and rules; expected_config_version -> 409)
 *   POST   /_emulator/sessions/{id}/config    200 same (drift injection); body {config?: <JSON merge
 *                                             patch (RFC 7386) applied to the stored effective config>,
 *                                             tool_router_tools?: string[], config_version?: int};
 *                                             config_version is bumped unless given
 *   POST   /_emulator/connected_accounts      201 {connected_account_id, toolkit, user_id, status}: an
 *                                             account of the x-api-key's project without a link flow;
 *                                             body {user_id, toolkit, id?: "ca_...", status?} (409: id taken)
 *   POST   /_emulator/connections/{id}/approve  200 {connected_account_id, toolkit, user_id, status: "ACTIVE"}:
 *                                             completes a link flow without a browser (as the link page does)
 *   GET    /_emulator/link/{token}            completes a link flow: the connection becomes ACTIVE;
 *                                             302 to the link's callback_url (with status and
 *                                             connected_account_id) or 200 {status, connected_account_id}
 *   PUT    /_emulator/files/{token}           presigned upload (token from upload_url): 200 {size}
 *   GET    /_emulator/files/{token}           presigned download (token from download_url): the bytes
 *
 * Route names (for faults and stats): create, get, execute, execute_meta, link, proxy_execute,
 * toolkits, tools, search, mount_items, download_url, upload_url, mount_delete, update, delete,
 * attach, config_history, connected_account, mcp (both API versions share them).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorState } from '../context.js';
import { isLoopbackHost } from '../../util/loopback.js';
import { challengeOf, envelope, httpError, ServiceError } from '../errors.js';
import { ClientGone, sendJson } from '../http.js';
import { adminAccounts } from './admin-accounts.js';
import { adminCounts } from './admin-counts.js';
import { adminFaults } from './admin-faults.js';
import { adminCallerOf, jsonBody, requireServer, scopeOf, sees, type AdminAnswer, type AdminRequest } from './admin-request.js';
import { adminSessions, approveLinkFlow } from './admin-sessions.js';
import { serveFile } from './files.js';
import { completeLink } from './link.js';

const startedAt = Date.now();

export async function handleAdmin(req: IncomingMessage, res: ServerResponse, url: URL, state: EmulatorState, requestId: string): Promise<void> {
  const method = req.method ?? 'GET';
  try {
    const raw = url.pathname.split('/').slice(2);
    // The link page and presigned file URLs carry their own token and are visited like any URL.
    const byToken = raw[0] === 'link' || raw[0] === 'files';
    if (!byToken) refuseForeign(req, state);
    // Any other request is checked for its key before its path is read, as on the API: without
    // one, a shared emulator answers 401 whatever the path holds.
    const caller = byToken ? undefined : adminCallerOf(req, state);
    let parts: string[];
    try {
      parts = raw.map((p) => decodeURIComponent(p));
    } catch {
      throw httpError(400, 'Malformed path');
    }
    const [head, id] = parts;
    if (byToken && head === 'link' && id !== undefined && method === 'GET') return completeLink(id, state, res, requestId);
    if (byToken && head === 'files' && id !== undefined && (method === 'GET' || method === 'PUT')) return await serveFile(method, id, req, res, state, requestId);
    if (byToken) refuseForeign(req, state);
    const admin: AdminRequest = { req, method, parts, query: url.searchParams, state, caller: caller ?? adminCallerOf(req, state) };
    const answer =
      (await adminRoute(admin)) ?? (await adminFaults(admin)) ?? approveLinkFlow(admin) ?? adminCounts(admin) ?? (await adminAccounts(admin)) ?? (await adminSessions(admin));
    if (answer === undefined) throw httpError(404, `No admin route ${method} ${url.pathname}`);
    sendJson(res, answer.status, answer.body, { 'x-request-id': requestId });
  } catch (err) {
    if (err instanceof ClientGone) return;
    if (!(err instanceof ServiceError)) state.log?.(`internal error on ${method} ${url.pathname}: ${err instanceof Error ? err.message : String(err)}`);
    const e = err instanceof ServiceError ? err : httpError(500, 'Internal emulator error');
    sendJson(res, e.status, envelope(e, requestId), { 'x-request-id': requestId, ...challengeOf(e) });
    if (e.status === 413) res.once('finish', () => req.socket?.destroy());
  }
}

/**
 * The admin surface changes state, without a key when none is configured, so no web page may
 * drive it (issue 14): a request with an `Origin` other than the emulator's own is 403, and a body that is not declared JSON is
 * 415 (an HTML form or a `text/plain` fetch reaches a server without a CORS preflight).
 */
function refuseForeign(req: IncomingMessage, state: EmulatorState): void {
  const origin = req.headers.origin;
  if (origin !== undefined && !sameOrigin(origin, state.baseUrl)) throw httpError(403, 'Cross-origin requests to the emulator admin surface are refused');
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (hasBody && type !== 'application/json') throw httpError(415, 'Admin requests with a body must send it as application/json');
}

/** The emulator's own origin, by any loopback name for its address. */
function sameOrigin(origin: string, baseUrl: string): boolean {
  let o: URL;
  try {
    o = new URL(origin);
  } catch {
    return false;
  }
  const own = new URL(baseUrl);
  return o.protocol === own.protocol && o.port === own.port && (o.hostname === own.hostname || (isLoopbackHost(o.hostname) && isLoopbackHost(own.hostname)));
}

/** health, reset, stats, rate-limit. */
async function adminRoute(a: AdminRequest): Promise<AdminAnswer | undefined> {
  const { method, state } = a;
  const [head, id] = a.parts;
  const scope = scopeOf(a);
  const ok = (status: number, body: unknown): AdminAnswer => ({ status, body });
  if (head === 'health' && method === 'GET') return ok(200, { status: 'ok', sessions: sessionCount(a), uptime_ms: Date.now() - startedAt });
  if (head === 'reset' && method === 'POST') {
    if (scope === undefined) state.store.reset();
    else await state.store.resetTenant(scope);
    state.faults.clear(scope);
    state.stats.reset(scope);
    state.rateLimiter.reset(scope);
    return ok(200, { reset: true });
  }
  if (head === 'stats' && id === undefined && method === 'GET') return ok(200, state.stats.snapshot(scope));
  if (head === 'stats' && id === 'reset' && method === 'POST') {
    state.stats.reset(scope);
    return ok(200, { reset: true });
  }
  if (head === 'rate-limit' && method === 'GET') return ok(200, state.rateLimiter.settings);
  if (head === 'rate-limit' && method === 'POST') {
    requireServer(a, 'The rate limit');
    const body = (await jsonBody(a)) as Record<string, unknown>;
    const limit = body['per_minute'] !== undefined ? body['per_minute'] : body['limit'];
    const windowMs = body['per_minute'] !== undefined ? 60_000 : (body['window_ms'] ?? 60_000);
    if (limit !== null && !(Number.isInteger(limit) && (limit as number) >= 1)) throw httpError(400, 'limit must be a positive integer or null');
    if (!(Number.isInteger(windowMs) && (windowMs as number) >= 1)) throw httpError(400, 'window_ms must be a positive integer');
    state.rateLimiter.configure(limit === null ? undefined : (limit as number), windowMs as number);
    return ok(200, state.rateLimiter.settings);
  }
  return undefined;
}

/** The sessions the caller sees: all of them for the whole server (a size, not a count). */
function sessionCount(a: AdminRequest): number {
  if (scopeOf(a) === undefined) return a.state.store.sessions.size;
  let n = 0;
  for (const s of a.state.store.sessions.values()) if (sees(a, s.tenant)) n++;
  return n;
}
