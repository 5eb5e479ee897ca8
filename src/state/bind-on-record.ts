import type { StateBinding } from './binding.js';
import { hasSession, type StateEntry } from './entry.js';
import type { LockedState } from './store.js';
import { withWrites } from './with-writes.js';

/**
 * The locked state with its binding written just before the first entry that names a live
 * session: the first moment the run's key and base URL are known to work. Bound earlier, a run
 * whose every create was refused (a revoked key) left the state bound to that key; a create's
 * write-ahead intent (no session yet) does not bind. `bindNow` binds at once (a refresh that read
 * sessions has proved the key too). Concurrent records wait for the one bind.
 */
export function bindOnRecord(state: LockedState, binding: () => StateBinding): LockedState & { bindNow(): Promise<void> } {
  let bound: Promise<void> | undefined;
  const bindNow = (): Promise<void> => (bound ??= state.bind(binding()));
  const record = async (entry: StateEntry): Promise<void> => {
    if (hasSession(entry)) await bindNow();
    return state.record(entry);
  };
  // A publication is what the application creates sessions from with this state's key: bound first.
  const publish = async (publications: Parameters<LockedState['publish']>[0]): Promise<void> => {
    if (publications.length > 0) await bindNow();
    return state.publish(publications);
  };
  return withWrites(state, { record, publish }, { bindNow });
}
