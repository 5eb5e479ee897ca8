import { ApiError } from '../client/errors.js';
import type { StateBackend } from '../state/backend.js';
import type { StateEntry } from '../state/entry.js';
import type { StateLockOptions } from '../state/file-lock.js';

export interface DeleteSessionOptions {
  state: StateBackend;
  lock: StateLockOptions;
  /** The service's DELETE (v3.1). */
  deleteSession: (sessionId: string) => Promise<unknown>;
}

export interface DeletedSession {
  sessionId: string;
  /** `deleted` by this run, or `already-gone` (the service answered 404). */
  outcome: 'deleted' | 'already-gone';
  /** The state's entries that recorded it, now forgotten (none when it was not recorded). */
  forgotten: StateEntry[];
}

/**
 * `sessionctl delete SESSION`: deletes one session on the service and forgets the state's record
 * of it, as destroy does for a manifest's sessions. Under the state's lock, so that no apply
 * records the session meanwhile; a state that was never written is not created for it. A 404 is
 * no failure: the session is gone either way, and its record goes with it.
 */
export async function deleteRecordedSession(sessionId: string, options: DeleteSessionOptions): Promise<DeletedSession> {
  const recorded = (await options.state.load()).hashAtLoad !== '';
  if (!recorded) return { sessionId, outcome: await deleteOnService(sessionId, options), forgotten: [] };
  const state = await options.state.openLocked(options.lock);
  try {
    const outcome = await deleteOnService(sessionId, options);
    const forgotten = state.list().filter((e) => e.session_id === sessionId);
    for (const e of forgotten) await state.forget(e.name, e.user_id);
    return { sessionId, outcome, forgotten };
  } finally {
    await state.unlock();
  }
}

async function deleteOnService(sessionId: string, options: DeleteSessionOptions): Promise<DeletedSession['outcome']> {
  try {
    await options.deleteSession(sessionId);
    return 'deleted';
  } catch (err) {
    if (err instanceof ApiError && err.kind === 'http' && err.status === 404) return 'already-gone';
    throw err;
  }
}
