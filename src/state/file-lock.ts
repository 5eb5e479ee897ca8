import { open, readFile, stat, unlink, mkdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { InputError } from '../diagnostics/errors.js';

/** Who holds a lock, written into the lock file so that a stale one can be recognised. */
export interface LockOwner {
  pid: number;
  hostname: string;
}

export interface StateLockOptions {
  /** This process. */
  owner: LockOwner;
  /** Whether a process of this host is still running; a lock of a dead process is stale. */
  isAlive(pid: number): boolean;
  /** A lock older than this is stale whoever holds it (another host cannot be asked). Default 1 h. */
  staleAfterMs?: number;
  now?: () => Date;
}

/** The lock owner of this host and a given pid. */
export function lockOwner(pid: number): LockOwner {
  return { pid, hostname: hostname() };
}

/** The lock file beside a state file. */
export function lockPathOf(statePath: string): string {
  return `${statePath}.lock`;
}

/**
 * Takes the lock of a state file (`<state>.lock`, created exclusively). A lock left by a process
 * that no longer runs on this host, or older than `staleAfterMs`, is removed and taken over; a live
 * one is an InputError that names its holder.
 */
export async function takeFileLock(statePath: string, options: StateLockOptions): Promise<void> {
  const lockPath = lockPathOf(statePath);
  await mkdir(dirname(statePath), { recursive: true });
  const now = options.now ?? (() => new Date());
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify({ ...options.owner, since: now().toISOString() }) + '\n');
      } finally {
        await handle.close();
      }
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new InputError(`cannot create the state lock: ${(err as Error).message}`, lockPath, { cause: err });
      }
    }
    const holder = await readLock(lockPath);
    if (attempt === 0 && (await isStale(lockPath, holder, options, now()))) {
      await unlink(lockPath).catch(() => undefined);
      continue;
    }
    const who = holder ? `process ${holder.pid} on ${holder.hostname}${holder.since ? ` since ${holder.since}` : ''}` : 'another process';
    throw new InputError(`the state file is locked by ${who}; another apply is running. If it is not, delete ${lockPath}.`, statePath);
  }
}

/** Releases a lock this process holds. */
export async function releaseFileLock(statePath: string): Promise<void> {
  await unlink(lockPathOf(statePath)).catch(() => undefined);
}

interface LockInfo {
  pid: number;
  hostname: string;
  since?: string;
}

async function readLock(lockPath: string): Promise<LockInfo | undefined> {
  try {
    const v = JSON.parse(await readFile(lockPath, 'utf8')) as Partial<LockInfo>;
    if (typeof v.pid === 'number' && typeof v.hostname === 'string') return { pid: v.pid, hostname: v.hostname, ...(typeof v.since === 'string' ? { since: v.since } : {}) };
  } catch {
    // An unreadable or half-written lock (its writer died between create and write) is judged by age.
  }
  return undefined;
}

async function isStale(lockPath: string, holder: LockInfo | undefined, options: StateLockOptions, now: Date): Promise<boolean> {
  if (holder !== undefined && holder.hostname === options.owner.hostname && holder.pid !== options.owner.pid && !options.isAlive(holder.pid)) return true;
  try {
    const age = now.getTime() - (await stat(lockPath)).mtimeMs;
    return age > (options.staleAfterMs ?? 3_600_000);
  } catch {
    return true; // gone meanwhile: try again
  }
}
