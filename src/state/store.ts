import type { StateBinding } from './binding.js';
import type { StateEntry } from './entry.js';
import type { FleetCount, FleetSession, Publication } from './fleet.js';
import type { FleetRollout } from './fleet-rollout.js';

/**
 * The state as plan, apply, diff and the operate commands see it, whichever backend holds it: the
 * entries as read (a snapshot; reading needs no lock).
 */
export interface StateView {
  /** Where the state is, for messages: a file path or a URL without its password. */
  readonly location: string;
  /** A digest of the state as read ('' when there was none): a saved plan holds only while it is unchanged. */
  readonly hashAtLoad: string;
  get(name: string, userId: string): StateEntry | undefined;
  /** Every entry, by name then user id. */
  list(): StateEntry[];
  /** The service the state is bound to; undefined before the first apply (or when an earlier sessionctl wrote it). */
  readonly binding: StateBinding | undefined;
  /** The per-user manifests published, by name (a backend without them has none). */
  readonly published?: ReadonlyMap<string, Publication>;
  /** How many sessions each per-user manifest has, by name, as read (counted, never listed). */
  readonly fleet?: ReadonlyMap<string, FleetCount>;
  /** Earlier versions of the publications that sessions are still on, by `versionKey(name, version)`. */
  readonly publishedVersions?: ReadonlyMap<string, Publication>;
}

/** The state opened for writing: taken under its lock, which `unlock` releases after the last write. */
export interface LockedState extends StateView {
  /** Records (inserts or replaces) an entry; resolves once the backend holds it durably. */
  record(entry: StateEntry): Promise<void>;
  /**
   * Records many entries as one write: once it resolves the backend holds all of them, and when
   * it fails, none (`state push`). A backend without it records them one by one.
   */
  recordAll?(entries: readonly StateEntry[]): Promise<void>;
  /** Removes an entry; resolves once the backend no longer holds it. */
  forget(name: string, userId: string): Promise<void>;
  /** Records the service the state is bound to (replacing any); resolves once it is durable. */
  bind(binding: StateBinding): Promise<void>;
  /** Publishes per-user manifests, all or none (replacing earlier versions); resolves once durable. */
  publish(publications: readonly Publication[]): Promise<void>;
  /**
   * Removes the publications of per-user manifests and the versions kept of them, all or none
   * (destroy, prune: after their sessions); an application's ensure then creates none for them.
   */
  unpublish?(names: readonly string[]): Promise<void>;
  /** The fleet's rows as a rollout, diff or prune of a per-user manifest reads and writes them; undefined without the lock. */
  readonly rollout?: FleetRollout | undefined;
  /** Forgets one end user's session (or claim) of a per-user manifest; what it was, or undefined when none was recorded. */
  forgetFleet?(name: string, userId: string): Promise<FleetSession | undefined>;
  /** Waits for writes in flight, then releases the lock. Writes after it are refused. */
  unlock(): Promise<void>;
}

/** What is at a state's location, read without the entries: enough to guard a run before it starts. */
export interface StateOrigin {
  /** false for a file that does not exist, a database without the schema, or a workspace never written. */
  exists: boolean;
  binding?: StateBinding;
  /** PostgreSQL: the other workspaces of the schema that hold a state (a new one is announced naming them). */
  otherWorkspaces?: string[];
}
