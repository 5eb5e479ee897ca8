import { resolve } from 'node:path';
import { InputError } from '../diagnostics/errors.js';
import { fileFleet, fleetFilePage } from './file-fleet.js';
import { parseStateDocument } from './entry.js';
import { readStateText } from './state-text.js';
import type { FleetPageQuery, FleetSession, OpenedFleet } from './fleet.js';
import { checkStateLocation } from './location.js';
import { missingState } from './missing.js';
import { forceUnlockFile, readFileLock } from './file-lock.js';
import { FileStateStore } from './file-store.js';
import type { ForcedUnlock, LockHolder, StateLockOptions } from './lock.js';
import { isPostgresUrl, parsePostgresUrl } from './postgres-url.js';
import type { StateReader } from './reader.js';
import type { LockedState, StateOrigin, StateView } from './store.js';

/** Where the state is kept, and how it is read and locked. */
export interface StateBackend {
  readonly kind: 'file' | 'postgres';
  /** For messages and saved plans: a file path, or a URL (which never carries a password). */
  readonly location: string;
  /** Whether a state is there, and its binding, without reading the entries. */
  probe(): Promise<StateOrigin>;
  /** The entries as they are now (no lock). */
  load(): Promise<StateView>;
  /**
   * Takes the lock (waiting up to `lock.timeoutMs`, else the backend's `lockTimeoutMs`), then
   * reads; the caller must `unlock()` the result.
   */
  openLocked(lock: StateLockOptions): Promise<LockedState>;
  /** `state unlock LOCK_ID`: releases the lock named, whose holder died. */
  forceUnlock(lockId: string): Promise<ForcedUnlock>;
  /** Who holds the lock now, or undefined when it is free. */
  lockHolder(): Promise<LockHolder | undefined>;
  /** Read-only access for an application's lookups (no lock, fresh reads); fails when no state is there. */
  openReader(): Promise<StateReader>;
  /**
   * The fleet's rows for an application's `ensure` (no lock, no DDL), with the binding to check
   * its key against; fails when no state is there or nothing was ever published to it.
   */
  openFleet(options: { maxConnections: number }): Promise<OpenedFleet>;
  /** One page of the fleet's rows (no lock), for `state list`. */
  fleetPage(query: FleetPageQuery): Promise<FleetSession[]>;
}


export interface StateBackendOptions {
  /** Where PGPASSWORD, PGHOST, PGUSER ... come from (the CLI passes its environment). */
  env?: Readonly<Record<string, string | undefined>>;
  /** How long `openLocked` waits for a lock another run holds, unless the call says; default 0. */
  lockTimeoutMs?: number;
  /**
   * PostgreSQL: how long a lock lasts unless its holder renews it (every third of it); default
   * 15 s. The lock of a holder killed with -9 lapses after it, and a run that waits takes it over.
   */
  lockLeaseMs?: number;
}

function withTimeout(lock: StateLockOptions, options: StateBackendOptions): StateLockOptions {
  return lock.timeoutMs !== undefined || options.lockTimeoutMs === undefined ? lock : { ...lock, timeoutMs: options.lockTimeoutMs };
}

/** The file backend: one JSON document at `path` (absolute), locked by a lock file beside it. */
export function fileBackend(path: string, options: StateBackendOptions = {}): StateBackend {
  return {
    kind: 'file',
    location: path,
    probe: () => FileStateStore.probe(path),
    load: () => FileStateStore.load(path),
    openLocked: (lock) => FileStateStore.openLocked(path, withTimeout(lock, options)),
    forceUnlock: async (lockId) => ({ holder: await forceUnlockFile(path, lockId), endedConnection: false }),
    lockHolder: () => readFileLock(path),
    openReader: async () => {
      // A mistyped path must not answer "no session" to every lookup.
      if (!(await FileStateStore.probe(path)).exists) throw missingState({ kind: 'file', location: path });
      let closed = false;
      const read = async () => {
        if (closed) throw new InputError('the state reader is closed', path);
        return FileStateStore.load(path);
      };
      return {
        location: path,
        get: async (name, userId) => (await read()).get(name, userId),
        list: async () => (await read()).list(),
        close: async () => {
          closed = true;
        },
      };
    },
    openFleet: async () => {
      const origin = await FileStateStore.probe(path);
      if (!origin.exists) throw missingState({ kind: 'file', location: path });
      // Read at each claim (a deploy may have published since): the state file's text alone.
      const readPublished = async () => {
        const text = await readStateText(path);
        return text === undefined ? [] : parseStateDocument(text, path).published;
      };
      return { fleet: await fileFleet(path, readPublished), binding: origin.binding };
    },
    fleetPage: (query) => fleetFilePage(path, query),
  };
}

/**
 * The PostgreSQL backend of a `postgres://` URL (checked at once: a password in it, an unknown
 * parameter or a bad schema name is a usage error before anything connects). pg is loaded on
 * first use, so commands on a state file never load it.
 */
export function postgresBackend(url: string, options: StateBackendOptions = {}): StateBackend {
  const env = options.env ?? {};
  const target = parsePostgresUrl(url, env);
  const pg = () => import('./postgres-backend.js');
  return {
    kind: 'postgres',
    location: target.location,
    probe: async () => (await pg()).probeState(target, env),
    load: async () => (await pg()).loadState(target, env),
    openLocked: async (lock) => (await pg()).openLockedState(target, env, withTimeout(lock, options), options.lockLeaseMs),
    forceUnlock: async (lockId) => (await pg()).forceUnlock(target, env, lockId),
    lockHolder: async () => (await pg()).lockHolder(target, env),
    openReader: async () => (await pg()).openReader(target, env),
    openFleet: async ({ maxConnections }) => (await pg()).openFleet(target, env, maxConnections),
    fleetPage: async (query) => (await pg()).fleetPage(target, env, query),
  };
}

/**
 * The backend a `--state` value names: a `postgres://` URL, or a file path relative to `cwd`. A
 * value that is neither (another scheme, spaces around it) is refused here, before anything reads.
 */
export function stateBackend(spec: string, cwd: string, options: StateBackendOptions = {}): StateBackend {
  checkStateLocation(spec);
  return isPostgresUrl(spec) ? postgresBackend(spec, options) : fileBackend(resolve(cwd, spec), options);
}
