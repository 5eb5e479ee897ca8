import { mkdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InputError, StateError } from '../diagnostics/errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { entryKey, storableVersion } from './entry.js';
import { SAMPLES } from './fleet.js';
import { readStateText } from './state-text.js';
import { comesAfter, fleetRowProblem, type FleetClaim, type FleetCount, type FleetPageQuery, type FleetSession, type FleetStore, type Publication } from './fleet.js';

/*
 * The fleet of a file state: the sessions ensure creates, in a file beside the state file
 * (`state.json` -> `state.fleet.json`), so that an apply rewriting the state never races an
 * application writing its users' sessions. One process owns it: claims live in that process's
 * memory, so two processes could each create a session for the same user. A second writer is
 * detected at its next write and refused; several processes need PostgreSQL.
 */

const FLEET_FILE_VERSION = 1;

/** Where the fleet of the state file at `statePath` is kept. */
export function fleetPathOf(statePath: string): string {
  return statePath.endsWith('.json') ? `${statePath.slice(0, -'.json'.length)}.fleet.json` : `${statePath}.fleet.json`;
}

interface StoredClaim extends Omit<FleetClaim, 'expired'> {
  expires: number;
}

export interface Stored extends Omit<FleetSession, 'claim'> {
  claim?: StoredClaim;
}

export async function readFleetFile(path: string): Promise<Stored[]> {
  const text = await readStateText(path);
  if (text === undefined) return [];
  const corrupt = (why: string) => new InputError(`the fleet file is not valid (${why}); it was left untouched. Restore it from a backup, or move it aside (its sessions are then unknown to sessionctl).`, path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt('not JSON');
  }
  const v = value as { version?: unknown; sessions?: unknown } | null;
  if (typeof v !== 'object' || v === null || v.version !== FLEET_FILE_VERSION || !Array.isArray(v.sessions)) throw corrupt(`not a fleet file of version ${FLEET_FILE_VERSION}`);
  return v.sessions.map((raw, i) => {
    const s = raw as Record<string, unknown> | null;
    if (typeof s !== 'object' || s === null || typeof s['name'] !== 'string' || typeof s['user_id'] !== 'string' || typeof s['session_id'] !== 'string') throw corrupt(`sessions[${i}] needs name, user_id and session_id`);
    const problem = fleetRowProblem({ session_id: s['session_id'], mcp_url: typeof s['mcp_url'] === 'string' ? s['mcp_url'] : '' });
    if (problem !== undefined) throw corrupt(`sessions[${i}]: ${problem}`);
    return {
      name: s['name'],
      user_id: s['user_id'],
      session_id: s['session_id'],
      mcp_url: typeof s['mcp_url'] === 'string' ? s['mcp_url'] : '',
      tool_router_tools: Array.isArray(s['tool_router_tools']) ? s['tool_router_tools'].filter((t): t is string => typeof t === 'string') : [],
      config_version: storableVersion(s['config_version']),
      version: Number.isSafeInteger(s['version']) ? (s['version'] as number) : null,
      body_hash: typeof s['body_hash'] === 'string' ? s['body_hash'] : null,
      created_at: typeof s['created_at'] === 'string' ? s['created_at'] : null,
      ...(isClaim(s['claim']) ? { claim: s['claim'] } : {}),
    };
  });
}

/** A stored row as the store answers it: its claim's lease judged at `now` (epoch ms). */
export function sessionOf({ claim, ...rest }: Stored, now: number): FleetSession {
  if (claim === undefined) return rest;
  return { ...rest, claim: { id: claim.id, state: claim.state, since: claim.since, expired: claim.expires < now, ...(claim.reason !== undefined ? { reason: claim.reason } : {}) } };
}

function isClaim(raw: unknown): raw is StoredClaim {
  const c = raw as Record<string, unknown> | null;
  return typeof c === 'object' && c !== null && typeof c['id'] === 'string' && ['claimed', 'sent', 'unknown'].includes(c['state'] as string) && typeof c['expires'] === 'number';
}

/** Sessions per manifest and version in the fleet file of a state file, with the first users of each version. */
export async function countFleetFile(statePath: string): Promise<Map<string, FleetCount>> {
  const counts = new Map<string, FleetCount & { byVersion: Map<number, number>; samples: Map<number, string[]> }>();
  const now = Date.now();
  for (const s of await readFleetFile(fleetPathOf(statePath))) {
    const c = counts.get(s.name) ?? { name: s.name, sessions: 0, byVersion: new Map<number, number>(), unknown: 0, samples: new Map<number, string[]>() };
    counts.set(s.name, c);
    if (s.session_id !== '') {
      c.sessions++;
      const v = s.version ?? 0;
      c.byVersion.set(v, (c.byVersion.get(v) ?? 0) + 1);
      c.samples.set(v, [...(c.samples.get(v) ?? []), s.user_id].sort().slice(0, SAMPLES));
    } else if (s.claim?.state === 'unknown' || (s.claim?.state === 'sent' && s.claim.expires < now)) c.unknown++;
  }
  return counts;
}

/**
 * The fleet store of a file state, for one process. Each change is on disk when it resolves
 * (changes made while a write is in flight are written together by the next one). `now` is the
 * clock of claims' leases.
 */
export async function fileFleet(statePath: string, readPublications: () => Promise<Publication[]>, now: () => number = Date.now): Promise<FleetStore> {
  const path = fleetPathOf(statePath);
  const rows = new Map<string, Stored>();
  for (const s of await readFleetFile(path)) rows.set(entryKey(s.name, s.user_id), s);
  const writer = await fleetWriter(path, () => ({ version: FLEET_FILE_VERSION, sessions: [...rows.values()] }));
  const save = writer.save;
  const held = (name: string, userId: string, claimId: string): Stored | undefined => {
    const row = rows.get(entryKey(name, userId));
    return row?.claim?.id === claimId ? row : undefined;
  };
  // A copy: the caller must not change the row this process holds.
  const view = (row: Stored): FleetSession => ({ ...sessionOf(row, now()), tool_router_tools: [...row.tool_router_tools] });
  const claimOf = (id: string, state: StoredClaim['state'], leaseMs: number): StoredClaim => ({ id, state, since: new Date(now()).toISOString(), expires: now() + leaseMs });

  return {
    location: path,
    session: async (name, userId) => {
      const row = rows.get(entryKey(name, userId));
      return row === undefined ? undefined : view(row);
    },
    published: async () => (await readPublications()).map((p) => p.name).sort(),
    claim: async (name, userId, claimId, leaseMs) => {
      const publication = (await readPublications()).find((p) => p.name === name);
      const key = entryKey(name, userId);
      const row = rows.get(key);
      const free = row === undefined || (row.session_id === '' && (row.claim === undefined || (row.claim.state === 'claimed' && row.claim.expires < now())));
      if (!free || publication === undefined) return { claimed: false, publication };
      rows.set(key, { ...(row ?? { name, user_id: userId, session_id: '', mcp_url: '', tool_router_tools: [], config_version: null, version: null, body_hash: null, created_at: null }), claim: claimOf(claimId, 'claimed', leaseMs) });
      await save();
      return { claimed: true, publication };
    },
    markSent: async (name, userId, claimId, leaseMs) => {
      const row = held(name, userId, claimId);
      if (row?.claim?.state !== 'claimed' || row.claim.expires < now()) return false;
      row.claim = claimOf(claimId, 'sent', leaseMs);
      await save();
      return true;
    },
    complete: async (session, claimId) => {
      const row = held(session.name, session.user_id, claimId);
      if (row === undefined) return false;
      const { claim: _, ...done } = session;
      rows.set(entryKey(session.name, session.user_id), { ...done, created_at: new Date(now()).toISOString() });
      await save();
      return true;
    },
    release: async (name, userId, claimId) => {
      const row = held(name, userId, claimId);
      if (row === undefined) return;
      delete row.claim;
      await save();
    },
    markUnknown: async (name, userId, claimId, reason) => {
      const row = held(name, userId, claimId);
      if (row?.claim === undefined) return;
      row.claim = { ...row.claim, state: 'unknown', reason };
      await save();
    },
    close: () => writer.close(),
  };
}

/**
 * Writes the fleet file: each save is on disk when it resolves, and saves made while a write is in
 * flight are written together by the next one. A file that another process wrote since this one
 * did is refused, not overwritten: its claims are not this process's.
 */
async function fleetWriter(path: string, content: () => unknown): Promise<{ save(): Promise<void>; close(): Promise<void> }> {
  let written = await fingerprint(path);
  let writing: Promise<void> = Promise.resolve();
  let pending: Promise<void> | undefined;
  let closed = false;
  const write = async (): Promise<void> => {
    if ((await fingerprint(path)) !== written) {
      throw new StateError('another process wrote the fleet file since this one did; a file state serves ensure for one process only. Use a PostgreSQL state (postgres://...) for several processes or hosts.', path);
    }
    try {
      await mkdir(dirname(path), { recursive: true });
      await writeFileAtomic(path, JSON.stringify(content()) + '\n', { mode: 0o600 });
    } catch (err) {
      throw new StateError(`the fleet file cannot be written (${(err as Error).message})`, path, { cause: err });
    }
    written = await fingerprint(path);
  };
  return {
    save: () => {
      if (closed) return Promise.reject(new StateError('the fleet store is closed', path));
      if (pending === undefined) {
        pending = writing.then(() => {
          pending = undefined;
          return write();
        });
        writing = pending.catch(() => undefined);
      }
      return pending;
    },
    close: async () => {
      closed = true;
      await writing;
    },
  };
}

/** What changes when a file is replaced: enough to notice another writer. */
async function fingerprint(path: string): Promise<string> {
  try {
    const st = await stat(path);
    return `${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new StateError(`cannot read the fleet file (${(err as Error).message})`, path, { cause: err });
  }
}

/**
 * Removes one end user's row from the fleet file of a state file (`state rm NAME --user-id U`).
 * An application that serves ensure from that file notices the change at its next write and stops
 * writing (it holds its rows in memory): stop it first.
 */
export async function removeFleetRow(statePath: string, name: string, userId: string): Promise<FleetSession | undefined> {
  const path = fleetPathOf(statePath);
  const rows = await readFleetFile(path);
  const at = rows.findIndex((r) => r.name === name && r.user_id === userId);
  if (at < 0) return undefined;
  const [gone] = rows.splice(at, 1);
  await writeFleetFile(path, rows);
  return sessionOf(gone!, Date.now());
}

/** Writes the fleet file whole (the commands of the pipeline, which an application serving ensure from it notices at its next write). */
export async function writeFleetFile(path: string, rows: readonly Stored[]): Promise<void> {
  try {
    await writeFileAtomic(path, JSON.stringify({ version: FLEET_FILE_VERSION, sessions: rows }) + '\n', { mode: 0o600 });
  } catch (err) {
    throw new StateError(`the fleet file cannot be written (${(err as Error).message})`, path, { cause: err });
  }
}

/** One page of the fleet file of a state file, in (name, user id) order. */
export async function fleetFilePage(statePath: string, query: FleetPageQuery): Promise<FleetSession[]> {
  const now = Date.now();
  return (await readFleetFile(fleetPathOf(statePath)))
    .filter((r) => (query.name === undefined || r.name === query.name) && (query.userId === undefined || r.user_id === query.userId) && comesAfter(r, query.after))
    .sort((a, b) => (a.name !== b.name ? (a.name < b.name ? -1 : 1) : a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0))
    .slice(0, query.limit)
    .map((row) => sessionOf(row, now));
}
