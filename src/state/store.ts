import type { StateEntry } from './entry.js';

/**
 * The state as plan, apply, diff and the operate commands see it, whichever backend holds it: the
 * entries as read (a snapshot; reading needs no lock).
 */
export interface StateView {
  /** Where the state is, for messages: a file path (never a credential). */
  readonly location: string;
  /** A digest of the state as read ('' when there was none): a saved plan holds only while it is unchanged. */
  readonly hashAtLoad: string;
  get(name: string, userId: string): StateEntry | undefined;
  /** Every entry, by name then user id. */
  list(): StateEntry[];
}

/** The state opened for writing: taken under its lock, which `unlock` releases after the last write. */
export interface LockedState extends StateView {
  /** Records a session; resolves once the backend holds it durably. */
  record(entry: StateEntry): Promise<void>;
  /** Waits for writes in flight, then releases the lock. */
  unlock(): Promise<void>;
}
