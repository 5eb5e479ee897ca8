import { ApiError, isKeyRefused, KeyRefusedError } from '../client/errors.js';
import { UsageError } from '../diagnostics/errors.js';
import type { StateBackend } from '../state/backend.js';
import { bindingFor, describeService, type ServiceIdentity, type StateBinding } from '../state/binding.js';
import { hasSession } from '../state/entry.js';
import type { StateLockOptions } from '../state/lock.js';
import { mapConcurrent } from '../util/throttle.js';
import type { Connect } from './connection.js';

export interface RebindOptions {
  state: StateBackend;
  connect: Connect;
  /** The service and key to bind the state to. */
  service: ServiceIdentity;
  lock: StateLockOptions;
  concurrency?: number;
  now?: () => Date;
}

export interface RebindResult {
  location: string;
  previous?: StateBinding;
  binding: StateBinding;
  /** Recorded sessions read with the new key, every one of which answered. */
  checked: number;
}

const SHOWN = 5;

/**
 * `state rebind`: binds the state to the run's service and key (a key rotation, a gateway in front
 * of the same service), only once every recorded session answers there with that key. One that
 * does not (404: another project; 401: a refused key) keeps the old binding: a rebind must not
 * become the way around the guard it exists for.
 */
export async function runRebind(options: RebindOptions): Promise<RebindResult> {
  const state = await options.state.openLocked(options.lock);
  try {
    const recorded = state.list().filter(hasSession);
    const failed: string[] = [];
    if (recorded.length > 0) {
      const api = await options.connect();
      try {
        await mapConcurrent(recorded, options.concurrency ?? 8, async (e) => {
          try {
            await api.getSession(e.session_id);
          } catch (err) {
            if (isKeyRefused(err)) throw new KeyRefusedError(err as ApiError);
            const why = err instanceof ApiError && err.status === 404 ? 'not found (404)' : err instanceof Error ? err.message : String(err);
            failed.push(`${e.name} (user ${e.user_id}) ${e.session_id}: ${why}`);
          }
        });
      } finally {
        await api.close();
      }
    }
    if (failed.length > 0) {
      failed.sort();
      const more = failed.length > SHOWN ? `; and ${failed.length - SHOWN} more` : '';
      throw new UsageError(
        `${failed.length} of ${recorded.length} recorded sessions do not answer at ${describeService(options.service.service)} with this key, so the state ${state.location} was not rebound: ${failed.slice(0, SHOWN).join('; ')}${more}`,
        'rebind with the key and base URL of the project these sessions live in; a session really gone is forgotten with `sessionctl state rm` first',
      );
    }
    const previous = state.binding;
    const binding = bindingFor(options.service, (options.now ?? (() => new Date()))());
    await state.bind(binding);
    return { location: state.location, ...(previous !== undefined ? { previous } : {}), binding, checked: recorded.length };
  } finally {
    await state.unlock();
  }
}
