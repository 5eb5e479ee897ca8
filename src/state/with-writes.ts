import type { LockedState } from './store.js';

type Writes = Partial<Pick<LockedState, 'record' | 'forget' | 'bind' | 'publish'>>;

/**
 * A locked state whose writes go through `writes` (those it names), with `extra` members added;
 * reads, the binding and the lock pass through to `state`, read when asked (a getter, not a copy:
 * the binding changes when it is written).
 */
export function withWrites<E extends object = object>(state: LockedState, writes: Writes, extra?: E): LockedState & E {
  return {
    get location() {
      return state.location;
    },
    get hashAtLoad() {
      return state.hashAtLoad;
    },
    get binding() {
      return state.binding;
    },
    get published() {
      return state.published;
    },
    get fleet() {
      return state.fleet;
    },
    get publishedVersions() {
      return state.publishedVersions;
    },
    // Read when asked: it is there only while the lock is held.
    get rollout() {
      return state.rollout;
    },
    get: (name, userId) => state.get(name, userId),
    list: () => state.list(),
    bind: writes.bind ?? ((binding) => state.bind(binding)),
    record: writes.record ?? ((entry) => state.record(entry)),
    forget: writes.forget ?? ((name, userId) => state.forget(name, userId)),
    publish: writes.publish ?? ((publications) => state.publish(publications)),
    ...(state.forgetFleet !== undefined ? { forgetFleet: state.forgetFleet.bind(state) } : {}),
    ...(state.unpublish !== undefined ? { unpublish: state.unpublish.bind(state) } : {}),
    unlock: () => state.unlock(),
    ...(extra as E),
  };
}
