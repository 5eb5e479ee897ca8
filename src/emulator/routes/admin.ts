/**
 * The admin and public surface under `/_emulator/`. No API key, no faults, no rate limit (the
 * emulator binds loopback; tests script it through these). Bodies are JSON; answers are JSON.
 *
 *   GET    /_emulator/health                  200 {status: "ok", sessions, uptime_ms}
 *   POST   /_emulator/reset                   200 {reset: true}: forget sessions, connections, files,
 *                                             faults, stats and rate-limit windows (settings stay)
 *   GET    /_emulator/stats                   200 {routes: {<route>: {received, handled}}, total}
 *                                             received = arrived (faulted or not); handled = the
 *                                             handler ran (its effect happened)
 *   POST   /_emulator/stats/reset             200 {reset: true}
 *   GET    /_emulator/faults                  200 {faults: [rule...]}
 *   POST   /_emulator/faults                  201 {faults: [rule...]}; body: one rule, an array, or
 *                                             {faults: [...]}. Rule: {route: <route>|"*", status?,
 *                                             body?, retry_after?, latency_ms?, reset?: "before"|"after",
 *                                             malformed?: true, times?: N (default 1), probability?: 0..1}
 *   DELETE /_emulator/faults                  200 {cleared: N}
 *   DELETE /_emulator/faults/{id}             200 {deleted: id} | 404
 *   GET    /_emulator/rate-limit              200 {per_window: N|null, window_ms}
 *   POST   /_emulator/rate-limit              200 same; body {per_minute: N|null} or {limit: N|null, window_ms?}
 *   GET    /_emulator/sessions                200 {sessions: [{session_id, user_id, created_at, config_version}]}
 *                                             (every tenant's, oldest first)
 *   GET    /_emulator/sessions/{id}           200 {session_id, config, tool_router_tools, config_version,
 *                                             created_at, mounts} (any tenant) | 404
 *   DELETE /_emulator/sessions/{id}           200 {deleted: id}: the session is gone (its files too);
 *                                             the API then answers 404 for it
 *   POST   /_emulator/sessions/{id}/connections  201 {connected_account_id, toolkit, user_id, status}: a
 *                                             connection for the session's user without a link flow;
 *                                             body {toolkit, status?: "ACTIVE" (default) | "INITIATED"}
 *   POST   /_emulator/sessions/{id}/config    200 same (drift injection); body {config?: <JSON merge
 *                                             patch (RFC 7386) applied to the stored effective config>,
 *                                             tool_router_tools?: string[], config_version?: int};
 *                                             config_version is bumped unless given
 *   GET    /_emulator/link/{token}            completes a link flow: the connection becomes ACTIVE;
 *                                             302 to the link's callback_url (with status and
 *                                             connected_account_id) or 200 {status, connected_account_id}
 *   PUT    /_emulator/files/{token}           presigned upload (token from upload_url): 200 {size}
 *   GET    /_emulator/files/{token}           presigned download (token from download_url): the bytes
 *
 * Route names (for faults and stats): create, get, execute, execute_meta, link, proxy_execute,
 * toolkits, tools, search, mount_items, download_url, upload_url, mount_delete.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EmulatorState } from '../context.js';
import { envelope, httpError, ServiceError } from '../errors.js';
import { checkFault, type FaultInput } from '../faults.js';
import { ClientGone, readBody, sendJson } from '../http.js';
import { newId, type ConnectionRecord, type SessionRecord } from '../store.js';
import { completeLink } from './link.js';
import { serveFile } from './files.js';

const startedAt = Date.now();

function adminView(s: SessionRecord): Record<string, unknown> {
  return {
    session_id: s.id,
    created_at: s.created_at,
    config: s.config,
    tool_router_tools: s.tool_router_tools,
    config_version: s.config_version,
    mounts: Object.fromEntries(Object.entries(s.mounts).map(([m, files]) => [m, Object.values(files).map(({ blob: _b, ...f }) => f)])),
  };
}

/** RFC 7386: objects merge recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Record<string, unknown> =
    target !== null && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Record<string, unknown>) } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

async function jsonBody(req: IncomingMessage, state: EmulatorState): Promise<unknown> {
  const raw = (await readBody(req, state.settings.maxBodyBytes)).toString('utf8');
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    throw httpError(400, 'Invalid JSON in request body');
  }
}

export async function handleAdmin(req: IncomingMessage, res: ServerResponse, url: URL, state: EmulatorState, requestId: string): Promise<void> {
  const method = req.method ?? 'GET';
  const ok = (status: number, body: unknown): void => sendJson(res, status, body, { 'x-request-id': requestId });
  try {
    let parts: string[];
    try {
      parts = url.pathname.split('/').slice(2).map((p) => decodeURIComponent(p));
    } catch {
      throw httpError(400, 'Malformed path');
    }
    const [head, id, tail] = parts;
    if (head === 'health' && method === 'GET') {
      return ok(200, { status: 'ok', sessions: state.store.sessions.size, uptime_ms: Date.now() - startedAt });
    }
    if (head === 'reset' && method === 'POST') {
      state.store.reset();
      state.faults.clear();
      state.stats.reset();
      state.rateLimiter.reset();
      return ok(200, { reset: true });
    }
    if (head === 'stats') {
      if (id === undefined && method === 'GET') return ok(200, state.stats.snapshot());
      if (id === 'reset' && method === 'POST') {
        state.stats.reset();
        return ok(200, { reset: true });
      }
    }
    if (head === 'faults') {
      if (id === undefined && method === 'GET') return ok(200, { faults: state.faults.list() });
      if (id === undefined && method === 'DELETE') {
        const n = state.faults.list().length;
        state.faults.clear();
        return ok(200, { cleared: n });
      }
      if (id === undefined && method === 'POST') {
        const body = await jsonBody(req, state);
        const list = Array.isArray(body) ? body : Array.isArray((body as { faults?: unknown }).faults) ? (body as { faults: unknown[] }).faults : [body];
        const problems = list.map((f, n) => [n, checkFault(f)] as const).filter(([, p]) => p !== undefined);
        if (problems.length > 0) throw httpError(400, 'Invalid fault', problems.map(([n, p]) => `faults[${n}]: ${p}`));
        return ok(201, { faults: list.map((f) => state.faults.add(f as FaultInput)) });
      }
      if (id !== undefined && method === 'DELETE') {
        if (!state.faults.remove(id)) throw httpError(404, `No fault '${id}'`);
        return ok(200, { deleted: id });
      }
    }
    if (head === 'rate-limit') {
      if (method === 'GET') return ok(200, state.rateLimiter.settings);
      if (method === 'POST') {
        const body = (await jsonBody(req, state)) as Record<string, unknown>;
        const limit = body['per_minute'] !== undefined ? body['per_minute'] : body['limit'];
        const windowMs = body['per_minute'] !== undefined ? 60_000 : (body['window_ms'] ?? 60_000);
        if (limit !== null && !(Number.isInteger(limit) && (limit as number) >= 1)) throw httpError(400, 'limit must be a positive integer or null');
        if (!(Number.isInteger(windowMs) && (windowMs as number) >= 1)) throw httpError(400, 'window_ms must be a positive integer');
        state.rateLimiter.configure(limit === null ? undefined : (limit as number), windowMs as number);
        return ok(200, state.rateLimiter.settings);
      }
    }
    if (head === 'sessions' && id === undefined && method === 'GET') {
      const sessions = [...state.store.sessions.values()].map((x) => ({ session_id: x.id, user_id: x.config.user_id, created_at: x.created_at, config_version: x.config_version }));
      return ok(200, { sessions });
    }
    if (head === 'sessions' && id !== undefined) {
      const s = state.store.sessions.get(id);
      if (s === undefined) throw httpError(404, `Tool router session '${id}' not found`);
      if (tail === undefined && method === 'GET') return ok(200, adminView(s));
      if (tail === undefined && method === 'DELETE') {
        await state.store.deleteSession(s.id);
        return ok(200, { deleted: s.id });
      }
      if (tail === 'connections' && method === 'POST') {
        const body = (await jsonBody(req, state)) as Record<string, unknown>;
        await state.ready();
        const toolkit = typeof body['toolkit'] === 'string' ? state.catalog.toolkit(body['toolkit']) : undefined;
        if (toolkit === undefined) throw httpError(400, 'toolkit must name a toolkit of the catalogue');
        const status = body['status'] ?? 'ACTIVE';
        if (status !== 'ACTIVE' && status !== 'INITIATED') throw httpError(400, "status must be 'ACTIVE' or 'INITIATED'");
        const connection: ConnectionRecord = {
          id: newId('ca_'),
          tenant: s.tenant,
          user_id: s.config.user_id,
          toolkit: toolkit.slug,
          status,
          created_at: new Date().toISOString(),
          link_token: newId('lt_', 12),
          auth_config: {
            id: `ac_managed_${toolkit.slug.replace(/[^A-Za-z0-9_-]/g, '')}`,
            auth_scheme: toolkit.composio_managed_auth_schemes[0] ?? toolkit.auth_schemes[0] ?? 'OAUTH2',
            is_composio_managed: toolkit.composio_managed_auth_schemes.length > 0,
          },
        };
        state.store.addConnection(connection);
        return ok(201, { connected_account_id: connection.id, toolkit: connection.toolkit, user_id: connection.user_id, status: connection.status });
      }
      if (tail === 'config' && method === 'POST') {
        const body = (await jsonBody(req, state)) as Record<string, unknown>;
        if (body['config'] !== undefined) s.config = mergePatch(s.config, body['config']) as SessionRecord['config'];
        if (body['tool_router_tools'] !== undefined) {
          const t = body['tool_router_tools'];
          if (!Array.isArray(t) || !t.every((x) => typeof x === 'string')) throw httpError(400, 'tool_router_tools must be an array of strings');
          s.tool_router_tools = t as string[];
        }
        if (body['config_version'] !== undefined) {
          if (!Number.isInteger(body['config_version'])) throw httpError(400, 'config_version must be an integer');
          s.config_version = body['config_version'] as number;
        } else {
          s.config_version += 1;
        }
        state.store.changed();
        return ok(200, adminView(s));
      }
    }
    if (head === 'link' && id !== undefined && method === 'GET') {
      completeLink(id, state, res, requestId);
      return;
    }
    if (head === 'files' && id !== undefined && (method === 'GET' || method === 'PUT')) {
      await serveFile(method, id, req, res, state, requestId);
      return;
    }
    throw httpError(404, `No admin route ${method} ${url.pathname}`);
  } catch (err) {
    if (err instanceof ClientGone) return;
    if (!(err instanceof ServiceError)) state.log?.(`internal error on ${method} ${url.pathname}: ${err instanceof Error ? err.message : String(err)}`);
    const e = err instanceof ServiceError ? err : httpError(500, 'Internal emulator error');
    sendJson(res, e.status, envelope(e, requestId), { 'x-request-id': requestId });
    if (e.status === 413) res.once('finish', () => req.socket.destroy());
  }
}
