import type { FleetSession } from './fleet.js';

/**
 * What a rollout reads and writes of a fleet, under the workspace's lock: the sessions of a
 * per-user manifest page by page (never the whole fleet at once), and its writes in batches.
 * The rollout's checkpoint is each row's own `version`: a session is rolled out once its row
 * records the version published, so a run that stopped anywhere resumes with the rows still
 * behind, and a row written twice is written with the same values.
 */
export interface FleetRollout {
  /**
   * Recorded sessions of `name` (claims not included) in user id order after `after`; with
   * `below`, only those created from (or rolled out to) an older version, or an unknown one.
   */
  sessions(query: FleetSessionsQuery): Promise<FleetSession[]>;
  /**
   * Records sessions rolled out to a new version, all in one write. A row that no longer holds the
   * session that was patched (removed with `state rm`, or its user's session created again) is
   * left as it is. Answers how many rows were written.
   */
  rolledOut(rows: readonly FleetSession[]): Promise<number>;
  /** Removes rows in one write, each only while it holds that session (prune, destroy). Answers how many went. */
  removeSessions(rows: readonly Pick<FleetSession, 'name' | 'user_id' | 'session_id'>[]): Promise<number>;
  /**
   * Creates of `name` under way that began before `before` (the state's clock): such a create may
   * have read the publication before this run replaced it, and may still record a session of the
   * older version.
   */
  createsUnderWay(name: string, before: string): Promise<number>;
  /** Now, by the state's clock (the database's for PostgreSQL): what `createsUnderWay` compares with. */
  clock(): Promise<string>;
}

export interface FleetSessionsQuery {
  name: string;
  /** Only sessions whose version is below this one (or unknown). */
  below?: number;
  /** Only this user's session. */
  userId?: string;
  /** The user id the previous page ended with. */
  after?: string;
  limit: number;
}

/** Whether a stored session belongs on a page of `query` (the file backend filters in memory). */
export function onPage(row: FleetSession, query: FleetSessionsQuery): boolean {
  if (row.name !== query.name || row.session_id === '') return false;
  if (query.userId !== undefined && row.user_id !== query.userId) return false;
  if (query.after !== undefined && !(row.user_id > query.after)) return false;
  return query.below === undefined || row.version === null || row.version < query.below;
}
