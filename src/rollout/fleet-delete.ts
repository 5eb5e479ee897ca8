import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, isKeyRefused, KeyRefusedError } from '../client/errors.js';
import { StateError } from '../diagnostics/errors.js';
import type { FleetDeletion } from '../plan/fleet-deletions.js';
import type { FleetSession } from '../state/fleet.js';
import type { FleetRollout } from '../state/fleet-rollout.js';
import { batcher } from '../util/batch.js';
import type { RateLimiter } from '../util/throttle.js';
import { eachRow, fleetRows } from './pages.js';
import type { RolloutProgress } from './types.js';

/** What deleting a per-user manifest's sessions did. */
export interface FleetDeleteResult {
  name: string;
  /** Sessions recorded when the run started. */
  total: number;
  /** DELETEd, and their rows removed. */
  deleted: number;
  /** Answered 404 (an earlier run's DELETE whose row removal was lost, or deleted behind the state's back): rows removed. */
  alreadyGone: number;
  /** DELETE refused or lost: the rows stay, and a re-run deletes them. */
  failed: number;
  /** The first failures, by user and session. */
  failures: Array<{ user_id: string; session_id: string; message: string }>;
  /** Sessions an ensure created while the run deleted, deleted by the same run. */
  raced: number;
  /** Whether the publication was removed (last, once no session is left). */
  unpublished: boolean;
  /** Creates of unknown outcome left recorded: no session id to delete. */
  unknown: number;
  /** Creates still under way when the run stopped waiting for them: what they record stays. */
  createsUnderWay: number;
  stopped?: 'interrupted' | 'state';
}

export interface FleetDeleteOptions {
  store: FleetRollout;
  /** Removes the publication, once every session is gone. */
  unpublish: () => Promise<void>;
  api: { deleteSession(sessionId: string): Promise<unknown> };
  limiter?: RateLimiter | undefined;
  concurrency: number;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: RolloutProgress) => void) | undefined;
  pageSize?: number;
  /** How long to wait for creates that took their claim before the publication went. */
  createsWaitMs?: number | undefined;
}

/** Passes over the rows after the first: sessions ensure recorded meanwhile. */
const PASSES = 5;
const LOOK_MS = 250;
const NAMED_FAILURES = 20;

/**
 * Deletes every recorded session of a per-user manifest, then its publication. Each row is removed
 * (in batches) only after its session's DELETE succeeded or answered 404, so the rows are the
 * checkpoint: a run stopped anywhere, even killed, resumes with the rows still there, and a
 * session whose removal was lost answers the re-run's DELETE with a 404, counted as gone. The
 * publication goes last (the application may create sessions of it until then, which further
 * passes pick up), and only once no session is left, so that a re-run still finds the manifest.
 */
export async function deleteFleet(d: FleetDeletion, options: FleetDeleteOptions): Promise<FleetDeleteResult> {
  const result: FleetDeleteResult = { name: d.name, total: d.sessions, deleted: 0, alreadyGone: 0, failed: 0, failures: [], raced: 0, unpublished: false, unknown: d.unknown, createsUnderWay: 0 };
  const run = new DeleteRun(d.name, options, result);
  for (let pass = 0; pass < PASSES && run.going(); pass++) {
    const before = run.seen;
    await run.pass(pass === 0 ? 'rollout' : 'race');
    if (pass > 0) result.raced += run.seen - before;
    if (run.seen === before) break;
  }
  if (!run.going() || result.failed > 0) return result;
  if (d.published) {
    await options.unpublish();
    result.unpublished = true;
  }
  // Creates that took their claim before the publication went may still record a session.
  const cutoff = await options.store.clock();
  const started = Date.now();
  let under = await options.store.createsUnderWay(d.name, cutoff);
  while (under > 0 && Date.now() - started < (options.createsWaitMs ?? 60_000) && run.going()) {
    await sleep(LOOK_MS);
    under = await options.store.createsUnderWay(d.name, cutoff);
  }
  result.createsUnderWay = under;
  const before = run.seen;
  if (run.going()) await run.pass('race');
  result.raced += run.seen - before;
  return result;
}

/** One deletion's running state: the batched removal of rows, the failures, the stop. */
class DeleteRun {
  seen = 0;
  private readonly failedUsers = new Set<string>();
  private readonly remove: (row: FleetSession) => Promise<void>;
  private readonly started = Date.now();

  constructor(
    private readonly name: string,
    private readonly options: FleetDeleteOptions,
    private readonly result: FleetDeleteResult,
  ) {
    this.remove = batcher(async (rows: readonly FleetSession[]) => {
      await options.store.removeSessions(rows);
      return rows.map(() => undefined);
    }, { maxRunning: 1, maxBatch: 500 });
  }

  going(): boolean {
    if (this.result.stopped === undefined && this.options.signal?.aborted === true) this.result.stopped = 'interrupted';
    return this.result.stopped === undefined;
  }

  /** Deletes every session still recorded (but this run's failures), page by page. */
  async pass(phase: RolloutProgress['phase']): Promise<void> {
    const limit = this.options.pageSize ?? 500;
    const rows = fleetRows((after) => this.options.store.sessions({ name: this.name, limit, ...(after !== undefined ? { after } : {}) }), limit);
    await eachRow(rows, this.options.concurrency, () => this.going(), async (row) => {
      if (this.failedUsers.has(row.user_id)) return;
      this.seen++;
      await this.deleteOne(row);
      this.progress(phase);
    });
  }

  private async deleteOne(row: FleetSession): Promise<void> {
    await this.options.limiter?.acquire();
    let gone: 'deleted' | 'alreadyGone' = 'deleted';
    try {
      await this.options.api.deleteSession(row.session_id);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      // A refused key refuses every session alike: the run stops, not 100,000 failures.
      if (isKeyRefused(err)) throw new KeyRefusedError(err);
      if (err.status !== 404) return this.fail(row, err.message);
      gone = 'alreadyGone';
    }
    try {
      await this.remove(row);
    } catch (err) {
      if (!(err instanceof StateError)) throw err;
      this.result.stopped ??= 'state';
      return this.fail(row, `deleted, but its row could not be removed (the next run's DELETE answers 404 and removes it): ${err.message}`);
    }
    this.result[gone]++;
  }

  private fail(row: FleetSession, message: string): void {
    this.result.failed++;
    this.failedUsers.add(row.user_id);
    if (this.result.failures.length < NAMED_FAILURES) this.result.failures.push({ user_id: row.user_id, session_id: row.session_id, message });
  }

  private progress(phase: RolloutProgress['phase']): void {
    const onProgress = this.options.onProgress;
    if (onProgress === undefined) return;
    const r = this.result;
    const done = r.deleted + r.alreadyGone + r.failed;
    const seconds = (Date.now() - this.started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const total = Math.max(r.total, done);
    onProgress({ name: this.name, done, total, failed: r.failed, rate, eta: rate > 0 ? (total - done) / rate : undefined, phase, verb: 'delete' });
  }
}
