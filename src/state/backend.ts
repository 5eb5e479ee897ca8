import { resolve } from 'node:path';
import type { StateLockOptions } from './file-lock.js';
import { FileStateStore } from './file-store.js';
import type { LockedState, StateView } from './store.js';

/** Where the state is kept, and how it is read and locked. */
export interface StateBackend {
  readonly kind: 'file';
  /** For messages and saved plans: a file path, or a URL without its password. */
  readonly location: string;
  /** The entries as they are now (no lock). */
  load(): Promise<StateView>;
  /** Takes the lock, then reads; the caller must `unlock()` the result. */
  openLocked(lock: StateLockOptions): Promise<LockedState>;
}

/** The file backend: one JSON document at `path` (absolute), locked by a lock file beside it. */
export function fileBackend(path: string): StateBackend {
  return {
    kind: 'file',
    location: path,
    load: () => FileStateStore.load(path),
    openLocked: (lock) => FileStateStore.openLocked(path, lock),
  };
}

/** The backend a `--state` value names, relative to `cwd`. */
export function stateBackend(spec: string, cwd: string): StateBackend {
  return fileBackend(resolve(cwd, spec));
}
