import { InvalidArgumentError, Option, type Command } from 'commander';
import { stateBackend, type StateBackend } from '../state/backend.js';
import type { ServiceIdentity } from '../state/binding.js';
import type { StateUse } from '../state/guard.js';
import { DEFAULT_STATE_PATH } from '../state/file-store.js';
import { parseRateLimit } from '../util/throttle.js';
import { displayPath } from '../report/paths.js';
import { parseMissingLimit, type MissingGuard, type MissingLimit } from '../plan/mass-missing.js';
import type { RunOutcome } from '../runner/outcome.js';
import { changedSinceOption } from './changed-since.js';
import type { CommandEnv } from './command.js';
import { integerOption } from './integer-option.js';
import { sortDiagnostics, tally } from '../diagnostics/diagnostic.js';
import type { ProjectRunOptions } from '../validate/project-checks.js';
import { addConnectionOptions, API_VERSION_ENV, apiVersionOf, BASE_URL_ENV, type ConnectionOptions } from './connection.js';
import { addProjectOptions, checkCatalog, loadProjectForRun, runPaths, type LoadedProject, type ProjectFlags } from './project-config.js';
import { exitCodeForDiagnostics } from './exit-codes.js';
import { emitReport, formatOption } from './output.js';
import { envFilesOf } from '../project/run-options.js';
import { declaredSensitive, revealSensitive, sensitiveOption, type SensitiveFlags } from './sensitive-options.js';
import { guardRun, runIdentity } from './state-guard.js';

/** Options plan, apply and diff share. */
export interface RunFlags extends ConnectionOptions, ProjectFlags, SensitiveFlags {
  state?: string;
  /** Milliseconds, from `--lock-timeout`. */
  lockTimeout?: number;
  envFile?: string;
  strict?: boolean;
  concurrency?: number;
  rateLimit?: number;
  emulator?: boolean;
  changedSince?: string;
  requireState?: boolean;
}

const parseConcurrency = integerOption(1, 64, 'a whole number from 1 to 64');

/** `--recreate-missing` and `--max-missing`, for plan and apply (what a refresh that finds sessions gone does). */
export function addMissingOptions(cmd: Command): Command {
  return cmd
    .option('--recreate-missing', 'create again every recorded session that answers 404, however many (without it, a run stops when all of two or more are gone)')
    .addOption(
      new Option('--max-missing <n|percent>', 'stop before any change when more recorded sessions than this answer 404, such as 5 or 10% (default: only when all of two or more do)').argParser((value: string) => {
        const limit = parseMissingLimit(value);
        if (limit === undefined) throw new InvalidArgumentError('expected a count such as 5, or a percentage such as 10%');
        return limit;
      }),
    );
}

/** What `addMissingOptions` gives a run. */
export function missingGuard(flags: { recreateMissing?: boolean; maxMissing?: MissingLimit }): Omit<MissingGuard, 'service'> {
  return { ...(flags.recreateMissing === true ? { recreateMissing: true } : {}), ...(flags.maxMissing !== undefined ? { maxMissing: flags.maxMissing } : {}) };
}

/** `--lock-timeout`: 0, 90 (seconds), 500ms, 30s, 5m, 1h; at most a day. */
export function parseLockTimeout(value: string): number {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(value.trim());
  const ms = m === null ? NaN : Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  if (!(ms >= 0 && ms <= 86_400_000)) throw new InvalidArgumentError('expected a duration such as 0, 30s, 5m or 1h (at most 24h; a bare number is seconds)');
  return ms;
}

/** The help of `--state`, for every command that takes it. */
export const STATE_OPTION_HELP = `where the state is: a file (default: ${DEFAULT_STATE_PATH}), or postgres://USER@HOST:PORT/DATABASE?schema=sessionctl&workspace=default (the password from PGPASSWORD or ~/.pgpass, never in the URL); also SESSIONCTL_STATE`;

/** Adds `--lock-timeout`. */
export function addLockTimeoutOption(cmd: Command): Command {
  return cmd.addOption(
    new Option('--lock-timeout <duration>', 'how long to wait for the state lock while another apply (or state command) holds it: 30s, 5m (default: 0, fail at once naming the holder)').argParser(
      parseLockTimeout,
    ),
  );
}

function parseRate(value: string): number {
  const n = parseRateLimit(value);
  if (n === undefined) throw new InvalidArgumentError('expected requests per time, such as 2000/min, 30/s or 500 (per minute)');
  return n;
}

/**
 * Adds the options every state-aware command shares (and the connection options). Only commands
 * that take the state's lock (apply, destroy, import) get `--lock-timeout`: plan and diff read a
 * snapshot and never wait.
 */
export function addRunOptions(cmd: Command, network: 'always' | 'refresh', locks = true): Command {
  cmd
    .option('--state <path|url>', STATE_OPTION_HELP)
    .addOption(formatOption())
    .addOption(changedSinceOption())
    .option('--env-file <file>', 'read ${VAR} values from a dotenv file; variables already set in the environment win')
    .addOption(sensitiveOption())
    .addOption(new Option('--concurrency <n>', `requests in flight at once (default: 4)`).argParser(parseConcurrency))
    .addOption(new Option('--rate-limit <n/min>', 'space requests out to at most this many per minute (creates and reads together)').argParser(parseRate))
    .option(
      '--emulator',
      `use an in-process emulator instead of the service${network === 'refresh' ? ' (with --refresh)' : ''}; its sessions are kept beside the state file, so plan, apply and diff runs see the same ones`,
    );
  if (locks) addLockTimeoutOption(cmd);
  cmd.option('--require-state', 'refuse to start a new state or workspace: the state must already be there (for pipelines; also `require_state: true` in sessionctl.yaml)');
  addProjectOptions(cmd);
  return addConnectionOptions(cmd);
}

/** What the project configuration sets for a run over manifests. */
export interface RunProject {
  loaded: LoadedProject;
  /** The manifest paths: the arguments, else the configuration's `paths`. */
  paths: string[];
  envFiles?: string[];
  options: ProjectRunOptions;
}

/**
 * Loads the project configuration for a plan, apply, diff, destroy or import run and lets it fill
 * what the flags and environment leave open: formats, base URL, API version (a flag or variable
 * always wins; the state is `stateOf`'s). `undefined` when the file has errors: they have been
 * reported and the exit code set.
 */
export async function projectForRun(command: string, args: readonly string[], flags: RunFlags, env: CommandEnv, defaultPaths?: string[]): Promise<RunProject | undefined> {
  const loaded = await loadProjectForRun(command, flags, env);
  if (loaded === undefined) return undefined;
  const { config } = loaded;
  const vars = env.io.env;
  if (flags.format === undefined && config.formats !== undefined) flags.format = config.formats;
  if (flags.baseUrl === undefined && vars[BASE_URL_ENV] === undefined && config.baseUrl !== undefined) {
    flags.baseUrl = config.baseUrl;
    flags.baseUrlFrom = `${config.file === undefined ? 'sessionctl.yaml' : displayPath(config.file, env.io.cwd)}'s base_url`;
  }
  if (flags.apiVersion === undefined && vars[API_VERSION_ENV] === undefined && config.apiVersion !== undefined) flags.apiVersion = config.apiVersion;
  const envFiles = envFilesOf(flags.envFile, config, env.io.cwd);
  await checkCatalog(config.catalog, env.io.cwd);
  const { projectRunOptions } = await import('../project/run-options.js');
  const paths = args.length === 0 && config.paths === undefined && defaultPaths !== undefined ? defaultPaths : runPaths(args, config);
  return { loaded, paths, ...(envFiles !== undefined ? { envFiles } : {}), options: projectRunOptions(config) };
}

/**
 * What plan, apply and diff all pass their run: where manifests and state come from, the pace,
 * and the sensitive values (declared ones, by flag or by the project; the run's masker, which the
 * run fills as it loads).
 */
export async function runInputs(flags: RunFlags, env: CommandEnv, state: StateBackend, project: RunProject, guarded?: { service?: ServiceIdentity; guard: () => Promise<void> }) {
  const { readStreamBounded } = await import('../manifest/load.js');
  const { io } = env;
  return {
    cwd: io.cwd,
    env: io.env,
    sensitive: declaredSensitive(flags, project.loaded.config.sensitive),
    masker: env.masker,
    revealSensitive: revealSensitive(flags, env),
    readStdin: () => readStreamBounded(io.stdin),
    ...(project.envFiles !== undefined ? { envFiles: project.envFiles } : {}),
    project: project.options,
    apiVersion: apiVersionOf(flags, io.env),
    state,
    ...(guarded?.service !== undefined ? { service: guarded.service } : {}),
    ...(guarded !== undefined ? { guard: guarded.guard } : {}),
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(flags.rateLimit !== undefined ? { rateLimitPerMinute: flags.rateLimit } : {}),
  };
}

/**
 * Where the state is: `--state`, else `SESSIONCTL_STATE`, else the project's `state`, else the
 * default file. A path is relative to the working directory; a `postgres://` URL names a database.
 */
export function stateSpec(flags: { state?: string }, env: CommandEnv, configured?: string): string {
  return flags.state ?? env.io.env['SESSIONCTL_STATE'] ?? configured ?? DEFAULT_STATE_PATH;
}

/**
 * The state backend a command's flags name. The database password (PGPASSWORD) is registered with
 * the redactor: it is never in a URL or message, and this keeps it out of any output regardless.
 */
export function stateOf(flags: { state?: string; lockTimeout?: number }, env: CommandEnv, configured?: string): StateBackend {
  env.redactor.add(env.io.env['PGPASSWORD']);
  return stateBackend(stateSpec(flags, env, configured), env.io.cwd, { env: env.io.env, ...(flags.lockTimeout !== undefined ? { lockTimeoutMs: flags.lockTimeout } : {}) });
}

/**
 * The service of a run over manifests, and its state guards (a state that must be there, a new one
 * announced, a binding to another service refused), which the run calls once its manifests are
 * valid and before it reads the state.
 */
export async function guardedService(
  flags: RunFlags,
  env: CommandEnv,
  state: StateBackend,
  project: RunProject,
  use: StateUse,
  /** Whether the run talks to the service: plan without --refresh reads the state alone, whatever it is bound to. */
  talks = true,
): Promise<{ service?: ServiceIdentity; guard: () => Promise<void> }> {
  const requireState = flags.requireState === true || project.loaded.config.requireState === true;
  // No key is read for a run that sends nothing: a plan without --refresh needs none.
  if (!talks) return { guard: () => guardRun(state, env, { use, requireState }) };
  const service = await runIdentity(flags, env);
  return { service, guard: () => guardRun(state, env, { use, identity: service, requireState }) };
}

/**
 * Writes the report in every requested format, the project file's own warnings with its
 * findings, and sets the exit code from them.
 */
export async function finishRun(outcome: RunOutcome, flags: RunFlags, env: CommandEnv, project: RunProject, exitOverride?: (code: number) => number): Promise<void> {
  for (const secret of outcome.secrets) env.redactor.add(secret);
  const { warnings, sources } = project.loaded;
  if (warnings.length > 0) {
    outcome.report.diagnostics = sortDiagnostics([...warnings, ...outcome.report.diagnostics]);
    outcome.report.summary = { ...outcome.report.summary, ...tally(outcome.report.diagnostics) };
  }
  await emitReport(outcome.report, new Map([...sources, ...outcome.sources]), flags.format, env);
  const code = exitCodeForDiagnostics(outcome.report.diagnostics, { strict: flags.strict === true });
  env.setExitCode(exitOverride ? exitOverride(code) : code);
}

