import { readFile } from 'node:fs/promises';
import { relative, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { InputError } from '../diagnostics/errors.js';
import type { Plan } from '../plan/plan.js';
import type { StateBackend } from '../state/backend.js';
import { hasSession, storableVersion } from '../state/entry.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { outsideOf } from '../util/confine.js';
import { sensitiveDigest } from '../util/sensitive.js';
import type { ValidatedManifests } from './inputs.js';

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
  /** The state: the file relative likewise, or the backend's URL (without a password). */
  state: string;
  manifests_hash: string;
  state_hash: string;
  items: SavedItem[];
  /** The plan deletes sessions of manifests gone from its paths (`plan --prune`). */
  prune?: boolean;
  /** The paths plan was given (relative likewise): `--prune`'s scope. */
  paths?: string[];
  /** The plan creates where a create's outcome was unknown (`plan --recreate-unknown`). */
  recreate_unknown?: boolean;
  /**
   * The digest of each sensitive variable the plan was made with, never the value: `apply` reads
   * them from its environment again and stops, naming the variable, when one has another value.
   */
  sensitive?: Record<string, string>;
}

/** One manifest and user of a saved plan, as it was reviewed. */
export interface SavedItem {
  name: string;
  user_id: string;
  action: string;
  body_hash: string;
  session_id: string | null;
  /**
   * The config version the plan read the session at (its refresh); absent when it read none.
   * `apply` refuses when the session has moved on since, and PATCHes with this version, so that
   * another writer's change made after the review is never overwritten.
   */
  config_version?: number | null;
}

/**
 * The version a reviewer of the plan saw the session at: as the refresh read it, else as the state
 * records it (which `state_hash` holds still). None for an item without a session.
 */
function reviewedVersion(item: Plan['items'][number]): { config_version?: number | null } {
  if (item.live !== undefined) return { config_version: storableVersion(item.live.config_version) };
  return item.recorded !== undefined && hasSession(item.recorded) ? { config_version: item.recorded.config_version } : {};
}

function rel(cwd: string, file: string): string {
  return relative(cwd, file).split(sep).join('/');
}

/** Writes the plan for `apply PLAN.json` (mode 0600: it names the state and the users). */
export async function writeSavedPlan(
  out: string,
  plan: Plan,
  inputs: ValidatedManifests,
  options: { cwd: string; state: StateBackend; paths: readonly string[]; prune?: boolean; recreateUnknown?: boolean; now?: () => Date },
): Promise<void> {
  if (inputs.files.some((f) => f === '<stdin>')) throw new InputError('a plan read from standard input cannot be saved: apply would have nothing to re-read', out);
  const saved: SavedPlan = {
    planVersion: PLAN_VERSION,
    created_at: (options.now ?? (() => new Date()))().toISOString(),
    files: inputs.files.map((f) => rel(options.cwd, f)),
    state: options.state.kind === 'file' ? rel(options.cwd, options.state.location) : options.state.location,
    manifests_hash: plan.manifestsHash,
    state_hash: plan.stateHash,
    items: plan.items.map((i) => ({
      name: i.name,
      user_id: i.user_id,
      action: i.action,
      body_hash: i.body_hash,
      session_id: i.recorded?.session_id ?? null,
      ...reviewedVersion(i),
    })),
    ...(options.prune === true ? { prune: true, paths: options.paths.map((p) => rel(options.cwd, resolve(options.cwd, p))) } : {}),
    ...(options.recreateUnknown === true ? { recreate_unknown: true } : {}),
    ...(inputs.sensitive.size > 0 ? { sensitive: Object.fromEntries([...inputs.sensitive].map(([name, value]) => [name, sensitiveDigest(value)])) } : {}),
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
  if (!v.items.every(wellFormedItem)) throw new InputError('the plan file is damaged (an item is not a manifest, user and config version); run `sessionctl plan --out` again', path);
  const sensitive = v.sensitive as unknown;
  if (sensitive !== undefined && (typeof sensitive !== 'object' || sensitive === null || Array.isArray(sensitive) || !Object.values(sensitive).every((d) => typeof d === 'string'))) {
    throw new InputError('the plan file is damaged ("sensitive" is not a map of digests); run `sessionctl plan --out` again', path);
  }
  return v as SavedPlan;
}

function wellFormedItem(item: unknown): boolean {
  if (typeof item !== 'object' || item === null) return false;
  const i = item as Partial<Record<keyof SavedItem, unknown>>;
  // A version the plan pins is sent back as the PATCH's guard: only one the state could hold.
  const version = i.config_version;
  return typeof i.name === 'string' && typeof i.user_id === 'string' && (version === undefined || version === null || storableVersion(version) !== null);
}

/**
 * Refuses a saved plan that reaches outside the run (an InputError naming the plan, exit code 2):
 * a manifest or prune path outside the folder apply runs in (`..`, absolute, or through a symbolic
 * link), or a state other than the run's own. A plan file is an input like any other, and may come
 * from a pull request or an artefact: its state is never taken from it, so that it cannot make the
 * run connect (and send PGPASSWORD) to a database of its choosing, or read a file elsewhere.
 * `state` is the run's: `--state`, SESSIONCTL_STATE, sessionctl.yaml or the default.
 */
export function checkSavedPlan(saved: SavedPlan, path: string, cwd: string, state: Pick<StateBackend, 'kind' | 'location'>): void {
  for (const named of [...saved.files, ...(saved.paths ?? [])]) {
    const why = outsideOf(cwd, named);
    if (why !== undefined) {
      throw new InputError(`the plan names ${JSON.stringify(named).slice(0, 200)}, outside the folder apply runs in (${why.replace('it is ', '')}); nothing was applied: run apply in the folder the plan was made in`, path);
    }
  }
  const planned = /^[a-z][a-z0-9+.-]+:/i.test(saved.state) ? saved.state : resolve(cwd, saved.state);
  if (planned !== state.location) {
    throw new InputError(
      `the plan was made against another state than this run's (${state.kind === 'file' ? rel(cwd, state.location) : state.location}); nothing was applied: a plan never chooses the state, so give the one it was made with yourself (--state, SESSIONCTL_STATE or \`state:\` in sessionctl.yaml), or make the plan again against this one`,
      path,
    );
  }
}

/** The absolute manifest paths a saved plan names, and its state (a path relative to `cwd`, or a URL). */
export function savedPlanPaths(saved: SavedPlan, cwd: string): { files: string[]; state: string; pruneRoots?: string[] } {
  return { files: saved.files.map((f) => resolve(cwd, f)), state: saved.state, ...(saved.paths !== undefined ? { pruneRoots: saved.paths.map((p) => resolve(cwd, p)) } : {}) };
}

/**
 * A `plan/stale` finding when the manifests or the state no longer match a saved plan. A sensitive
 * variable whose value changed is named (its digest no longer matches; neither value is shown).
 */
export function staleness(plan: Plan, saved: { path: string; plan: SavedPlan }, sensitive: ReadonlyMap<string, string> = new Map()): Diagnostic | undefined {
  const changed = Object.entries(saved.plan.sensitive ?? {})
    .filter(([name, digest]) => sensitive.has(name) && sensitiveDigest(sensitive.get(name)!) !== digest)
    .map(([name]) => name);
  const what =
    changed.length > 0
      ? `${changed.join(', ')} ${changed.length === 1 ? 'has' : 'have'} another value than the plan was made with (the digest${changed.length === 1 ? '' : 's'} no longer match${changed.length === 1 ? 'es' : ''})`
      : plan.manifestsHash !== saved.plan.manifests_hash
        ? 'the manifests (or the variables they use) changed'
        : plan.stateHash !== saved.plan.state_hash
          ? 'the state file changed'
          : undefined;
  if (what === undefined) return undefined;
  return {
    code: 'plan/stale',
    severity: 'error',
    message: `the saved plan is stale: ${what} since it was made (${saved.plan.created_at}); nothing was applied`,
    file: saved.path,
    hint:
      changed.length > 0
        ? `set ${changed.join(', ')} to the value${changed.length === 1 ? '' : 's'} the plan was made with, or run \`sessionctl plan --out\` again and review the new plan`
        : 'run `sessionctl plan --out` again, review it, and apply the new plan',
  };
}
