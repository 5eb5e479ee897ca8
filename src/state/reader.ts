import type { StateEntry } from './entry.js';

/**
 * The state read by an application at run time: no lock, no write, each call reads the state as it
 * is then (a pipeline may have applied meanwhile).
 */
export interface StateReader {
  readonly location: string;
  get(name: string, userId: string): Promise<StateEntry | undefined>;
  /** Every entry, by name then user id. */
  list(): Promise<StateEntry[]>;
  /** Closes the connections (PostgreSQL); later calls fail. */
  close(): Promise<void>;
}
