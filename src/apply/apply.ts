import { ApiError } from '../client/errors.js';
import type { DriftItem } from '../config/drift.js';
import type { CreateSessionBody } from '../config/types.js';
import type { Session } from '../wire/session.js';
import { verifySession } from '../config/verify.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import type { Plan, PlanAction, PlanItem } from '../plan/plan.js';
import type { StateEntry } from '../state/entry.js';
import type { LockedState } from '../state/store.js';
import { mapConcurrent, type RateLimiter } from '../util/throttle.js';
import { createFailed } from './create-failed.js';
import type { ApplyTally } from './tally.js';

/**
 * - `created` / `replaced`: a session was created (for a new manifest / for a changed one) and recorded;
 * - `unchanged`: nothing was sent; the recorded session stands;
 * - `failed`: the service refused or failed the create; nothing was recorded;
 * - `outcome-unknown`: the create was sent but no answer came (timeout, reset): a session may exist
 *   that is not recorded. It is not retried, so no duplicate is made.
 */
export type ApplyOutcome = 'created' | 'replaced' | 'unchanged' | 'failed' | 'outcome-unknown';

/** What apply did for one manifest and user. */
export interface AppliedItem {
  name: string;
  file: string;
  user_id: string;
  action: PlanAction;
  outcome: ApplyOutcome;
  session_id?: string;
  mcp_url?: string;
  tool_router_tools?: string[];
  /** True when the returned (or, for unchanged, the refreshed) config differs from the declared one. */
  drifted: boolean;
  /** Every classified difference, `defaulted` included. */
  drift: DriftItem[];
  /** This manifest's findings: drift, a failed or ambiguous create. */
  diagnostics: Diagnostic[];
  /** Unified diff of declared against effective config when it drifted ('' otherwise). */
  diff: string;
}

export interface ApplyResult {
  items: AppliedItem[];
  diagnostics: Diagnostic[];
  tally: ApplyTally;
}

export interface ApplyProgress {
  done: number;
  total: number;
  item: AppliedItem;
}

export interface ApplyOptions {
  createSession(body: CreateSessionBody): Promise<Session>;
  /** Locked: each created session is recorded as soon as it exists. */
  state: LockedState;
  /** Creates in flight at once. Default 4. */
  concurrency?: number;
  /** Spaces out creates; share it with the refresh so both count against one budget. */
  limiter?: RateLimiter;
  /** Differences the manifest does not declare (`added`) count as drift. */
  strict?: boolean;
  /** Called after each manifest is done (the CLI prints progress). */
  onProgress?: (progress: ApplyProgress) => void;
  now?: () => Date;
}

/**
 * Executes a plan: creates a session for every `create` and `replace`, with bounded concurrency
 * and the rate limit, verifies each returned config against the expected one, and records each
 * success in the state before counting it. Failures are values: one failed create does not stop
 * the others, and the state keeps everything that succeeded. Unchanged items are verified against
 * their refreshed session when the plan was refreshed.
 */
export async function applyPlan(plan: Plan, options: ApplyOptions): Promise<ApplyResult> {
  const now = options.now ?? (() => new Date());
  const total = plan.items.length;
  let done = 0;
  const writes: Array<Promise<void>> = [];
  const items = await mapConcurrent(plan.items, options.concurrency ?? 4, async (item) => {
    const applied = item.action === 'unchanged' ? unchanged(item, options) : await create(item, options, now, writes);
    done++;
    options.onProgress?.({ done, total, item: applied });
    return applied;
  });
  // Every success was handed to the state as it happened; the run ends when all are on disk.
  await Promise.all(writes);
  return { items, diagnostics: [...plan.diagnostics, ...items.flatMap((i) => i.diagnostics)], tally: tallyOf(items) };
}

function base(item: PlanItem): Pick<AppliedItem, 'name' | 'file' | 'user_id' | 'action' | 'drifted' | 'drift' | 'diff'> {
  return { name: item.name, file: item.file, user_id: item.user_id, action: item.action, drifted: false, drift: [], diff: '' };
}

function unchanged(item: PlanItem, options: ApplyOptions): AppliedItem {
  const r = item.recorded!;
  const out: AppliedItem = { ...base(item), outcome: 'unchanged', session_id: r.session_id, mcp_url: r.mcp_url, tool_router_tools: r.tool_router_tools, diagnostics: [] };
  if (item.live !== undefined) verify(out, item, item.live, options);
  return out;
}

async function create(item: PlanItem, options: ApplyOptions, now: () => Date, writes: Array<Promise<void>>): Promise<AppliedItem> {
  await options.limiter?.acquire();
  let session: Session;
  try {
    session = await options.createSession(item.body);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const unknown = err.kind === 'outcome-unknown';
    const d = unknown
      ? atDocument(item.doc, 'apply/outcome-unknown', 'error', `${item.name}: the create was sent but no answer came (${err.message}); a session may exist that is not recorded, so it was not retried`)
      : createFailed(item, err);
    if (unknown) d.hint = 'check the service for a session of this user before applying again; a re-run creates a new one';
    return { ...base(item), outcome: unknown ? 'outcome-unknown' : 'failed', diagnostics: [d] };
  }
  const out: AppliedItem = {
    ...base(item),
    outcome: item.action === 'replace' ? 'replaced' : 'created',
    session_id: session.session_id,
    mcp_url: session.mcp.url,
    tool_router_tools: [...session.tool_router_tools],
    diagnostics: [],
  };
  // Recorded even when it drifted: the session exists, and the next plan must know it. The
  // record is queued at once and written with whatever else succeeded meanwhile (one write per
  // batch, back to back); the worker goes on to its next create instead of waiting for the disk,
  // which would make the file write, not the service, set the pace.
  writes.push(
    options.state
      .record({
        name: item.name,
        user_id: item.user_id,
        session_id: session.session_id,
        mcp_url: session.mcp.url,
        tool_router_tools: [...session.tool_router_tools],
        config_version: typeof session.config_version === 'number' ? session.config_version : null,
        body_hash: item.body_hash,
        body: item.body as StateEntry['body'],
        applied_at: now().toISOString(),
      })
      .catch((err: unknown) => {
        out.outcome = 'failed';
        out.diagnostics.push(atDocument(item.doc, 'state/write-failed', 'error', `${item.name}: session ${session.session_id} was created but the state file could not be written: ${(err as Error).message}`));
      }),
  );
  verify(out, item, session, options);
  return out;
}

function verify(out: AppliedItem, item: PlanItem, session: Session, options: ApplyOptions): void {
  const check = verifySession(item.doc, item.expected, session, { strict: options.strict === true });
  out.drift = check.differences;
  out.diagnostics.push(...check.diagnostics);
  out.drifted = check.status === 'drifted';
  // Apply shows the diff of what went wrong only: a session that matches needs no diff in a deploy log.
  if (out.drifted) out.diff = check.diff;
}

/** How many manifests ended how; a drifted session counts in its outcome and as drifted. */
export function tallyOf(items: readonly AppliedItem[]): ApplyTally {
  const t: ApplyTally = { created: 0, replaced: 0, unchanged: 0, drifted: 0, failed: 0 };
  for (const i of items) {
    if (i.outcome === 'failed' || i.outcome === 'outcome-unknown') t.failed++;
    else t[i.outcome]++;
    if (i.drifted) t.drifted++;
  }
  return t;
}
