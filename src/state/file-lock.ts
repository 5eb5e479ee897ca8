import { createHash, randomUUID } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { link as linkFile, lstat, mkdir, open, rename as renameFile, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { InputError, StateError } from '../diagnostics/errors.js';
import { formatWait, lockedError, sleep, type LockHolder, type StateLockOptions } from './lock.js';

// The runner and the CLI import the lock's types from here.
export { lockOwner, type LockOwner, type StateLockOptions } from './lock.js';

/**
 * The file lock: `<state>.lock`, a JSON line `{id, pid, hostname, since}`.
 *
 * - Taking a free lock: the line is written to a private temporary file, which is then hard-linked
 *   to the lock path; `link` fails if the path exists, so the lock appears atomically and whole.
 * - A lock of this host is stale only when its process is gone: a running holder keeps it however
 *   old it is. Another host cannot be asked, so its lock is stale once it has not been refreshed
 *   for `staleAfterMs`: the holder touches its lock every `refreshMs` while it runs
 *   (`keepFileLockFresh`), so only a holder that died or hung stops doing so.
 * - Taking over a stale one: the taker
 *   first creates `<state>.lock.break` exclusively, re-reads the lock under it, and replaces it
 *   (by a rename) only if it is still the very lock judged stale. Releasing and `state unlock`
 *   remove the lock under the same breaker. So while a breaker is held nobody else can remove or
 *   replace the lock, and of two processes that find the same stale lock exactly one replaces it;
 *   the other then finds a live lock. (Unlinking the stale lock and creating a new one, as before,
 *   let both succeed: the second unlinked the first one's fresh lock.)
 * - A breaker lives for the milliseconds of one takeover; one older than BREAKER_STALE_MS was left
 *   by a process that died inside a takeover and is removed.
 */

const BREAKER_STALE_MS = 10_000;
const BREAKER_RETRY_MS = 5;
const POLL_MS = 250;
const DEFAULT_STALE_MS = 3_600_000;
/** `link` is not supported on some file systems (FAT, some network and FUSE mounts). */
const NO_LINK = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV']);

/**
 * The file system calls whose failures the file systems of a test machine cannot produce: a test
 * passes a `link` that fails as on FAT or a network mount, a `rename` that fails mid-takeover
 * (EIO, a full disk). Everything else is the real thing.
 */
export interface FileLockIo {
  link(existingPath: string, newPath: string): Promise<void>;
  rename(oldPath: string, newPath: string): Promise<void>;
}

const realIo: FileLockIo = { link: linkFile, rename: renameFile };

/** The lock file beside a state file. */
export function lockPathOf(statePath: string): string {
  return `${statePath}.lock`;
}

function breakerPathOf(lockPath: string): string {
  return `${lockPath}.break`;
}

/** The lock file as read through one handle: its text and identity belong to the same file. */
interface Seen {
  text: string;
  ino: number;
  mtimeMs: number;
  pid?: number;
  hostname?: string;
  holder: LockHolder;
}

/**
 * Takes the lock of a state file and returns its id. A stale lock is taken over; a live one is
 * waited for up to `timeoutMs` (default 0), then a StateError names its holder and how to
 * release it.
 */
export async function takeFileLock(statePath: string, options: StateLockOptions, io: FileLockIo = realIo): Promise<string> {
  const lockPath = lockPathOf(statePath);
  try {
    await mkdir(dirname(statePath), { recursive: true });
  } catch (err) {
    throw cannotLock(err, lockPath);
  }
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? 0;
  const wait = options.sleep ?? sleep;
  const id = randomUUID();
  const started = now().getTime();
  let told = false;
  for (;;) {
    const content = `${JSON.stringify({ id, ...options.owner, since: now().toISOString() })}\n`;
    if (await publish(lockPath, content, io)) return id;
    const seen = await look(lockPath);
    if (seen === undefined) continue; // released meanwhile
    const why = staleBecause(seen, options, now());
    if (why !== undefined) {
      const outcome = await takeOver(lockPath, seen, content, io);
      if (outcome === 'taken') {
        options.onTakeOver?.(seen.holder, why);
        return id;
      }
      if (outcome === 'busy') await wait(BREAKER_RETRY_MS);
      continue;
    }
    const waited = now().getTime() - started;
    if (waited >= timeoutMs) throw lockedError(statePath, seen.holder, timeoutMs, liveButOld(seen, options, now()));
    if (!told) options.onWait?.(seen.holder, timeoutMs);
    told = true;
    await wait(Math.min(POLL_MS, timeoutMs - waited));
  }
}

/** Releases the lock `id` (this process's); a lock someone else holds by now is left alone. */
export async function releaseFileLock(statePath: string, id: string): Promise<void> {
  const lockPath = lockPathOf(statePath);
  await underBreaker(lockPath, async () => {
    const seen = await look(lockPath);
    if (seen?.holder.id === id) await unlink(lockPath).catch(() => undefined);
  });
}

/**
 * `state unlock LOCK_ID` for a state file: removes the lock when it is the one named (a lock
 * written before locks had ids is named by the digest `state list` and lock errors show).
 */
export async function forceUnlockFile(statePath: string, lockId: string): Promise<LockHolder> {
  const lockPath = lockPathOf(statePath);
  return underBreaker(lockPath, async () => {
    const seen = await look(lockPath);
    if (seen === undefined) throw new InputError(`the state is not locked (there is no ${lockPath}); nothing to unlock`, statePath);
    if (seen.holder.id !== lockId) throw new InputError(`the state is locked by lock ${seen.holder.id}, not ${lockId}; nothing was changed`, statePath);
    await unlink(lockPath);
    return seen.holder;
  });
}

/** The lock as it is now, or undefined when there is none. */
export async function readFileLock(statePath: string): Promise<LockHolder | undefined> {
  return (await look(lockPathOf(statePath)))?.holder;
}

/** Writes `content` to a private file and links it to the lock path: false when a lock exists. */
async function publish(lockPath: string, content: string, io: FileLockIo): Promise<boolean> {
  const temp = `${lockPath}.${randomUUID()}.tmp`;
  try {
    await writeFile(temp, content, { mode: 0o600, flag: 'wx' });
    await io.link(temp, lockPath);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    if (code === 'EEXIST') return false;
    if (!NO_LINK.has(code)) throw cannotLock(err, lockPath);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  // Not returned from the catch: its promise would reject while the finally still waits, unhandled.
  return createDirectly(lockPath, content);
}

/** Without hard links: an exclusive create; a reader meanwhile sees an empty lock, fresh by its age. */
async function createDirectly(lockPath: string, content: string): Promise<boolean> {
  try {
    const handle = await open(lockPath, 'wx', 0o600);
    try {
      await handle.writeFile(content);
    } finally {
      await handle.close();
    }
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw cannotLock(err, lockPath);
  }
}

async function look(lockPath: string): Promise<Seen | undefined> {
  let handle;
  try {
    // Non-blocking: a FIFO planted at the lock path would block the open until someone writes to it.
    handle = await open(lockPath, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw cannotLock(err, lockPath);
    // `link` finds the path taken and `open` finds no file: a wait for it to go would never end.
    if ((await lstat(lockPath).catch(() => undefined))?.isSymbolicLink() === true) {
      throw new StateError('cannot take the state lock: it is a symbolic link to a missing file (sessionctl never makes one: remove it)', lockPath);
    }
    return undefined;
  }
  let st: Stats;
  let text = '';
  try {
    st = await handle.stat();
    if (st.isFile()) text = await handle.readFile('utf8');
  } catch (err) {
    throw cannotLock(err, lockPath);
  } finally {
    await handle.close();
  }
  // A folder, a FIFO, a device: sessionctl never makes one, and reading it fails or blocks.
  if (!st.isFile()) throw new StateError('cannot take the state lock: it is not a regular file (sessionctl never makes one: remove it)', lockPath);
  return { text, ino: st.ino, mtimeMs: st.mtimeMs, ...parseLock(text) };
}

function parseLock(text: string): Pick<Seen, 'pid' | 'hostname' | 'holder'> {
  // A lock without an id (written before ids, or half-written) is named by a digest of its text.
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
  try {
    const v = JSON.parse(text) as Record<string, unknown>;
    if (typeof v['pid'] === 'number' && typeof v['hostname'] === 'string') {
      const id = typeof v['id'] === 'string' && v['id'] !== '' ? v['id'] : digest;
      const since = typeof v['since'] === 'string' ? { since: v['since'] } : {};
      return { pid: v['pid'], hostname: v['hostname'], holder: { id, pid: v['pid'], hostname: v['hostname'], ...since } };
    }
  } catch {
    // An unreadable lock is judged by its age alone.
  }
  return { holder: { id: digest } };
}

/**
 * Why a lock may be taken over, or undefined while its holder may run. A process of this host is
 * asked (a running one keeps its lock, whatever its age); one of another host, or a lock that
 * cannot be read, is judged by how long ago it was last refreshed.
 */
function staleBecause(seen: Seen, options: StateLockOptions, now: Date): string | undefined {
  const { pid, hostname } = seen;
  if (pid !== undefined && hostname === options.owner.hostname) {
    if (pid === options.owner.pid || options.isAlive(pid)) return undefined;
    return `process ${pid} is no longer running on this host`;
  }
  const age = now.getTime() - seen.mtimeMs;
  if (age <= (options.staleAfterMs ?? DEFAULT_STALE_MS)) return undefined;
  return `${pid === undefined ? 'it cannot be read, and it' : `it is held on ${hostname}, which cannot be asked, and it`} was not refreshed for ${formatWait(Math.floor(age / 1000) * 1000)}`;
}

/** For a lock a running process of this host keeps though it is old: what that means, for the refusal. */
function liveButOld(seen: Seen, options: StateLockOptions, now: Date): string {
  if (seen.hostname !== options.owner.hostname || now.getTime() - seen.mtimeMs <= (options.staleAfterMs ?? DEFAULT_STALE_MS)) return '';
  return ` (process ${seen.pid} is running on this host, so its lock is not taken over for its age, though it was not refreshed for ${formatWait(Math.floor((now.getTime() - seen.mtimeMs) / 1000) * 1000)}: if that process is not a sessionctl run, its pid was reused)`;
}

function sameLock(a: Seen, b: Seen): boolean {
  return a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.text === b.text;
}

/** Replaces the stale lock `seen` with ours, under the breaker, if it is still there unchanged. */
async function takeOver(lockPath: string, seen: Seen, content: string, io: FileLockIo): Promise<'taken' | 'busy' | 'changed'> {
  if (!(await takeBreaker(lockPath))) return 'busy';
  try {
    const now = await look(lockPath);
    if (now === undefined || !sameLock(now, seen)) return 'changed';
    const temp = `${lockPath}.${randomUUID()}.tmp`;
    try {
      await writeFile(temp, content, { mode: 0o600, flag: 'wx' });
      await io.rename(temp, lockPath);
    } catch (err) {
      await unlink(temp).catch(() => undefined);
      throw cannotLock(err, lockPath);
    }
    return 'taken';
  } finally {
    await unlink(breakerPathOf(lockPath)).catch(() => undefined);
  }
}

async function takeBreaker(lockPath: string): Promise<boolean> {
  const breaker = breakerPathOf(lockPath);
  try {
    await (await open(breaker, 'wx', 0o600)).close();
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotLock(err, breaker);
  }
  const st = await stat(breaker).catch(() => undefined);
  if (st !== undefined && Date.now() - st.mtimeMs > BREAKER_STALE_MS) await unlink(breaker).catch(() => undefined);
  return false;
}

async function underBreaker<T>(lockPath: string, work: () => Promise<T>): Promise<T> {
  while (!(await takeBreaker(lockPath))) await sleep(BREAKER_RETRY_MS);
  try {
    return await work();
  } finally {
    await unlink(breakerPathOf(lockPath)).catch(() => undefined);
  }
}

/** The lock file could not be made, read or replaced: the state cannot be locked (exit code 5, not a usage error). */
function cannotLock(err: unknown, path: string): StateError {
  return new StateError(`cannot take the state lock: ${(err as Error).message}`, path, { cause: err });
}
