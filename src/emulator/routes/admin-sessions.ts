/** The admin surface's session routes: list, inspect, remove, connect without a link flow, drift, PATCH out of band. */
import { accountLists } from '../effective.js';
import { httpError } from '../errors.js';
import { validateRequest } from '../validate.js';
import { addAdminConnection } from './admin-connection.js';
import { jsonBody, presentedKey, scopeOf, visibleConnection, visibleSession, type AdminAnswer, type AdminRequest } from './admin-request.js';
import { approveConnection } from './link.js';
import { applyUpdate } from './update.js';
import type { UpdateSessionRequest } from '../../wire/request.js';
import { configOf } from '../session-view.js';
import type { SessionRecord } from '../store.js';
import { isPlainObject } from '../../util/plain-object.js';

const UPDATE_OPERATION_V31 = 'patchToolRouterSessionBySessionIdV31';

/** A session the caller sees; its config as v3 answers it, or v3.1 with `?version=3.1`. */
function adminView(s: SessionRecord, query: URLSearchParams): Record<string, unknown> {
  return {
    session_id: s.id,
    created_at: s.created_at,
    config: configOf(s, query.get('version') === '3.1' ? '3.1' : '3'),
    tool_router_tools: s.tool_router_tools,
    config_version: s.config_version,
    mounts: Object.fromEntries(Object.entries(s.mounts).map(([m, files]) => [m, Object.values(files).map(({ blob: _b, ...f }) => f)])),
  };
}

/** RFC 7386: objects merge recursively, `null` deletes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return patch;
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

/**
 * `POST /_emulator/connections/{id}/approve`: completes a link flow without a browser, as visiting
 * its redirect URL does (an account of the caller's tenant, or any with the whole server's say).
 */
export function approveLinkFlow(a: AdminRequest): AdminAnswer | undefined {
  const [head, id, tail] = a.parts;
  if (head !== 'connections' || id === undefined || tail !== 'approve' || a.method !== 'POST') return undefined;
  const connection = visibleConnection(a, id);
  approveConnection(connection, a.state);
  return { status: 200, body: { connected_account_id: connection.id, toolkit: connection.toolkit, user_id: connection.user_id, status: connection.status } };
}

/**
 * Whose sessions the listing shows: the caller's tenant's; for the whole server, everyone's, except
 * that without configured keys a key presented narrows it to that key's sessions (as it always has).
 */
function listingTenant(a: AdminRequest): string | undefined {
  const scope = scopeOf(a);
  if (scope !== undefined || a.state.keys.restricted) return scope;
  return a.state.keys.tenantFor(presentedKey(a.req));
}

export async function adminSessions(a: AdminRequest): Promise<AdminAnswer | undefined> {
  const { method, state } = a;
  const [head, id, tail] = a.parts;
  if (head !== 'sessions') return undefined;
  if (id === undefined) {
    if (method !== 'GET') return undefined;
    const tenant = listingTenant(a);
    const sessions = [...state.store.sessions.values()].filter((x) => tenant === undefined || x.tenant === tenant).map((x) => ({ session_id: x.id, user_id: x.config.user_id, created_at: x.created_at, config_version: x.config_version }));
    return { status: 200, body: { sessions } };
  }
  const s = visibleSession(a, id);
  if (tail === undefined && method === 'GET') return { status: 200, body: adminView(s, a.query) };
  if (tail === undefined && method === 'DELETE') {
    await state.store.deleteSession(s.id);
    return { status: 200, body: { deleted: s.id } };
  }
  if (tail === 'connections' && method === 'POST') return addConnection(a, s);
  if (tail === 'config' && method === 'POST') return driftConfig(a, s);
  if (tail === undefined && method === 'PATCH') return patchOutOfBand(a, s);
  return undefined;
}

/** A connection for the session's user, without a link flow. */
async function addConnection(a: AdminRequest, s: SessionRecord): Promise<AdminAnswer> {
  const { state } = a;
  const body = (await jsonBody(a)) as Record<string, unknown>;
  await state.ready();
  const toolkit = typeof body['toolkit'] === 'string' ? state.catalog.toolkit(body['toolkit']) : undefined;
  if (toolkit === undefined) throw httpError(400, 'toolkit must name a toolkit of the catalogue');
  const status = body['status'] ?? 'ACTIVE';
  if (status !== 'ACTIVE' && status !== 'INITIATED') throw httpError(400, "status must be 'ACTIVE' or 'INITIATED'");
  return addAdminConnection(state, toolkit, { tenant: s.tenant, userId: s.config.user_id, status });
}

/**
 * Another writer's PATCH (v3.1 body and rules, `expected_config_version` honoured), out of band:
 * what a concurrent deploy does, for tests of conflicts and of drift repaired in place.
 */
async function patchOutOfBand(a: AdminRequest, s: SessionRecord): Promise<AdminAnswer> {
  const body = await jsonBody(a);
  await a.state.ready();
  const errors = await validateRequest(UPDATE_OPERATION_V31, 'body', body, 'payload');
  if (errors !== undefined) throw httpError(400, 'Invalid request body', errors);
  applyUpdate(s, body as UpdateSessionRequest, a.state);
  return { status: 200, body: adminView(s, a.query) };
}

/** Drift injection: a merge patch of the stored config, tools and version, out of band. */
async function driftConfig(a: AdminRequest, s: SessionRecord): Promise<AdminAnswer> {
  const body = (await jsonBody(a)) as Record<string, unknown>;
  if (body['config_version'] !== undefined && !Number.isInteger(body['config_version'])) throw httpError(400, 'config_version must be an integer');
  // The version replaced is archived as a PATCH archives it: a drift injected between two applies
  // left a gap in config_history (version 2 came after 3 was current, and 3 was never listed).
  const before = { version: s.config_version, config: s.config, tool_router_tools: s.tool_router_tools };
  if (body['config'] !== undefined) {
    s.config = mergePatch(s.config, body['config']) as SessionRecord['config'];
    // Either version's spelling of pinned accounts (one id or a list) is stored as a list.
    if (s.config.connected_accounts !== undefined) s.config.connected_accounts = accountLists(s.config.connected_accounts);
  }
  if (body['tool_router_tools'] !== undefined) {
    const t = body['tool_router_tools'];
    if (!Array.isArray(t) || !t.every((x) => typeof x === 'string')) throw httpError(400, 'tool_router_tools must be an array of strings');
    s.tool_router_tools = t as string[];
  }
  s.config_version = body['config_version'] !== undefined ? (body['config_version'] as number) : s.config_version + 1;
  if (s.config_version !== before.version) {
    const now = new Date().toISOString();
    s.history.push({ version: before.version, archived_at: now, config: before.config, tool_router_tools: before.tool_router_tools });
    s.updated_at = now;
  }
  a.state.store.changed();
  return { status: 200, body: adminView(s, a.query) };
}
