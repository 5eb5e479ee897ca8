import { setTimeout as sleep } from 'node:timers/promises';
import type { PublicationPlan } from '../plan/publications.js';
import { rolloutWork, type RolloutPlan } from '../plan/rollout-plan.js';
import { canaryStep } from './canary.js';
import { canarySize } from './canary-size.js';
import { expectedFor, groupRequests } from './request.js';
import { Run, type PageQuery, type RolloutOptions } from './run.js';
import type { SessionStepContext } from './session-step.js';
import type { RolloutResult } from './types.js';

export type { RolloutOptions };

/** Passes after the first one for sessions an ensure created from the older version meanwhile. */
const RACE_PASSES = 5;
const RACE_LOOK_MS = 250;

/**
 * Rolls a per-user manifest's new version out to its recorded sessions, after apply published it
 * (so that every session ensure creates from then on is on it). Reads the sessions behind page by
 * page, PATCHes each (rollSession) at the concurrency and rate asked, and records the rolled-out
 * rows in batches; the rows are the checkpoint, so a run stopped anywhere resumes with the rows
 * still behind. A canary goes first when asked; a failure budget stops the rest. Then the sessions
 * that creates of the older version recorded meanwhile are rolled out by the same run.
 */
export async function rollOut(plan: PublicationPlan & { rollout: RolloutPlan }, options: RolloutOptions): Promise<RolloutResult> {
  const rollout = plan.rollout;
  const cutoff = await options.store.clock();
  const requests = new Map(groupRequests(plan, rollout.groups).map((g) => [g.from, g.patch]));
  const replace = new Set(rollout.groups.filter((g) => g.action === 'replace').map((g) => g.from));
  // A session of a version no group plans (one a racing create recorded): every declared field.
  const fallback = groupRequests(plan, [{ from: 0, before: null, sensitiveChanged: false }])[0]!.patch;
  const ctx = stepContext(plan, options, (from) => (replace.has(from) ? undefined : (requests.get(from) ?? fallback)));
  const total = rolloutWork(rollout);
  const maxFailures = options.maxFailures ?? defaultBudget(total);
  const result: RolloutResult = { name: plan.name, version: plan.version, total, patched: 0, alreadyDone: 0, failed: 0, failures: [], notPatchable: 0, raced: 0, createsUnderWay: 0, untouched: 0, maxFailures };
  const run = new Run({ ...options, maxFailures }, ctx, result);
  const page = { name: plan.name, below: plan.version, limit: options.pageSize ?? 500 };
  if (options.canary !== undefined && result.total > 0) {
    result.canary = await canaryStep(run, page, canarySize(options.canary, result.total));
    if (!result.canary.clean) return run.end('canary');
  }
  await run.pass(page, 'rollout');
  if (run.stopped === undefined) await racePass(run, page, cutoff, options);
  return run.end(run.stopped);
}

/**
 * The failure budget without --max-failures: 1 % of the sessions behind, at least 10. A change the
 * service refuses for every session (a 400 for each) stops after a few hundred requests, not
 * 100,000; a few sessions gone at the service (404) do not stop a rollout of thousands.
 */
export function defaultBudget(total: number): number {
  return Math.max(10, Math.ceil(total / 100));
}

/** What each session's step of a run over a publication's sessions works with. */
export function stepContext(plan: PublicationPlan, options: RolloutOptions, patchFor: SessionStepContext['patchFor']): SessionStepContext {
  return {
    api: options.api,
    limiter: options.limiter,
    strict: options.strict,
    doc: plan.doc,
    expected: expectedFor(plan),
    version: plan.version,
    bodyHash: plan.body_hash,
    patchFor,
    filledByApplication: new Set(plan.templates.map((t) => t.pointer)),
  };
}

/** After the first pass: waits for creates that read the older version, and rolls out what they recorded. */
async function racePass(run: Run, page: PageQuery, cutoff: string, options: RolloutOptions): Promise<void> {
  const started = Date.now();
  for (let n = 0; n < RACE_PASSES && run.stopped === undefined; n++) {
    let under = await options.store.createsUnderWay(page.name, cutoff);
    while (under > 0 && Date.now() - started < (options.createsWaitMs ?? 60_000) && options.signal?.aborted !== true) {
      await sleep(RACE_LOOK_MS);
      under = await options.store.createsUnderWay(page.name, cutoff);
    }
    run.result.createsUnderWay = under;
    const before = run.seen;
    await run.pass(page, 'race');
    run.result.raced += run.seen - before;
    if (run.seen === before && under === 0) return;
  }
}

