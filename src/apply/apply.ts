import { ApiError } from '../client/errors.js';
import { computeDrift, driftDiagnostics, type DriftItem } from '../config/drift.js';
import type { CreateSessionBody } from '../config/types.js';
import type { Session as SessionView } from '../wire/session.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument, type Plan, type PlanAction, type PlanItem } from '../plan/plan.js';
import type { StateStore } from './state.js';
import { mapConcurrent, type RateLimiter } from './throttle.js';

/**
 * - `created` / `replaced`: a session was created (for a new manifest / for a changed one) and recorded;
 * - `unchanged`: nothing was sent; the recorded session stands;
 * - `failed`: the service refused or failed the create; nothing was recorded;
 * - `outcome-unknown`: the create was sent but no answer came (timeout, reset): a session may exist
 *   that is not recorded. It is not retried, so no duplicate is made.
 */
export type ApplyOutcome = 'created' | 'replaced' | 'unchanged' | 'failed' | 'outcome-unknown';

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
  /** What the session answered with, for the unified diff. */
  effective?: SessionView;
}

export interface ApplyTally {
  created: number;
  replaced: number;
  unchanged: number;
  drifted: number;
  failed: number;
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
  createSession(body: CreateSessionBody): Promise<SessionView>;
  /** Locked: each created session is recorded as soon as it exists. */
  state: StateStore;
  /** Creates in flight at once. Default 4. */
  concurrency?: number;
  /** Spaces out creates; share it with the refresh so both count against one budget. */
  limiter?: RateLimiter;
  /** Called after each manifest is done (the CLI prints progress on a TTY). */
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
    const applied = item.action === 'unchanged' ? unchanged(item) : await create(item, options, now, writes);
    done++;
    options.onProgress?.({ done, total, item: applied });
    return applied;
  });
  // Every success was handed to the state as it happened; the run ends when all are on disk.
  await Promise.all(writes);
  return { items, diagnostics: [...plan.diagnostics, ...items.flatMap((i) => i.diagnostics)], tally: tallyOf(items) };
}

function base(item: PlanItem): Pick<AppliedItem, 'name' | 'file' | 'user_id' | 'action'> {
  return { name: item.name, file: item.file, user_id: item.user_id, action: item.action };
}

function unchanged(item: PlanItem): AppliedItem {
  const r = item.recorded!;
  const out: AppliedItem = { ...base(item), outcome: 'unchanged', session_id: r.session_id, mcp_url: r.mcp_url, tool_router_tools: r.tool_router_tools, drifted: false, drift: [], diagnostics: [] };
  if (item.live !== undefined) verify(out, item, item.live);
  return out;
}

async function create(item: PlanItem, options: ApplyOptions, now: () => Date, writes: Array<Promise<void>>): Promise<AppliedItem> {
  await options.limiter?.acquire();
  let session: SessionView;
  try {
    session = await options.createSession(item.body);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const unknown = err.kind === 'outcome-unknown';
    const d = unknown
      ? atDocument(item, 'apply/outcome-unknown', 'error', `${item.name}: the create was sent but no answer came (${err.message}); a session may exist that is not recorded, so it was not retried`)
      : createFailed(item, err);
    if (unknown) d.hint = 'check the service for a session of this user before applying again; a re-run creates a new one';
    return { ...base(item), outcome: unknown ? 'outcome-unknown' : 'failed', drifted: false, drift: [], diagnostics: [d] };
  }
  const out: AppliedItem = {
    ...base(item),
    outcome: item.action === 'replace' ? 'replaced' : 'created',
    session_id: session.session_id,
    mcp_url: session.mcp.url,
    tool_router_tools: [...session.tool_router_tools],
    drifted: false,
    drift: [],
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
        body_hash: item.body_hash,
        applied_at: now().toISOString(),
      })
      .catch((err: unknown) => {
        out.outcome = 'failed';
        out.diagnostics.push(atDocument(item, 'state/write-failed', 'error', `${item.name}: session ${session.session_id} was created but the state file could not be written: ${(err as Error).message}`));
      }),
  );
  verify(out, item, session);
  return out;
}

/**
 * A refused create, located at the key the service names when it names one (`Error in
 * payload.workbench: ...`), else at the manifest's name.
 */
function createFailed(item: PlanItem, err: ApiError): Diagnostic {
  const status = [err.status !== undefined ? `HTTP ${err.status}` : err.kind, err.slug].filter((p) => p !== undefined).join(' ');
  const details = (err.errors ?? []).join('; ');
  const message = `${item.name}: create refused (${status}): ${err.message}${details !== '' ? `: ${details}` : ''}`;
  const path = /payload\.([A-Za-z0-9_.]+)/.exec(details)?.[1];
  // "Unrecognized key: 'sandbox_size'" names the key below that path.
  const key = /Unrecognized key:? '([A-Za-z0-9_]+)'/.exec(details)?.[1];
  const named = path === undefined ? undefined : key === undefined ? path : `${path}.${key}`;
  const d: Diagnostic =
    named === undefined
      ? atDocument(item, 'apply/create-failed', 'error', message)
      : (() => {
          const pointer = '/' + named.split('.').join('/');
          return { code: 'apply/create-failed', severity: 'error', message, file: item.doc.file, pointer, range: item.doc.locate(pointer, { key: true }) };
        })();
  const hint = [err.suggested_fix, err.request_id !== undefined ? `request id ${err.request_id}` : undefined].filter((p) => p !== undefined).join('; ');
  if (hint !== '') d.hint = hint;
  return d;
}

function verify(out: AppliedItem, item: PlanItem, session: SessionView): void {
  out.effective = session;
  out.drift = computeDrift(item.expected, session);
  const found = driftDiagnostics(out.drift, item.doc, item.name);
  out.diagnostics.push(...found);
  out.drifted = out.drift.some((d) => d.kind === 'changed' || d.kind === 'dropped');
}

export function tallyOf(items: readonly AppliedItem[]): ApplyTally {
  const t: ApplyTally = { created: 0, replaced: 0, unchanged: 0, drifted: 0, failed: 0 };
  for (const i of items) {
    if (i.outcome === 'failed' || i.outcome === 'outcome-unknown') t.failed++;
    else t[i.outcome]++;
    if (i.drifted) t.drifted++;
  }
  return t;
}

/** `3 created, 5 unchanged, 1 drifted, 0 failed`; replaced sessions count as created and are named. */
export function formatTally(t: ApplyTally): string {
  const created = t.created + t.replaced;
  const replacing = t.replaced > 0 ? ` (${t.replaced} replacing an older session)` : '';
  return `${created} created${replacing}, ${t.unchanged} unchanged, ${t.drifted} drifted, ${t.failed} failed`;
}

/**
 * Lines for `$GITHUB_OUTPUT`: `<name>_session_id=...` and `<name>_mcp_url=...` for every manifest
 * with a session. Output names allow letters, digits, `_` and `-`; anything else becomes `_`, and a
 * name that does not start with a letter or `_` gets a leading `_`. Manifests of several users get
 * the user id appended, so their outputs do not overwrite each other.
 */
export function githubOutputLines(items: readonly AppliedItem[]): string {
  const multiUser = new Map<string, number>();
  for (const i of items) multiUser.set(i.name, (multiUser.get(i.name) ?? 0) + 1);
  const lines: string[] = [];
  for (const i of items) {
    if (i.session_id === undefined || i.mcp_url === undefined) continue;
    const key = outputKey((multiUser.get(i.name) ?? 0) > 1 ? `${i.name}_${i.user_id}` : i.name);
    lines.push(`${key}_session_id=${oneLine(i.session_id)}`, `${key}_mcp_url=${oneLine(i.mcp_url)}`);
  }
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}

export function outputKey(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return /^[A-Za-z_]/.test(clean) ? clean : `_${clean}`;
}

// A value with a newline would inject another output; ids and URLs never hold one legitimately.
function oneLine(value: string): string {
  return value.replace(/[\r\n]/g, '');
}
