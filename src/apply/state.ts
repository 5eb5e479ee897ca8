import { open, readFile, stat, unlink, mkdir } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { InputError } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';

/** The state file sessionctl writes unless `--state` says otherwise (relative to the cwd). */
export const DEFAULT_STATE_PATH = '.sessionctl/state.json';

/** The format version of the state file. A newer version is refused, never rewritten. */
export const STATE_VERSION = 1;

/** What apply recorded for one manifest and resolved user id. */
export interface StateEntry {
  name: string;
  user_id: string;
  session_id: string;
  mcp_url: string;
  tool_router_tools: string[];
  /** SHA-256 of the canonical request body (`bodyHash`). */
  body_hash: string;
  /** ISO 8601. */
  applied_at: string;
}

export interface StateFile {
  version: typeof STATE_VERSION;
  sessions: StateEntry[];
}

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

function keyOf(name: string, userId: string): string {
  return `${name}\0${userId}`;
}

/**
 * The state of applied manifests: read once, then kept in memory and written back after every
 * recorded session. Reading needs no lock (the file is only ever replaced whole by a rename);
 * writing needs `lock()` first.
 */
export class StateStore {
  private readonly entries = new Map<string, StateEntry>();
  private lockHeld = false;
  private writing: Promise<void> = Promise.resolve();
  private pendingWrite: Promise<void> | undefined;

  private loadedHash = '';

  private constructor(readonly path: string) {}

  /** SHA-256 of the file as read ('' when there was none), for saved plans. */
  get hashAtLoad(): string {
    return this.loadedHash;
  }

  /**
   * Reads the state file; a missing file is an empty state. A file that is not a state file
   * (bad JSON, wrong shape, a newer version) is an InputError and is never overwritten.
   */
  static async load(path: string): Promise<StateStore> {
    const store = new StateStore(path);
    await store.read();
    return store;
  }

  /** Takes the lock first and then reads, so that nobody can write between the read and the lock. */
  static async openLocked(path: string, options: StateLockOptions): Promise<StateStore> {
    const store = new StateStore(path);
    await store.lock(options);
    try {
      await store.read();
    } catch (err) {
      await store.unlock();
      throw err;
    }
    return store;
  }

  private async read(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new InputError(`cannot read the state file: ${(err as Error).message}`, this.path, { cause: err });
    }
    const entries = parseState(text, this.path);
    this.entries.clear();
    for (const e of entries) this.entries.set(keyOf(e.name, e.user_id), e);
    this.loadedHash = hashText(text);
  }

  get(name: string, userId: string): StateEntry | undefined {
    return this.entries.get(keyOf(name, userId));
  }

  list(): StateEntry[] {
    return [...this.entries.values()].sort(compareEntries);
  }

  /** The state as it would be written now. */
  toJSON(): StateFile {
    return { version: STATE_VERSION, sessions: this.list() };
  }

  /**
   * Takes the lock (`<state>.lock`, created exclusively). A lock left by a process that no longer
   * runs on this host, or older than `staleAfterMs`, is removed and taken over; a live one is an
   * InputError that names its holder.
   */
  async lock(options: StateLockOptions): Promise<void> {
    const lockPath = `${this.path}.lock`;
    await mkdir(dirname(this.path), { recursive: true });
    const now = options.now ?? (() => new Date());
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await open(lockPath, 'wx', 0o600);
        try {
          await handle.writeFile(JSON.stringify({ ...options.owner, since: now().toISOString() }) + '\n');
        } finally {
          await handle.close();
        }
        this.lockHeld = true;
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
      throw new InputError(`the state file is locked by ${who}; another apply is running. If it is not, delete ${lockPath}.`, this.path);
    }
  }

  /** Releases the lock, after the last write has finished. */
  async unlock(): Promise<void> {
    await this.flush();
    if (!this.lockHeld) return;
    this.lockHeld = false;
    await unlink(`${this.path}.lock`).catch(() => undefined);
  }

  /**
   * Records a session and resolves once the state file on disk holds it. Calls made while a write
   * is in flight are written together by the next one, so a run of many creates does not write the
   * file once per session while still never reporting a session as recorded before it is on disk.
   */
  record(entry: StateEntry): Promise<void> {
    if (!this.lockHeld) return Promise.reject(new Error('StateStore.record called without the lock'));
    this.entries.set(keyOf(entry.name, entry.user_id), entry);
    if (this.pendingWrite === undefined) {
      this.pendingWrite = this.writing.then(() => {
        this.pendingWrite = undefined;
        return this.write();
      });
      this.writing = this.pendingWrite.catch(() => undefined);
    }
    return this.pendingWrite;
  }

  /** Waits for writes in flight. */
  async flush(): Promise<void> {
    await this.writing;
  }

  private async write(): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true });
    await writeFileAtomic(this.path, JSON.stringify(this.toJSON(), null, 2) + '\n', { mode: 0o600 });
  }
}

/** SHA-256 of the state file as it is on disk now ('' when there is none). */
export async function stateFileHash(path: string): Promise<string> {
  try {
    return hashText(await readFile(path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new InputError(`cannot read the state file: ${(err as Error).message}`, path, { cause: err });
  }
}

function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function compareEntries(a: StateEntry, b: StateEntry): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0;
}

/** Parses and checks a state file; every problem names the file and what to do. */
export function parseState(text: string, path: string): StateEntry[] {
  const corrupt = (why: string): InputError =>
    new InputError(`the state file is not valid (${why}); it was left untouched. Restore it from version control or a backup, or move it aside to start over.`, path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw corrupt(`not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw corrupt('not a JSON object');
  const v = value as Record<string, unknown>;
  if (typeof v['version'] !== 'number') throw corrupt('no "version"');
  if (v['version'] !== STATE_VERSION) {
    throw new InputError(`the state file has format version ${String(v['version'])}; this sessionctl reads version ${STATE_VERSION}. Use a newer sessionctl.`, path);
  }
  if (!Array.isArray(v['sessions'])) throw corrupt('"sessions" is not a list');
  return v['sessions'].map((s, i) => {
    const e = s as Record<string, unknown>;
    const strings = ['name', 'user_id', 'session_id', 'mcp_url', 'body_hash', 'applied_at'] as const;
    for (const key of strings) {
      if (typeof e?.[key] !== 'string') throw corrupt(`sessions[${i}].${key} is not a string`);
    }
    if (!Array.isArray(e['tool_router_tools']) || !e['tool_router_tools'].every((t) => typeof t === 'string')) {
      throw corrupt(`sessions[${i}].tool_router_tools is not a list of strings`);
    }
    return {
      name: e['name'] as string,
      user_id: e['user_id'] as string,
      session_id: e['session_id'] as string,
      mcp_url: e['mcp_url'] as string,
      tool_router_tools: [...(e['tool_router_tools'] as string[])],
      body_hash: e['body_hash'] as string,
      applied_at: e['applied_at'] as string,
    };
  });
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

/** The lock owner of this host and a given pid. */
export function lockOwner(pid: number): LockOwner {
  return { pid, hostname: hostname() };
}
