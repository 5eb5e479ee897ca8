import { verifySession } from '../config/verify.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { StateError } from '../diagnostics/errors.js';
import { atDocument } from '../manifest/at-document.js';
import type { Deletion, Plan, PlanItem } from '../plan/plan.js';
import type { LockedState } from '../state/store.js';
import type { RateLimiter } from '../util/throttle.js';
import { guardWrites } from './state-writes.js';
import { deletionStep } from './deletion-step.js';
import { cleanupStep, createStep, retireStep, updateStep, type ApplyApi, type StepContext } from './steps.js';
import type { AppliedItem, ApplyOutcome } from './applied-item.js';
import type { ApplyTally } from './tally.js';

export type { ApplyApi };

export type { AppliedItem, ApplyOutcome };

export interface ApplyResult {
  items: AppliedItem[];
  diagnostics: Diagnostic[];
  tally: ApplyTally;
  /** Set when a signal stopped the run: which one, and how many creates were left without an answer. */
  interrupted?: { reason: string; abandoned: number };
}

export interface ApplyProgress {
  done: number;
  total: number;
  item: AppliedItem;
}

export interface ApplyOptions {
  api: ApplyApi;
  /** Locked: each change is recorded as soon as it happens. */
  state: LockedState;
  /** The folder manifest files are recorded relative to. */
  cwd: string;
  /** Requests in flight at once. Default 4. */
  concurrency?: number;
  /** Spaces out requests; share it with the refresh so both count against one budget. */
  limiter?: RateLimiter;
  /** Differences the manifest does not declare (`added`) count as drift. */
  strict?: boolean;
  /** A replace leaves the old session alive (and forgets it) instead of deleting it. */
  keepReplaced?: boolean;
  /** Called after each manifest is done; never for one answered after the run stopped waiting (it is in the result already). */
  onProgress?: (progress: ApplyProgress) => void;
  /** Stops the run: no request starts after it; those in flight get `graceMs` to answer. */
  signal?: AbortSignal;
  /** How long an interrupted run waits for requests in flight. Default 10 s. */
  graceMs?: number;
  /** Called once when the signal fires, with the number of requests in flight. */
  onInterrupt?: (inFlight: number, graceMs: number) => void;
  now?: () => Date;
  /** Waits; tests pass their own clock. */
  sleep?: (ms: number) => Promise<void>;
  /** Masks sensitive values in what the service answers before the state records it. Default: none. */
  mask?: (text: string) => string;
}

type Task = { kind: 'item'; item: PlanItem } | { kind: 'delete'; deletion: Deletion };

/**
 * Executes a plan: creates, updates (PATCH), replaces and deletes with bounded concurrency and the
 * rate limit, verifies every answer against the declared config, and records each change in the
 * state as it happens (a create's intent before its request leaves). Failures are values: one
 * failed request does not stop the others. On the signal no request starts; the run waits a
 * bounded time for those in flight and marks any create still unanswered as outcome unknown. A
 * state that cannot be written stops the run too: no task starts after the first write that
 * failed, those under way finish, and the result says what was done and what was not recorded.
 */
export async function applyPlan(plan: Plan, options: ApplyOptions): Promise<ApplyResult> {
  const ctx: StepContext = {
    api: options.api,
    state: guardWrites(options.state),
    now: options.now ?? (() => new Date()),
    cwd: options.cwd,
    ...(options.limiter !== undefined ? { limiter: options.limiter } : {}),
    strict: options.strict === true,
    keepReplaced: options.keepReplaced === true,
    writes: [],
    inFlight: new Map(),
    abandoned: new Set(),
    mask: options.mask ?? ((text) => text),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  };
  const tasks: Task[] = [...plan.items.map((item): Task => ({ kind: 'item', item })), ...plan.deletions.map((deletion): Task => ({ kind: 'delete', deletion }))];
  const results: Array<AppliedItem | undefined> = new Array(tasks.length);
  const started = new Set<number>();
  let next = 0;
  let done = 0;
  // Set once the run stops waiting: a task answered after that (a create the run gave up on, a
  // delete still on its way) is already in the result as the run left it, and the caller, who may
  // have printed its report, hears nothing more of it.
  let settled = false;
  // A refused key would refuse every request alike, and any other error (a bug) ends the run too:
  // no new request starts, those in flight are answered and recorded, and the run ends with the
  // first error (never with workers still running after it).
  let stop: { err: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < tasks.length && options.signal?.aborted !== true && stop === undefined && ctx.stateFailed === undefined) {
      const i = next++;
      started.add(i);
      const task = tasks[i]!;
      let out: AppliedItem;
      try {
        out = task.kind === 'item' ? await itemTask(task.item, ctx) : await deletionStep(task.deletion, ctx);
      } catch (err) {
        if (!(err instanceof StateError)) {
          stop ??= { err };
          return;
        }
        ctx.stateFailed ??= err;
        out = writeFailed(task, err);
      }
      if (settled) return;
      results[i] = out;
      options.onProgress?.({ done: ++done, total: tasks.length, item: out });
    }
  };
  const all = Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 4, tasks.length)) }, worker));
  const finished = await settleOrInterrupt(all, ctx, options);
  settled = true;
  if (stop !== undefined) {
    await Promise.all(ctx.writes);
    throw stop.err;
  }
  const interrupted = finished ? undefined : await abandon(ctx, options, results, tasks);
  await Promise.all(ctx.writes);
  const why = ctx.stateFailed !== undefined ? 'the state could not be written' : options.signal?.reason;
  const items = tasks.map((t, i) => results[i] ?? skipped(t, why, started.has(i)));
  const out: ApplyResult = { items, diagnostics: [...plan.diagnostics, ...items.flatMap((i) => i.diagnostics)], tally: tallyOf(items) };
  if (interrupted !== undefined) out.interrupted = interrupted;
  return out;
}

/** True when every task ended; false when the signal fired and the grace time ran out first. */
async function settleOrInterrupt(all: Promise<void[]>, ctx: StepContext, options: ApplyOptions): Promise<boolean> {
  const signal = options.signal;
  if (signal === undefined) {
    await all;
    return true;
  }
  const aborted = new Promise<'aborted'>((resolve) => (signal.aborted ? resolve('aborted') : signal.addEventListener('abort', () => resolve('aborted'), { once: true })));
  if ((await Promise.race([all, aborted])) !== 'aborted') return true;
  const grace = options.graceMs ?? 10_000;
  options.onInterrupt?.(ctx.inFlight.size, grace);
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref()));
  // A request answered after the grace time must not end the process with an unhandled rejection.
  all.catch(() => undefined);
  return (await Promise.race([all.then(() => true), sleep(grace).then(() => false)])) === true;
}

/** The creates still unanswered become outcome unknown, in the state and in the result. */
async function abandon(ctx: StepContext, options: ApplyOptions, results: Array<AppliedItem | undefined>, tasks: Task[]): Promise<ApplyResult['interrupted']> {
  const reason = String(options.signal?.reason ?? 'interrupted');
  const abandoned = [...ctx.inFlight];
  for (const [item] of abandoned) ctx.abandoned.add(item);
  for (const [item, { since }] of abandoned) {
    const entry = ctx.state.get(item.name, item.user_id);
    if (entry?.pending_create !== undefined) {
      await ctx.state.record({ ...entry, pending_create: { since, body_hash: item.body_hash, status: 'unknown', reason: `the run was interrupted (${reason}) before the service answered` } });
    }
    const i = tasks.findIndex((t) => t.kind === 'item' && t.item === item);
    results[i] = {
      name: item.name,
      file: item.file,
      user_id: item.user_id,
      action: item.action,
      outcome: 'outcome-unknown',
      drifted: false,
      drift: [],
      diff: '',
      diagnostics: [
        {
          code: 'apply/outcome-unknown',
          severity: 'error',
          message: `${item.name}: the create was sent at ${since} and the run was interrupted (${reason}) before the service answered; a session may exist, recorded as outcome unknown`,
          file: item.doc.file,
          range: item.doc.locate(item.doc.nameDeclared ? '/name' : '', item.doc.nameDeclared ? { key: true } : undefined),
          hint: `look for a session of user ${JSON.stringify(item.user_id)} created since ${since}; adopt it with \`sessionctl import ${item.name} trs_...\`, or apply with --recreate-unknown if there is none`,
        },
      ],
    };
  }
  return { reason, abandoned: abandoned.length };
}

/**
 * A task the run did not finish: not started (`skipped`: nothing was sent), or still waiting for
 * an answer when the wait ended (`failed`: what was sent may have landed; the state keeps what it
 * had, and the next run reads the session again).
 */
function skipped(task: Task, reason: unknown, started = false): AppliedItem {
  const base = task.kind === 'item' ? { name: task.item.name, file: task.item.file, user_id: task.item.user_id, action: task.item.action } : { name: task.deletion.name, file: task.deletion.file ?? '', user_id: task.deletion.user_id, action: 'delete' as const };
  const why = `the run was interrupted (${String(reason ?? 'signal')})`;
  const message = started ? `${base.name}: unfinished: ${why} while its requests were in flight; what they changed is read again by the next run` : `${base.name}: not applied: ${why} before it started`;
  const diagnostics: Diagnostic[] =
    task.kind === 'item' && task.item.blocked ? [] : [{ code: 'apply/interrupted', severity: 'error', message, ...(task.kind === 'item' ? firstLine(task.item.doc) : {}) }];
  return { ...base, outcome: started ? 'failed' : 'skipped', drifted: false, drift: [], diagnostics, diff: '' };
}

/** The document's first line (its `name:` when it declares one): the whole document is no place to frame. */
function firstLine(doc: PlanItem['doc']): Pick<Diagnostic, 'file' | 'pointer' | 'range'> {
  const at = atDocument(doc, 'apply/interrupted', 'error', '');
  const start = at.range!.start;
  return { file: doc.file, pointer: at.pointer!, range: doc.nameDeclared ? at.range! : { start, end: { line: start.line, col: start.col + 1 } } };
}

/**
 * A task stopped by a state write that failed after its request (an entry not forgotten after a
 * delete, a refused create's intent not taken back): failed, with what the state said. Whatever
 * exists at the service is still on record, or held as a create of unknown outcome.
 */
function writeFailed(task: Task, err: StateError): AppliedItem {
  const base = task.kind === 'item' ? { name: task.item.name, file: task.item.file, user_id: task.item.user_id, action: task.item.action } : { name: task.deletion.name, file: task.deletion.file ?? '', user_id: task.deletion.user_id, action: 'delete' as const };
  const sessionId = task.kind === 'item' ? task.item.recorded?.session_id : task.deletion.session_id;
  return { ...base, outcome: 'failed', ...(sessionId !== undefined && sessionId !== '' ? { session_id: sessionId } : {}), drifted: false, drift: [], diagnostics: [writeFailedFinding(task, err)], diff: '' };
}

function writeFailedFinding(task: Task, err: StateError): Diagnostic {
  const message = `${task.kind === 'item' ? task.item.name : task.deletion.name}: the state could not be written: ${err.message}`;
  return task.kind === 'item' ? atDocument(task.item.doc, 'state/write-failed', 'error', message) : { code: 'state/write-failed', severity: 'error', message };
}

async function itemTask(item: PlanItem, ctx: StepContext): Promise<AppliedItem> {
  if (item.blocked) return skipped({ kind: 'item', item }, undefined);
  let out: AppliedItem;
  let retire = false;
  if (item.action === 'create' || item.action === 'replace') {
    const created = await createStep(item, ctx);
    out = created.out;
    retire = created.session !== undefined && item.action === 'replace';
  } else if (item.action === 'update') {
    out = await updateStep(item, ctx);
  } else if (item.action === 'unknown') {
    out = unread(item);
  } else {
    out = unchanged(item, ctx);
  }
  // Stopped by the signal before its request left.
  if (out.outcome === 'skipped') return skipped({ kind: 'item', item }, ctx.signal?.reason);
  try {
    if (retire) await retireStep(out, item, ctx);
    if (out.outcome !== 'failed' && out.outcome !== 'outcome-unknown') await cleanupStep(out, item, ctx);
  } catch (err) {
    if (!(err instanceof StateError)) throw err;
    // What the item's own request did is on record; what followed it (forgetting the entry a
    // replace took over, taking a deleted left-over off the entry) waits for the next run.
    ctx.stateFailed ??= err;
    out.outcome = 'failed';
    out.diagnostics.push(writeFailedFinding({ kind: 'item', item }, err));
  }
  return out;
}

/**
 * A recorded session refresh could not read: nothing is sent, and it is not `unchanged` (nobody
 * saw it), but `failed`, as its read was. The finding is the plan's `state/refresh-failed`.
 */
function unread(item: PlanItem): AppliedItem {
  const r = item.recorded!;
  return { name: item.name, file: item.file, user_id: item.user_id, action: item.action, outcome: 'failed', session_id: r.session_id, mcp_url: r.mcp_url, tool_router_tools: r.tool_router_tools, drifted: false, drift: [], diagnostics: [], diff: '' };
}

function unchanged(item: PlanItem, ctx: StepContext): AppliedItem {
  const r = item.recorded!;
  const out: AppliedItem = { name: item.name, file: item.file, user_id: item.user_id, action: item.action, outcome: 'unchanged', session_id: r.session_id, mcp_url: r.mcp_url, tool_router_tools: r.tool_router_tools, drifted: false, drift: [], diagnostics: [], diff: '' };
  if (item.live !== undefined) {
    const check = verifySession(item.doc, item.expected, item.live, { strict: ctx.strict });
    out.drift = check.differences;
    out.diagnostics.push(...check.diagnostics);
    out.drifted = check.status === 'drifted';
    if (out.drifted) out.diff = check.diff;
  }
  return out;
}

/** How many manifests ended how; a drifted session counts in its outcome and as drifted. */
export function tallyOf(items: readonly AppliedItem[]): ApplyTally {
  const t: ApplyTally = { created: 0, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 0 };
  for (const i of items) {
    // Skipped is counted as the table shows it: nothing was sent, which is not a failure of its own.
    if (i.outcome === 'skipped') t.skipped = (t.skipped ?? 0) + 1;
    else if (i.outcome === 'failed' || i.outcome === 'outcome-unknown') t.failed++;
    else t[i.outcome]++;
    if (i.drifted) t.drifted++;
  }
  return t;
}
