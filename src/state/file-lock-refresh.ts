import { utimes } from 'node:fs/promises';
import { lockPathOf, readFileLock } from './file-lock.js';

/** How often a held file lock is refreshed unless the lock options say otherwise. */
export const DEFAULT_REFRESH_MS = 60_000;

/**
 * Keeps a held file lock fresh: every `everyMs`, while the lock file still names `id`, its
 * modification time is set to now. A run on another host cannot ask whether the holder still
 * runs, and judges its lock by that time alone; refreshed, a running holder's lock never looks
 * stale, however long the run. Returns the function that stops it (before the lock is released).
 */
export function keepFileLockFresh(statePath: string, id: string, everyMs: number = DEFAULT_REFRESH_MS): () => void {
  const timer = setInterval(() => void refreshFileLock(statePath, id), everyMs);
  // The refresh must not keep a finished run alive.
  timer.unref();
  return () => clearInterval(timer);
}

/** Sets the lock's time to now if it is still `id`'s; false when it is not (released, or taken over). */
export async function refreshFileLock(statePath: string, id: string): Promise<boolean> {
  try {
    if ((await readFileLock(statePath))?.id !== id) return false;
    const now = new Date();
    await utimes(lockPathOf(statePath), now, now);
    return true;
  } catch {
    // A refresh that fails (the disk, a lock replaced meanwhile) is tried again at the next tick;
    // the lock itself stays what it was.
    return false;
  }
}
