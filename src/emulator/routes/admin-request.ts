/**
 * One request to the admin surface, and whom it acts for. Without configured keys the emulator is
 * one local user's: every admin request acts for the whole server, with or without a key. With
 * `--api-key` keys it is shared: every admin route needs a key in `x-api-key` (401 without one); an
 * API key acts for its own tenant alone (its sessions, accounts, faults, counters, its reset), and
 * anything of another tenant is answered as if it did not exist (404, never 403, so that ids do not
 * tell one tenant what another holds); the admin key (`--admin-key`) acts for the whole server.
 */
import type { IncomingMessage } from 'node:http';
import type { AdminCaller } from '../auth.js';
import type { EmulatorState } from '../context.js';
import { httpError } from '../errors.js';
import { readJsonBody } from '../http.js';
import type { ConnectionRecord, SessionRecord } from '../store.js';

export interface AdminRequest {
  req: IncomingMessage;
  method: string;
  /** The path's segments after `/_emulator/`, decoded. */
  parts: string[];
  query: URLSearchParams;
  state: EmulatorState;
  /** Whom the request acts for. */
  caller: AdminCaller;
}

export interface AdminAnswer {
  status: number;
  body: unknown;
}

export function jsonBody(a: AdminRequest): Promise<unknown> {
  return readJsonBody(a.req, a.state.settings.maxBodyBytes);
}

/** The `x-api-key` header as presented (the first, when repeated). */
export function presentedKey(req: IncomingMessage): string | undefined {
  const raw = req.headers['x-api-key'];
  return Array.isArray(raw) ? raw[0] : raw;
}

/** Whom an admin request acts for; 401 (with the challenge) when a shared emulator gets no key it knows. */
export function adminCallerOf(req: IncomingMessage, state: EmulatorState): AdminCaller {
  const caller = state.keys.adminCaller(presentedKey(req));
  if (caller !== undefined) return caller;
  const key = presentedKey(req);
  throw httpError(401, key === undefined || key === '' ? "The emulator's admin surface needs one of its API keys (or its admin key) in x-api-key" : 'Invalid API key');
}

/** The tenant an admin request is confined to, or undefined for the whole server. */
export function scopeOf(a: AdminRequest): string | undefined {
  return a.caller.kind === 'tenant' ? a.caller.tenant : undefined;
}

/** Whether the caller may see what `tenant` owns. */
export function sees(a: AdminRequest, tenant: string): boolean {
  const scope = scopeOf(a);
  return scope === undefined || scope === tenant;
}

/** A session the caller may see, or 404: another tenant's is answered like one that never was. */
export function visibleSession(a: AdminRequest, id: string): SessionRecord {
  const s = a.state.store.sessions.get(id);
  if (s === undefined || !sees(a, s.tenant)) throw httpError(404, `Tool router session '${id}' not found`);
  return s;
}

/** A connected account the caller may see, or 404, as `visibleSession`. */
export function visibleConnection(a: AdminRequest, id: string): ConnectionRecord {
  const c = a.state.store.connections.get(id);
  if (c === undefined || !sees(a, c.tenant)) throw httpError(404, `Connected account '${id}' not found`);
  return c;
}

/** A change to the whole server (the rate limit): the admin key's, or anyone's without keys. */
export function requireServer(a: AdminRequest, what: string): void {
  if (a.caller.kind !== 'server') throw httpError(403, `${what} changes the whole emulator: it needs the admin key (--admin-key), not an API key`);
}
