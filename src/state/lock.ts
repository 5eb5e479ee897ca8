import { hostname } from 'node:os';
import { StateError } from '../diagnostics/errors.js';

/** Who holds a lock, written with it so that a stale one can be recognised and its holder named. */
export interface LockOwner {
  pid: number;
  hostname: string;
}

export interface StateLockOptions {
  /** This process. */
  owner: LockOwner;
  /** Whether a process of this host is still running; a file lock of a dead process is stale. */
  isAlive(pid: number): boolean;
  /**
   * A file lock of another host (which cannot be asked) not refreshed for this long is stale; a
   * lock of this host is stale only when its process is gone, never for its age. Default 1 h.
   */
  staleAfterMs?: number;
  /** How often the holder of a file lock refreshes it (its modification time), so that it never looks stale. Default 60 s. */
  refreshMs?: number;
  /** Told when a stale lock is taken over: whose it was, and why it was judged stale. */
  onTakeOver?: (holder: LockHolder, why: string) => void;
  /** The clock of a lock's `since`, of its age and of how long a wait has lasted (one that stands still never ends a wait). */
  now?: () => Date;
  /**
   * How long to wait for a lock that another run holds before giving up. Default: the backend's
   * (`--lock-timeout`), else 0: fail at once, naming the holder.
   */
  timeoutMs?: number;
  /** File lock: waits between looks at a lock that another run holds (tests inject one; default a timer). */
  sleep?: (ms: number) => Promise<void>;
  /** Told once, when the lock is held by another run and the wait begins (a person sees why nothing happens). */
  onWait?: (holder: LockHolder | undefined, timeoutMs: number) => void;
}

/** A lock as another process sees it: enough to name its holder and to release it by force. */
export interface LockHolder {
  /** The id `state unlock` takes. */
  id: string;
  pid?: number;
  hostname?: string;
  /** ISO 8601: when it was taken. */
  since?: string;
  /** The database role that holds it (PostgreSQL). */
  role?: string;
  /** ISO 8601, PostgreSQL: when its lease ends unless its holder renews it (the database's clock). */
  expires?: string;
}

/** What `state unlock` released. */
export interface ForcedUnlock {
  holder: LockHolder;
  /**
   * Whether the holder's database connection was ended to release the lock. Always false now: a
   * PostgreSQL lock is a lease row, released by removing the row (its holder's writes are fenced on it).
   */
  endedConnection: boolean;
}

/** The lock owner of this host and a given pid. */
export function lockOwner(pid: number): LockOwner {
  return { pid, hostname: hostname() };
}

/** "process 4242 on ci-7 since 2026-… (lock 1b4e…)" */
export function describeHolder(holder: LockHolder | undefined): string {
  if (holder === undefined) return 'another process (its lock cannot be read)';
  let who = holder.pid !== undefined ? `process ${holder.pid}${holder.hostname !== undefined ? ` on ${holder.hostname}` : ''}` : 'another process';
  if (holder.role !== undefined) who += ` (role ${holder.role})`;
  if (holder.since !== undefined) who += ` since ${holder.since}`;
  return `${who} (lock ${holder.id})`;
}

/**
 * The error of a lock that another run holds: who, since when, and the ways on (with a lease, when
 * it lapses if its holder died).
 */
export function lockedError(location: string, holder: LockHolder | undefined, waitedMs: number, note = ''): StateError {
  const waited = waitedMs > 0 ? `waited ${formatWait(waitedMs)}, and ` : '';
  const unlock = holder !== undefined ? `sessionctl state unlock ${holder.id}` : 'sessionctl state unlock LOCK_ID';
  const died =
    holder?.expires !== undefined
      ? `if its holder died, its lease ends at ${holder.expires} and a run waiting then takes the lock over, or release it now with \`${unlock}\``
      : `if its holder died, release the lock with \`${unlock}\``;
  return new StateError(`${waited}the state is locked by ${describeHolder(holder)}: another apply is running (or a state command)${note}. Wait for it with --lock-timeout (such as 5m); ${died}.`, location);
}

/** 1500 -> "1.5s", 120000 -> "2m". */
export function formatWait(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Number((ms / 1000).toFixed(1))}s`;
}

/** Resolves after `ms` (no timer left behind once it fired). */
export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
