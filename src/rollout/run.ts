import { StateError } from '../diagnostics/errors.js';
import type { FleetSession } from '../state/fleet.js';
import type { FleetRollout } from '../state/fleet-rollout.js';
import { batcher } from '../util/batch.js';
import { eachRow, fleetRows } from './pages.js';
import { rollSession, type SessionStepContext, type StepOutcome } from './session-step.js';
import type { Canary } from './canary-size.js';
import type { RolloutFailure, RolloutProgress, RolloutResult } from './types.js';

export interface RolloutOptions extends Pick<SessionStepContext, 'api' | 'limiter' | 'strict'> {
  store: FleetRollout;
  /** PATCHes in flight at once. */
  concurrency: number;
  canary?: Canary | undefined;
  /** The rollout stops once more sessions than this failed (the rest untouched). */
  maxFailures?: number | undefined;
  /** Stops the rollout: no PATCH starts after it, those in flight are answered and recorded. */
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: RolloutProgress) => void) | undefined;
  /** Rows read per page. */
  pageSize?: number;
  /** How long the rollout waits for creates that read the older version to record their session. */
  createsWaitMs?: number;
}

/** The rows a pass reads: a manifest's sessions (below a version, for a rollout), a page at a time. */
export interface PageQuery {
  name: string;
  below?: number;
  limit: number;
}

/** What a run does to one session: a rollout's PATCH (rollSession), or a repair's. */
export type SessionStep = (row: FleetSession, ctx: SessionStepContext) => Promise<StepOutcome>;

/** At most this many failures are named in the result; the rest are counted. */
const NAMED_FAILURES = 20;

/**
 * Rolled-out rows not yet recorded that the PATCHes may run ahead of. A kill loses at most these
 * records, and their sessions cost the next run one read each (its PATCH answers 409, the read
 * finds them done): nothing is PATCHed twice for it. Bounded, so memory is too.
 */
const MAX_PENDING = 2_000;

/** One rollout's running state: the counts, the failures, the batched writes, the stop. */
export class Run {
  stopped: RolloutResult['stopped'];
  /** Sessions taken in hand (each once per run). */
  seen = 0;
  private readonly failedUsers = new Set<string>();
  private readonly startedAt = Date.now();
  private readonly record: (row: FleetSession) => Promise<void>;
  /** Records on their way to the state: the PATCHes go on meanwhile, up to MAX_PENDING ahead. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    readonly options: RolloutOptions,
    readonly ctx: SessionStepContext,
    readonly result: RolloutResult,
    private readonly step: SessionStep = rollSession,
  ) {
    const write = batcher(async (rows: readonly FleetSession[]) => {
      await options.store.rolledOut(rows);
      return rows.map(() => undefined);
    }, { maxRunning: 1, maxBatch: 500 });
    this.record = write;
  }

  /** Whether the run may start another session. */
  get going(): boolean {
    if (this.stopped !== undefined) return false;
    if (this.options.signal?.aborted === true) this.stopped = 'interrupted';
    return this.stopped === undefined;
  }

  /** Rolls out (or repairs) every session of the pages (skipping this run's failures), with `concurrency` workers. */
  async pass(page: PageQuery, phase: RolloutProgress['phase'], limit = Infinity): Promise<Array<{ row: FleetSession; outcome: StepOutcome }>> {
    const taken: Array<{ row: FleetSession; outcome: StepOutcome }> = [];
    let error: { err: unknown } | undefined;
    await eachRow(this.rows(page, limit, phase), this.options.concurrency, () => this.going, async (row) => {
      const outcome = await this.step(row, this.ctx);
      if (phase === 'canary') taken.push({ row, outcome });
      else await this.settle(row, outcome, phase);
    }).catch((err: unknown) => (error = { err }));
    // What was rolled out is recorded before the pass answers, even when it ends on an error.
    await this.drain().catch((err: unknown) => (error ??= { err }));
    if (error !== undefined) throw error.err;
    return taken;
  }

  /** The sessions behind, page by page, each at most once per run. */
  private async *rows(page: PageQuery, limit: number, phase: RolloutProgress['phase']): AsyncGenerator<FleetSession> {
    let given = 0;
    for await (const row of fleetRows((after) => this.options.store.sessions({ ...page, ...(after !== undefined ? { after } : {}) }), page.limit)) {
      if (given >= limit) return;
      if (this.failedUsers.has(row.user_id)) continue;
      // Sessions whose change PATCH cannot carry are counted once, by the main pass: a canary
      // is chosen among the others, and they are not remembered one by one (they may be all).
      if (phase !== 'rollout' && this.ctx.patchFor(row.version ?? 0) === undefined) continue;
      given++;
      this.seen++;
      yield row;
    }
  }

  /** Counts one session's outcome and records a rolled-out row; a state that cannot be written stops the run. */
  async settle(row: FleetSession, outcome: StepOutcome, phase: RolloutProgress['phase']): Promise<void> {
    if (outcome.kind === 'not-patchable') this.result.notPatchable++;
    else if (outcome.kind === 'failed') this.fail(outcome.failure);
    else if (outcome.kind === 'skipped') return;
    else if (outcome.kind === 'in-sync') this.result.alreadyDone++;
    else {
      const kind = outcome.kind;
      const recorded: Promise<void> = this.record(outcome.row).then(
        () => {
          this.pending.delete(recorded);
          if (kind === 'patched') this.result.patched++;
          else this.result.alreadyDone++;
          this.progress(phase);
        },
        (err: unknown) => {
          this.pending.delete(recorded);
          if (!(err instanceof StateError)) throw err;
          this.stopped ??= 'state';
          this.fail({ user_id: row.user_id, session_id: row.session_id, kind: 'outcome-unknown', message: `rolled out, but not recorded: ${err.message}` });
        },
      );
      this.pending.add(recorded);
      if (this.pending.size >= MAX_PENDING) await Promise.race(this.pending);
      return;
    }
    this.progress(phase);
  }

  /** Waits until every rolled-out row is recorded (or failed to be). */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  fail(failure: RolloutFailure): void {
    this.result.failed++;
    this.failedUsers.add(failure.user_id);
    if (this.result.failures.length < NAMED_FAILURES) this.result.failures.push(failure);
    if (this.result.failed > this.result.maxFailures) this.stopped ??= 'max-failures';
  }

  private progress(phase: RolloutProgress['phase']): void {
    if (this.options.onProgress === undefined) return;
    const r = this.result;
    const done = r.patched + r.alreadyDone + r.failed + r.notPatchable;
    const seconds = (Date.now() - this.startedAt) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const total = Math.max(r.total, done);
    this.options.onProgress({ name: r.name, done, total, failed: r.failed, rate, eta: rate > 0 ? (total - done) / rate : undefined, phase, ...(r.kind === 'repair' ? { verb: 'repair' as const } : {}) });
  }

  end(stopped: RolloutResult['stopped']): RolloutResult {
    const r = this.result;
    if (stopped !== undefined) {
      r.stopped = stopped;
      r.untouched = Math.max(0, r.total - (r.patched + r.alreadyDone + r.failed + r.notPatchable));
    }
    return r;
  }
}
