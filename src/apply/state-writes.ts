import { StateError } from '../diagnostics/errors.js';
import type { LockedState } from '../state/store.js';
import { withWrites } from '../state/with-writes.js';

/**
 * The state as apply writes it: a write that fails is a StateError whatever the backend threw (a
 * file system error, the database's, a lock gone), so that the run tells a state that cannot be
 * written from a bug in sessionctl, stops starting requests, and reports what it did (exit code 5).
 */
export function guardWrites(state: LockedState): LockedState {
  const failed = (err: unknown): never => {
    throw err instanceof StateError ? err : new StateError(err instanceof Error ? err.message : String(err), state.location, { cause: err });
  };
  return withWrites(state, {
    bind: (binding) => state.bind(binding).catch(failed),
    record: (entry) => state.record(entry).catch(failed),
    forget: (name, userId) => state.forget(name, userId).catch(failed),
  });
}
