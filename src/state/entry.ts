import { InputError } from '../diagnostics/errors.js';
import { isSessionId, sessionIdProblem, unprintableProblem } from '../wire/session-id.js';
import type { Json } from '../wire/json.js';
import { parseBinding, type StateBinding } from './binding.js';
import type { PublishedTemplate } from '../config/published-body.js';
import type { Publication } from './fleet.js';

/**
 * The format version of the state document. Version 1 (no config_version, no body) is read and
 * upgraded in memory; a newer version is refused, never rewritten.
 */
export const STATE_VERSION = 2;

/**
 * The format version of a state document that holds publications of per-user manifests: an older
 * sessionctl refuses it instead of rewriting it without them.
 */
export const FLEET_STATE_VERSION = 3;

/** A create whose request may have reached the service but whose answer was never recorded. */
export interface PendingCreate {
  /** ISO 8601: when the intent was written, just before the request left. */
  since: string;
  /** The body hash of the create. */
  body_hash: string;
  /**
   * `in-flight` while a run waits for the answer (a run killed with -9 leaves it so);
   * `unknown` when a run ended without knowing (interrupted, timed out, a malformed answer).
   * A later run treats both alike: the session may exist.
   */
  status: 'in-flight' | 'unknown';
  /** What happened, for the message of the run that finds it. */
  reason?: string;
}

/** What the state records for one manifest and resolved user id. */
export interface StateEntry {
  name: string;
  user_id: string;
  /** The session that serves this manifest and user; '' while only a create intent is recorded. */
  session_id: string;
  mcp_url: string;
  tool_router_tools: string[];
  /** The session's `config_version` as last applied or read; null when the service did not say. */
  config_version: number | null;
  /** SHA-256 of the canonical request body applied (`bodyHash`). */
  body_hash: string;
  /**
   * The request body applied, so that plan shows field changes without the network; null for an
   * entry from state version 1 or one adopted by `import`.
   */
  body: { [key: string]: Json } | null;
  /** ISO 8601. */
  applied_at: string;
  /** The manifest file it was applied from, relative to the working folder (forward slashes); `--prune` scopes by it. */
  file?: string;
  /** Write-ahead: a create of this manifest and user may have happened (see PendingCreate). */
  pending_create?: PendingCreate;
  /** Sessions this manifest had before a replace, still to be deleted. */
  superseded?: string[];
}

/** The whole state as one document: the file backend's format, and `state pull`'s. */
export interface StateFile {
  version: typeof STATE_VERSION | typeof FLEET_STATE_VERSION;
  /** The service the state was applied against (absent before the first apply, or from an earlier sessionctl). */
  binding?: StateBinding;
  sessions: StateEntry[];
  /** The per-user manifests published (version 3 only). */
  published?: Publication[];
  /** Their earlier versions, which sessions may still be on: what a rollout plans from. */
  published_history?: Publication[];
}

/** The key of an entry: one per manifest name and resolved user id. */
export function entryKey(name: string, userId: string): string {
  return `${name}\0${userId}`;
}

/** Entries in their stable order: by name, then user id. */
export function compareEntries(a: StateEntry, b: StateEntry): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0;
}

/**
 * A `config_version` as the state can hold it and an update can send back: a whole number from 0
 * to 2^53 - 1, else null (unknown). A service that answered 1.5, or a number past 2^53, would
 * otherwise make the state file unreadable and have the database refuse the row, after the session
 * exists; a version below zero is none the service counts (it starts at 1 and goes up).
 */
export function storableVersion(version: unknown): number | null {
  return Number.isSafeInteger(version) && (version as number) >= 0 ? (version as number) : null;
}

/** Whether an entry names a live session (not only a create intent). */
export function hasSession(entry: StateEntry): boolean {
  return entry.session_id !== '';
}

type Corrupt = (why: string) => InputError;

/**
 * Parses and checks a state document; every problem names the place and what to do. `pushed`: the
 * document is one given to `state push`, not the state itself.
 */
export function parseState(text: string, path: string, options: { pushed?: boolean } = {}): StateEntry[] {
  return parseStateDocument(text, path, options).entries;
}

/** parseState, with the binding the document records. */
export function parseStateDocument(text: string, path: string, options: { pushed?: boolean } = {}): { entries: StateEntry[]; binding: StateBinding | undefined; published: Publication[]; history: Publication[] } {
  const corrupt: Corrupt = (why) =>
    options.pushed === true
      ? new InputError(`this is not a state document that sessionctl can push (${why}); nothing was pushed. Push the output of \`sessionctl state pull\`, or a state file.`, path)
      : new InputError(`the state is not valid (${why}); it was left untouched. Restore it from a backup, or move it aside to start over (sessions it recorded are then unknown to sessionctl).`, path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw corrupt(`not JSON${jsonErrorPlace(text, (err as Error).message)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw corrupt('not a JSON object');
  const v = value as Record<string, unknown>;
  if (typeof v['version'] !== 'number') throw corrupt('no "version"');
  if (v['version'] !== 1 && v['version'] !== STATE_VERSION && v['version'] !== FLEET_STATE_VERSION) {
    throw new InputError(`the state has format version ${String(v['version'])}; this sessionctl reads versions 1 to ${FLEET_STATE_VERSION}. Use a newer sessionctl.`, path);
  }
  if (!Array.isArray(v['sessions'])) throw corrupt('"sessions" is not a list');
  const binding = parseBinding(v['binding'], corrupt);
  const published = v['published'] ?? [];
  if (!Array.isArray(published)) throw corrupt('"published" is not a list');
  const history = v['published_history'] ?? [];
  if (!Array.isArray(history)) throw corrupt('"published_history" is not a list');
  return {
    entries: v['sessions'].map((s, i) => checkEntry(s, `sessions[${i}]`, corrupt)),
    binding,
    published: published.map((p, i) => checkPublication(p, `published[${i}]`, corrupt)),
    history: history.map((p, i) => checkPublication(p, `published_history[${i}]`, corrupt)),
  };
}

/** Whether a value is a publication's list of templates, as a state file or row holds it. */
export function isTemplateList(value: unknown): value is PublishedTemplate[] {
  return (
    Array.isArray(value) &&
    value.every((t) => {
      const parts = (t as { parts?: unknown } | null)?.parts;
      return typeof (t as { pointer?: unknown } | null)?.pointer === 'string' && Array.isArray(parts) && parts.every((p) => typeof p === 'string' || typeof (p as { variable?: unknown } | null)?.variable === 'string');
    })
  );
}

/** Checks one publication as a state file holds it. */
export function checkPublication(raw: unknown, at: string, corrupt: Corrupt): Publication {
  const p = raw as Record<string, unknown> | null;
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw corrupt(`${at} is not an object`);
  for (const key of ['name', 'body_hash', 'published_at'] as const) if (typeof p[key] !== 'string') throw corrupt(`${at}.${key} is not a string`);
  if (!Number.isSafeInteger(p['version']) || (p['version'] as number) < 1) throw corrupt(`${at}.version is not a positive integer`);
  const body = p['body'];
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw corrupt(`${at}.body is not an object`);
  const templates = p['templates'];
  if (!isTemplateList(templates)) throw corrupt(`${at}.templates is not a list of {pointer, parts}`);
  if (p['api_version'] !== '3' && p['api_version'] !== '3.1') throw corrupt(`${at}.api_version is not "3" or "3.1"`);
  if (p['file'] !== null && typeof p['file'] !== 'string') throw corrupt(`${at}.file is not a string or null`);
  return {
    name: p['name'] as string,
    version: p['version'] as number,
    body: body as Publication['body'],
    templates,
    body_hash: p['body_hash'] as string,
    api_version: p['api_version'],
    file: p['file'] as string | null,
    published_at: p['published_at'] as string,
  };
}

/**
 * ` at line L, column C` for a JSON.parse error: Node 20 says only "at position N", Node 22 adds
 * "(line L column C)". Positions mean nothing to a person opening the file.
 */
export function jsonErrorPlace(text: string, message: string): string {
  const both = /\(line (\d+) column (\d+)\)/.exec(message);
  if (both !== null) return ` at line ${both[1]}, column ${both[2]}`;
  const at = /at position (\d+)/.exec(message);
  if (at === null) return /end of JSON input/.test(message) ? ' (it ends too early: cut off?)' : `: ${message}`;
  const before = text.slice(0, Number(at[1]));
  const line = before.split('\n').length;
  return ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

/** Checks one entry as stored (either version) and returns it in the current shape. */
export function checkEntry(raw: unknown, at: string, corrupt: Corrupt): StateEntry {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw corrupt(`${at} is not an object`);
  const e = raw as Record<string, unknown>;
  for (const key of ['name', 'user_id', 'session_id', 'mcp_url', 'body_hash', 'applied_at'] as const) {
    if (typeof e[key] !== 'string') throw corrupt(`${at}.${key} is not a string`);
  }
  // An intent (a create not answered yet) has no session: '' for both.
  if (e['session_id'] !== '') {
    // The URL as recorded (masked where it echoed a secret): what matters is that it writes nothing raw.
    const problem = sessionIdProblem(e['session_id']) ?? unprintableProblem(e['mcp_url'] as string);
    if (problem !== undefined) throw corrupt(`${at}: ${problem}`);
  }
  if (!Array.isArray(e['tool_router_tools']) || !e['tool_router_tools'].every((t) => typeof t === 'string')) {
    throw corrupt(`${at}.tool_router_tools is not a list of strings`);
  }
  const version = e['config_version'] ?? null;
  if (version !== null && !Number.isSafeInteger(version)) throw corrupt(`${at}.config_version is not an integer`);
  const body = e['body'] ?? null;
  if (body !== null && (typeof body !== 'object' || Array.isArray(body))) throw corrupt(`${at}.body is not an object`);
  const entry: StateEntry = {
    name: e['name'] as string,
    user_id: e['user_id'] as string,
    session_id: e['session_id'] as string,
    mcp_url: e['mcp_url'] as string,
    tool_router_tools: [...(e['tool_router_tools'] as string[])],
    config_version: version as number | null,
    body_hash: e['body_hash'] as string,
    body: body as StateEntry['body'],
    applied_at: e['applied_at'] as string,
  };
  if (typeof e['file'] === 'string') entry.file = e['file'];
  else if (e['file'] !== undefined) throw corrupt(`${at}.file is not a string`);
  const pending = e['pending_create'];
  if (pending !== undefined) entry.pending_create = checkPending(pending, `${at}.pending_create`, corrupt);
  const superseded = e['superseded'];
  if (superseded !== undefined) {
    if (!Array.isArray(superseded) || !superseded.every(isSessionId)) throw corrupt(`${at}.superseded is not a list of session ids`);
    if (superseded.length > 0) entry.superseded = [...(superseded as string[])];
  }
  return entry;
}

function checkPending(raw: unknown, at: string, corrupt: Corrupt): PendingCreate {
  const p = raw as Record<string, unknown> | null;
  if (typeof p !== 'object' || p === null || typeof p['since'] !== 'string' || typeof p['body_hash'] !== 'string') throw corrupt(`${at} needs "since" and "body_hash"`);
  if (p['status'] !== 'in-flight' && p['status'] !== 'unknown') throw corrupt(`${at}.status is not "in-flight" or "unknown"`);
  return { since: p['since'], body_hash: p['body_hash'], status: p['status'], ...(typeof p['reason'] === 'string' ? { reason: p['reason'] } : {}) };
}
