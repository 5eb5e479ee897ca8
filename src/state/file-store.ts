import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StateError } from '../diagnostics/errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { StateBinding } from './binding.js';
import { compareEntries, entryKey, FLEET_STATE_VERSION, parseStateDocument, STATE_VERSION, type StateEntry, type StateFile } from './entry.js';
import { versionKey, type FleetCount, type FleetSession, type Publication } from './fleet.js';
import { countFleetFile, removeFleetRow } from './file-fleet.js';
import { fileRollout } from './file-fleet-rollout.js';
import type { FleetRollout } from './fleet-rollout.js';
import { readStateText } from './state-text.js';
import { readFileLock, releaseFileLock, takeFileLock } from './file-lock.js';
import { keepFileLockFresh } from './file-lock-refresh.js';
import type { StateLockOptions } from './lock.js';
import type { LockedState, StateOrigin, StateView } from './store.js';

/** The state file sessionctl writes unless `--state` says otherwise (relative to the cwd). */
export const DEFAULT_STATE_PATH = '.sessionctl/state.json';

/**
 * The file backend: the state of applied manifests in one JSON file, read once, then kept in
 * memory and written back after every recorded session. Reading needs no lock (the file is only
 * ever replaced whole by a rename); writing needs the lock, which `openLocked` takes.
 */
export class FileStateStore implements LockedState {
  private readonly entries = new Map<string, StateEntry>();
  /** The id of the lock this store holds; undefined when it holds none. */
  private heldLock: string | undefined;
  /** Stops refreshing the held lock (file-lock-refresh.ts). */
  private stopRefresh: () => void = () => undefined;
  private writing: Promise<void> = Promise.resolve();
  private pendingWrite: Promise<void> | undefined;
  private loadedHash = '';
  private bound: StateBinding | undefined;
  private readonly publications = new Map<string, Publication>();
  private readonly history = new Map<string, Publication>();
  private counts = new Map<string, FleetCount>();

  private constructor(readonly path: string) {}

  get location(): string {
    return this.path;
  }

  /** SHA-256 of the file as read ('' when there was none), for saved plans. */
  get hashAtLoad(): string {
    return this.loadedHash;
  }

  /**
   * Reads the state file; a missing file is an empty state. A file that is not a state file
   * (bad JSON, wrong shape, a newer version) is an InputError and is never overwritten.
   */
  static async load(path: string): Promise<StateView> {
    const store = new FileStateStore(path);
    await store.read();
    return store;
  }

  /** Takes the lock first and then reads, so that nobody can write between the read and the lock. */
  static async openLocked(path: string, options: StateLockOptions): Promise<LockedState> {
    const store = new FileStateStore(path);
    store.heldLock = await takeFileLock(path, options);
    store.stopRefresh = keepFileLockFresh(path, store.heldLock, options.refreshMs);
    try {
      await store.read();
    } catch (err) {
      await store.unlock();
      throw err;
    }
    return store;
  }

  /** Whether a state file is at `path`, and the service it is bound to. */
  static async probe(path: string): Promise<StateOrigin> {
    const text = await readStateText(path);
    if (text === undefined) return { exists: false };
    const { binding } = parseStateDocument(text, path);
    return { exists: true, ...(binding !== undefined ? { binding } : {}) };
  }

  get binding(): StateBinding | undefined {
    return this.bound;
  }

  /** Records the binding with the next write of the file. */
  bind(binding: StateBinding): Promise<void> {
    if (this.heldLock === undefined) return Promise.reject(new Error('FileStateStore.bind called without the lock'));
    this.bound = binding;
    return this.scheduleWrite();
  }

  get published(): ReadonlyMap<string, Publication> {
    return this.publications;
  }

  get fleet(): ReadonlyMap<string, FleetCount> {
    return this.counts;
  }

  forgetFleet(name: string, userId: string): Promise<FleetSession | undefined> {
    if (this.heldLock === undefined) return Promise.reject(new Error('FileStateStore.forgetFleet called without the lock'));
    return removeFleetRow(this.path, name, userId);
  }

  /** Publishes with the next write of the file: all of them, or (the write failing) none. */
  publish(publications: readonly Publication[]): Promise<void> {
    if (this.heldLock === undefined) return Promise.reject(new Error('FileStateStore.publish called without the lock'));
    for (const p of publications) {
      const before = this.publications.get(p.name);
      if (before !== undefined && before.version !== p.version) this.history.set(versionKey(before.name, before.version), before);
      this.publications.set(p.name, p);
    }
    return this.scheduleWrite();
  }

  /** Removes publications (and the versions kept of them) with the next write of the file. */
  unpublish(names: readonly string[]): Promise<void> {
    if (this.heldLock === undefined) return Promise.reject(new Error('FileStateStore.unpublish called without the lock'));
    const gone = new Set(names);
    for (const name of gone) this.publications.delete(name);
    for (const [key, p] of this.history) if (gone.has(p.name)) this.history.delete(key);
    return this.scheduleWrite();
  }

  get publishedVersions(): ReadonlyMap<string, Publication> {
    return this.history;
  }

  /** The rollout's reads and writes of the fleet file: see FleetRollout. */
  get rollout(): FleetRollout | undefined {
    return this.heldLock === undefined ? undefined : fileRollout(this.path);
  }

  private async read(): Promise<void> {
    const text = await readStateText(this.path);
    if (text === undefined) return;
    const { entries, binding, published, history } = parseStateDocument(text, this.path);
    this.bound = binding;
    this.publications.clear();
    for (const p of published) this.publications.set(p.name, p);
    this.history.clear();
    for (const p of history) this.history.set(versionKey(p.name, p.version), p);
    // Only a state with publications has a fleet: a lookup of a fixed user's session reads one file.
    this.counts = published.length > 0 ? await countFleetFile(this.path) : new Map();
    this.entries.clear();
    for (const e of entries) this.entries.set(entryKey(e.name, e.user_id), e);
    this.loadedHash = hashText(text);
  }

  get(name: string, userId: string): StateEntry | undefined {
    return this.entries.get(entryKey(name, userId));
  }

  list(): StateEntry[] {
    return [...this.entries.values()].sort(compareEntries);
  }

  /** The state as it would be written now. */
  toJSON(): StateFile {
    const published = [...this.publications.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
    return {
      version: published.length > 0 ? FLEET_STATE_VERSION : STATE_VERSION,
      ...(this.bound !== undefined ? { binding: this.bound } : {}),
      sessions: this.list(),
      ...(published.length > 0 ? { published } : {}),
      ...(this.history.size > 0 ? { published_history: [...this.history.values()].sort((a, b) => (a.name !== b.name ? (a.name < b.name ? -1 : 1) : a.version - b.version)) } : {}),
    };
  }

  /** Releases the lock, after the last write has finished. */
  async unlock(): Promise<void> {
    await this.flush();
    const id = this.heldLock;
    if (id === undefined) return;
    this.heldLock = undefined;
    this.stopRefresh();
    try {
      await releaseFileLock(this.path, id);
    } catch (err) {
      throw new StateError(`the state lock ${id} could not be released (${reason(err)}); if the next run finds it held, release it with \`sessionctl state unlock ${id}\``, this.path, { cause: err });
    }
  }

  /**
   * Records an entry and resolves once the state file on disk holds it. Calls made while a write
   * is in flight are written together by the next one, so a run of many creates does not write the
   * file once per session while still never reporting a session as recorded before it is on disk.
   */
  record(entry: StateEntry): Promise<void> {
    if (this.heldLock === undefined) return Promise.reject(new Error('FileStateStore.record called without the lock'));
    this.entries.set(entryKey(entry.name, entry.user_id), entry);
    return this.scheduleWrite();
  }

  /** Removes an entry and resolves once the file on disk no longer holds it. */
  /** Every entry in the same write of the file, which replaces it whole: all of them or none. */
  recordAll(entries: readonly StateEntry[]): Promise<void> {
    if (this.heldLock === undefined) return Promise.reject(new Error('FileStateStore.recordAll called without the lock'));
    for (const entry of entries) this.entries.set(entryKey(entry.name, entry.user_id), entry);
    return this.scheduleWrite();
  }

  forget(name: string, userId: string): Promise<void> {
    if (this.heldLock === undefined) return Promise.reject(new Error('FileStateStore.forget called without the lock'));
    this.entries.delete(entryKey(name, userId));
    return this.scheduleWrite();
  }

  private scheduleWrite(): Promise<void> {
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
    // A run whose lock was released by `state unlock` (its holder judged dead) must not write on.
    const id = this.heldLock;
    let holder;
    try {
      holder = await readFileLock(this.path);
    } catch (err) {
      throw new StateError(`the state lock cannot be read (${reason(err)}); nothing was written`, this.path, { cause: err });
    }
    if (id !== undefined && holder?.id !== id) {
      throw new StateError(`the state lock ${id} is no longer held (it was released with \`sessionctl state unlock\`, or its folder was moved); the state file was not written`, this.path);
    }
    try {
      await mkdir(dirname(this.path), { recursive: true });
      await writeFileAtomic(this.path, JSON.stringify(this.toJSON(), null, 2) + '\n', { mode: 0o600 });
    } catch (err) {
      throw new StateError(`the state file cannot be written (${reason(err)})`, this.path, { cause: err });
    }
  }
}

/** SHA-256 of the state file as it is on disk now ('' when there is none). */
export async function stateFileHash(path: string): Promise<string> {
  const text = await readStateText(path);
  return text === undefined ? '' : hashText(text);
}

/** What the file system said, without the "cannot take the state lock" the lock's own errors start with. */
function reason(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause : err;
  return cause instanceof Error ? cause.message : String(cause);
}

function hashText(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
