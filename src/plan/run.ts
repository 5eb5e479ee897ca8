import { readFile } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import { StateStore } from '../apply/state.js';
import { RateLimiter } from '../apply/throttle.js';
import type { CreateSessionBody } from '../config/types.js';
import type { Session as SessionView } from '../wire/session.js';
import { sortDiagnostics, tally, type Diagnostic } from '../diagnostics/diagnostic.js';
import { InputError } from '../errors.js';
import type { Report } from '../report/types.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { planBlock } from './blocks.js';
import { loadAndValidate, type InputOptions, type ValidatedManifests } from './inputs.js';
import { buildPlan, hasChanges, refreshPlan, type Plan } from './plan.js';

/** The two calls plan, apply and diff make, as the client (or any stand-in with the same contract) offers them. */
export interface SessionApi {
  createSession(body: CreateSessionBody): Promise<SessionView>;
  getSession(sessionId: string): Promise<SessionView>;
  close(): Promise<void>;
}

/** Opens a connection only when a run needs the network. */
export type Connect = () => Promise<SessionApi>;

export interface RunBase extends InputOptions {
  /** Absolute path of the state file. */
  statePath: string;
}

/** What a plan, apply or diff run hands back to its command: the report and what renders it. */
export interface RunOutcome {
  report: Report;
  sources: Map<string, string>;
  /** Literal secrets seen in manifests, for the redactor. */
  secrets: string[];
}

/** A report over the inputs and any further findings; diagnostics sorted, summary counted. */
export function makeReport(command: string, inputs: ValidatedManifests, more: readonly Diagnostic[] = []): Report {
  const diagnostics = sortDiagnostics([...inputs.diagnostics, ...more]);
  return { command, files: inputs.files, diagnostics, summary: { ...tally(diagnostics), files: inputs.files.length, manifests: inputs.documents.length } };
}

export interface PlanRunOptions extends RunBase {
  /** Confirm with GET that recorded sessions still exist. */
  refresh?: Connect;
  concurrency?: number;
  rateLimitPerMinute?: number;
  /** Write the plan here (absolute), for `apply PLAN.json`. */
  out?: string;
  now?: () => Date;
}

export interface PlanRun extends RunOutcome {
  plan?: Plan;
  /** Whether any manifest would be created or replaced (`--detailed-exitcode`). */
  changes: boolean;
}

/** `plan`: validate, then the action per manifest against the state; no network unless refreshing. */
export async function runPlan(paths: readonly string[], options: PlanRunOptions): Promise<PlanRun> {
  const inputs = await loadAndValidate(paths, options);
  if (inputs.blocked) return { report: makeReport('plan', inputs), sources: inputs.sources, secrets: inputs.secrets, changes: false };
  const state = await StateStore.load(options.statePath);
  let plan = buildPlan(inputs.documents, state);
  // Only recorded sessions are read: with none, no connection (and no key) is needed.
  if (options.refresh !== undefined && plan.items.some((i) => i.action === 'unchanged')) {
    const api = await options.refresh();
    try {
      const limiter = options.rateLimitPerMinute === undefined ? undefined : new RateLimiter(options.rateLimitPerMinute);
      plan = await refreshPlan(plan, { getSession: (id) => api.getSession(id), concurrency: options.concurrency ?? 4, ...(limiter ? { limiter } : {}) });
    } finally {
      await api.close();
    }
  }
  if (options.out !== undefined) await writeSavedPlan(options.out, plan, inputs, options);
  const report = makeReport('plan', inputs, plan.diagnostics);
  report.plan = planBlock(plan);
  return { report, sources: inputs.sources, secrets: inputs.secrets, plan, changes: hasChanges(plan) };
}

/** The format version of a saved plan. */
export const PLAN_VERSION = 1;

/**
 * A plan saved by `plan --out`. `apply PLAN.json` re-reads the same manifests and executes only
 * while they (names, users and bodies: `manifests_hash`) and the state file (`state_hash`) are
 * what they were, so that what was reviewed is what runs.
 */
export interface SavedPlan {
  planVersion: typeof PLAN_VERSION;
  created_at: string;
  /** Manifest files, relative to the folder plan ran in, with forward slashes. */
  files: string[];
  /** The state file, relative likewise. */
  state: string;
  manifests_hash: string;
  state_hash: string;
  items: Array<{ name: string; user_id: string; action: string; body_hash: string; session_id: string | null }>;
}

function rel(cwd: string, file: string): string {
  return relative(cwd, file).split(sep).join('/');
}

async function writeSavedPlan(out: string, plan: Plan, inputs: ValidatedManifests, options: PlanRunOptions): Promise<void> {
  if (inputs.files.some((f) => f === '<stdin>')) throw new InputError('a plan read from standard input cannot be saved: apply would have nothing to re-read', out);
  const saved: SavedPlan = {
    planVersion: PLAN_VERSION,
    created_at: (options.now ?? (() => new Date()))().toISOString(),
    files: inputs.files.map((f) => rel(options.cwd, f)),
    state: rel(options.cwd, options.statePath),
    manifests_hash: plan.manifestsHash,
    state_hash: plan.stateHash,
    items: plan.items.map((i) => ({ name: i.name, user_id: i.user_id, action: i.action, body_hash: i.body_hash, session_id: i.recorded?.session_id ?? null })),
  };
  try {
    await writeFileAtomic(out, JSON.stringify(saved, null, 2) + '\n', { mode: 0o600 });
  } catch (err) {
    throw new InputError(`cannot write the plan: ${(err as Error).message}`, out, { cause: err });
  }
}

/**
 * Reads a saved plan when `path` is one (a JSON file with `planVersion`); undefined for anything
 * else, so that `apply` can tell a plan from a manifest path. A JSON file that claims to be a plan
 * but is not well-formed is an InputError.
 */
export async function readSavedPlan(path: string): Promise<SavedPlan | undefined> {
  if (!path.endsWith('.json')) return undefined;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || !('planVersion' in value)) return undefined;
  const v = value as Partial<SavedPlan>;
  if (v.planVersion !== PLAN_VERSION) throw new InputError(`the plan has format version ${String(v.planVersion)}; this sessionctl reads version ${PLAN_VERSION}`, path);
  if (!Array.isArray(v.files) || !v.files.every((f) => typeof f === 'string') || typeof v.state !== 'string' || typeof v.manifests_hash !== 'string' || typeof v.state_hash !== 'string' || !Array.isArray(v.items)) {
    throw new InputError('the plan file is damaged (a required field is missing or of the wrong type); run `sessionctl plan --out` again', path);
  }
  return v as SavedPlan;
}

/** The absolute manifest paths and state path a saved plan names. */
export function savedPlanPaths(saved: SavedPlan, cwd: string): { files: string[]; statePath: string } {
  return { files: saved.files.map((f) => resolve(cwd, f)), statePath: resolve(cwd, saved.state) };
}
