import { UsageError, InputError } from '../diagnostics/errors.js';
import type { StateBackend } from './backend.js';
import { checkBinding, type StateBinding } from './binding.js';
import { entryKey, FLEET_STATE_VERSION, STATE_VERSION, type StateEntry, type StateFile } from './entry.js';
import type { Publication } from './fleet.js';
import type { StateLockOptions } from './lock.js';
import type { LockedState } from './store.js';

/*
 * What the `state` commands do to a state, whichever backend holds it (terraform's `state`
 * subcommands): read, pick, remove, rename, and copy whole states between backends.
 */

/** The whole state as one document: what `state pull` prints and `state push` reads. */
export async function pullState(backend: StateBackend): Promise<StateFile> {
  const view = await backend.load();
  const published = [...(view.published?.values() ?? [])];
  return {
    version: published.length > 0 ? FLEET_STATE_VERSION : STATE_VERSION,
    ...(view.binding !== undefined ? { binding: view.binding } : {}),
    sessions: view.list(),
    ...(published.length > 0 ? { published } : {}),
  };
}

/**
 * The entries of `name` (one, with `userId`). None, or several users without `userId`, is a usage
 * error that lists what the state has.
 */
export function pickEntries(entries: readonly StateEntry[], name: string, userId: string | undefined, location: string): StateEntry[] {
  const named = entries.filter((e) => e.name === name);
  if (named.length === 0) {
    const names = [...new Set(entries.map((e) => e.name))];
    throw new UsageError(
      `the state (${location}) has no entry named "${name}"`,
      names.length === 0 ? 'it records no sessions yet' : `it records: ${names.slice(0, 20).join(', ')}${names.length > 20 ? `, and ${names.length - 20} more` : ''}`,
    );
  }
  if (userId === undefined) return named;
  const one = named.filter((e) => e.user_id === userId);
  // The id given is not repeated: one typed on the command line may be a secret pasted by mistake.
  if (one.length === 0) throw new UsageError(`"${name}" is not recorded for the user id given with --user-id`, `it is recorded for: ${named.map((e) => e.user_id).join(', ')}`);
  return one;
}

/** Exactly one entry: as `pickEntries`, and several users need `userId`. */
export function pickEntry(entries: readonly StateEntry[], name: string, userId: string | undefined, location: string): StateEntry {
  const found = pickEntries(entries, name, userId, location);
  if (found.length > 1) throw new UsageError(`"${name}" is recorded for ${found.length} users (${found.map((e) => e.user_id).join(', ')})`, 'pass --user-id to pick one');
  return found[0]!;
}

/** Runs `work` on the state under its lock, and releases the lock whatever happens. */
async function locked<T>(backend: StateBackend, lock: StateLockOptions, work: (state: Awaited<ReturnType<StateBackend['openLocked']>>) => Promise<T>): Promise<T> {
  const state = await backend.openLocked(lock);
  try {
    return await work(state);
  } finally {
    await state.unlock();
  }
}

/** `state rm`: forgets entries without touching their sessions; every user of `name` unless `userId`. */
export function removeEntries(backend: StateBackend, lock: StateLockOptions, name: string, userId: string | undefined): Promise<StateEntry[]> {
  return locked(backend, lock, async (state) => {
    // A per-user manifest's sessions are the fleet's: one user at a time, never the whole fleet at once.
    if (state.published?.has(name) === true && !state.list().some((e) => e.name === name)) return [await removeFleetEntry(state, name, userId, backend.location)];
    const gone = pickEntries(state.list(), name, userId, backend.location);
    for (const e of gone) await state.forget(e.name, e.user_id);
    return gone;
  });
}

async function removeFleetEntry(state: LockedState, name: string, userId: string | undefined, location: string): Promise<StateEntry> {
  const sessions = state.fleet?.get(name)?.sessions ?? 0;
  if (userId === undefined) {
    throw new UsageError(`"${name}" is a per-user manifest with ${sessions} recorded session${sessions === 1 ? '' : 's'}; state rm forgets one user's at a time`, `give the user: \`sessionctl state rm ${name} --user-id USER\``);
  }
  const row = await state.forgetFleet?.(name, userId);
  if (row === undefined) throw new UsageError(`the state (${location}) records no session of "${name}" for the user id given with --user-id`, `\`sessionctl state list --name ${name}\` counts its sessions`);
  return { name, user_id: userId, session_id: row.session_id, mcp_url: row.mcp_url, tool_router_tools: row.tool_router_tools, config_version: row.config_version, body_hash: row.body_hash ?? '', body: null, applied_at: row.created_at ?? row.claim?.since ?? '' };
}

/**
 * `state mv`: the entries of `from` (one user with `userId`) are recorded under `to`, then the old
 * ones forgotten: a crash in between leaves both, never neither. An entry already recorded under
 * `to` for the same user is refused before anything is written.
 */
export function moveEntries(backend: StateBackend, lock: StateLockOptions, from: string, to: string, userId: string | undefined): Promise<StateEntry[]> {
  if (from === to) return Promise.reject(new UsageError(`"${from}" would be moved onto itself`));
  return locked(backend, lock, async (state) => {
    const moving = pickEntries(state.list(), from, userId, backend.location);
    const taken = moving.filter((e) => state.get(to, e.user_id) !== undefined);
    if (taken.length > 0) {
      throw new UsageError(`"${to}" is already recorded for user ${taken.map((e) => `"${e.user_id}"`).join(', ')}; nothing was moved`, `remove it first with \`sessionctl state rm ${to}\`, or pick another name`);
    }
    for (const e of moving) {
      await state.record({ ...e, name: to });
      await state.forget(e.name, e.user_id);
    }
    return moving.map((e) => ({ ...e, name: to }));
  });
}

/** What `state push` does with one entry of the pushed document. */
export interface PushChange {
  action: 'add' | 'update' | 'unchanged' | 'conflict';
  entry: StateEntry;
  /** The entry the state holds now (update, unchanged, conflict). */
  current?: StateEntry;
  /** Why the state's entry is newer (conflict). */
  why?: string;
}

export interface PushResult {
  changes: PushChange[];
  /** Entries the state holds that the document does not: left as they are. */
  kept: StateEntry[];
  /** Whether anything was written (false when refused for conflicts, or on a dry run). */
  written: boolean;
}

/** Equal contents; times compared as instants (PostgreSQL gives them back with milliseconds). */
function same(a: StateEntry, b: StateEntry): boolean {
  const instant = (e: StateEntry) => JSON.stringify({ ...e, applied_at: new Date(e.applied_at).toISOString() });
  return instant(a) === instant(b);
}

/**
 * Why the state's entry `current` is newer than the pushed `incoming` (undefined when it is not).
 * The same session: the service's `config_version` decides. Otherwise (or without versions):
 * `applied_at`; a tie with different contents counts as newer, since neither can be preferred.
 */
export function newerBecause(current: StateEntry, incoming: StateEntry): string | undefined {
  if (current.session_id === incoming.session_id && current.config_version !== null && incoming.config_version !== null && current.config_version !== incoming.config_version) {
    return current.config_version > incoming.config_version ? `config_version ${current.config_version} in the state, ${incoming.config_version} in the file` : undefined;
  }
  const now = Date.parse(current.applied_at);
  const then = Date.parse(incoming.applied_at);
  if (now > then) return `applied at ${current.applied_at} in the state, at ${incoming.applied_at} in the file`;
  if (now === then) return `applied at the same time (${current.applied_at}) with different contents`;
  return undefined;
}

/** The changes pushing `incoming` onto `current` makes, without writing. */
export function planPush(current: readonly StateEntry[], incoming: readonly StateEntry[], source: string): Omit<PushResult, 'written'> {
  const byKey = new Map(current.map((e) => [entryKey(e.name, e.user_id), e]));
  const seen = new Set<string>();
  const changes = incoming.map((entry): PushChange => {
    const key = entryKey(entry.name, entry.user_id);
    if (seen.has(key)) throw new InputError(`the document records "${entry.name}" for user "${entry.user_id}" twice`, source);
    seen.add(key);
    if (Number.isNaN(Date.parse(entry.applied_at))) throw new InputError(`"${entry.name}" for user "${entry.user_id}" has applied_at "${entry.applied_at}", which is not an ISO 8601 time`, source);
    const now = byKey.get(key);
    if (now === undefined) return { action: 'add', entry };
    if (same(now, entry)) return { action: 'unchanged', entry, current: now };
    const why = newerBecause(now, entry);
    return why === undefined ? { action: 'update', entry, current: now } : { action: 'conflict', entry, current: now, why };
  });
  return { changes, kept: current.filter((e) => !seen.has(entryKey(e.name, e.user_id))) };
}

/**
 * `state push`: merges a state document into the backend under its lock. Entries the state holds
 * in a newer version refuse the whole push (nothing written) unless `force`; entries only the
 * state holds are kept. The entries are recorded in one write (`recordAll`): all, or none.
 */
export function pushState(
  backend: StateBackend,
  lock: StateLockOptions,
  incoming: readonly StateEntry[],
  options: { source: string; force?: boolean; dryRun?: boolean; binding?: StateBinding; published?: readonly Publication[] },
): Promise<PushResult> {
  return locked(backend, lock, async (state) => {
    // Sessions of one service pushed into the state of another would be re-created by the next apply.
    // (Key fingerprints are salted per state, so two states' keys cannot be compared without the key.)
    if (options.binding !== undefined) checkBinding(state.binding, { service: options.binding.service }, state.location);
    const plan = planPush(state.list(), incoming, options.source);
    const blocked = options.force !== true && plan.changes.some((c) => c.action === 'conflict');
    if (blocked || options.dryRun === true) return { ...plan, written: false };
    if (options.binding !== undefined && state.binding === undefined) await state.bind(options.binding);
    // One write: a push that fails part-way (a row the database refuses, a connection lost) writes nothing.
    const changed = plan.changes.filter((c) => c.action !== 'unchanged').map((c) => c.entry);
    if (changed.length > 0) await (state.recordAll?.(changed) ?? Promise.all(changed.map((entry) => state.record(entry))));
    // Publications of a pulled state go with it; a version the target has already moved past is kept.
    const newer = (options.published ?? []).filter((p) => (state.published?.get(p.name)?.version ?? 0) < p.version);
    if (newer.length > 0) await state.publish(newer);
    return { ...plan, written: true };
  });
}
