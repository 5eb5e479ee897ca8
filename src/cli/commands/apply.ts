import { appendFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import { InputError, UsageError } from '../../diagnostics/errors.js';
import { narrowToChanged } from '../changed-since.js';
import { announceDeletions, graceMs, watchRun } from '../apply-progress.js';
import { rolloutProgress } from '../rollout-progress.js';
import { announceFleetDeletions, fleetRefusal, fleetThreshold, pastThreshold } from '../fleet-confirm.js';
import { integerOption } from '../integer-option.js';
import type { Canary } from '../../rollout/canary-size.js';
import type { CommandEnv, RegisterCommand } from '../command.js';
import { connector } from '../open-connection.js';
import { processLock } from '../process-lock.js';
import { addMissingOptions, addRunOptions, finishRun, guardedService, missingGuard, projectForRun, runInputs, stateOf, type RunFlags, type RunProject } from '../run-options.js';
import type { MissingLimit } from '../../plan/mass-missing.js';
import type { AppliedItem } from '../../apply/apply.js';
import type { SavedPlan } from '../../runner/saved-plan.js';
import type { StateBackend } from '../../state/backend.js';

interface ApplyFlags extends RunFlags {
  dryRun?: boolean;
  /** A terraform habit: accepted, with a hint, since apply never asks. */
  autoApprove?: boolean;
  githubOutput?: boolean;
  refresh?: boolean;
  prune?: boolean;
  keepReplaced?: boolean;
  recreateUnknown?: boolean;
  recreateMissing?: boolean;
  maxMissing?: MissingLimit;
  canary?: Canary;
  maxFailures?: number;
  yes?: boolean;
  repairFleet?: boolean;
}

/** `--canary 50` (sessions) or `--canary 5%` (of those behind). */
function parseCanary(value: string): Canary {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(%?)\s*$/.exec(value);
  const v = m === null ? NaN : Number(m[1]);
  if (m === null || !(v > 0) || (m[2] === '' && !Number.isSafeInteger(v)) || (m[2] === '%' && v > 100)) {
    throw new InvalidArgumentError('expected a number of sessions (50) or a percentage of them (5%)');
  }
  return m[2] === '%' ? { percent: v } : { count: v };
}

/** `--refresh=false` (terraform's spelling) as well as `--no-refresh`. */
function parseRefresh(value: string | undefined): boolean {
  if (value === undefined || value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidArgumentError('expected true or false');
}

const APPLY_HELP = [
  '',
  'Examples:',
  '  sessionctl apply sessions/                           # create, update or replace what changed',
  '  sessionctl apply sessions/ --prune                   # also delete sessions of removed manifests',
  '  sessionctl plan sessions/ --out plan.json && sessionctl apply plan.json',
  '  sessionctl apply examples/ --emulator --state /tmp/demo/state.json',
  '  USER_ID=alice sessionctl apply profile.yaml          # one manifest, several users',
  '  sessionctl apply sessions/ --canary 1% --max-failures 50 --concurrency 32 --rate-limit 2000/min',
  '',
  'Per-user manifests (user_id: <end-user>): apply publishes the new version first (every session',
  'ensure creates from then on is on it), then rolls it out to the recorded sessions: a PATCH each,',
  'guarded by its config version, at --concurrency and --rate-limit. Each rolled-out session is',
  'recorded as it goes, so an interrupted or killed rollout resumes where it stopped on the next apply.',
  'Drift of those sessions (`sessionctl diff` counts it by field) is repaired with --repair-fleet: each',
  'session on the version published is read, and one that drifted gets a PATCH of the drifted keys.',
  'With --prune, a per-user manifest whose file is gone loses every session (a DELETE each), then its',
  'publication; past confirm_fleet_deletes_over sessions (default 100) only --yes confirms it.',
  '',
  'Exit codes: 0 applied and in sync, 1 findings or drift, 2 usage or input error,',
  '3 the service failed or refused a request (the others still ran; the state keeps every success),',
  '5 the state could not be read, written or locked (another run holds the lock, the database',
  'refused or stopped answering): nothing starts after it, and a session created but not recorded',
  'is named with the `sessionctl import` line that adopts it,',
  '130 interrupted (SIGINT), 143 stopped (SIGTERM): requests in flight were given 10 s; a create left',
  'without an answer is recorded as outcome unknown and never sent again unless --recreate-unknown.',
].join('\n');

/**
 * `sessionctl apply [paths..]` / `sessionctl apply PLAN.json`: validate, plan, create what changed,
 * verify each returned config, record the state.
 */
export const registerApply: RegisterCommand = (program, env) => {
  const cmd = program
    .command('apply')
    .description('Create, update in place, replace and (with --prune) delete sessions so that they match their manifests; verify every answer and record each change in the state.')
    .argument('[paths...]', 'manifest files, folders, globs in quotes, - for standard input, or one plan file saved by `plan --out` (default: `paths` of sessionctl.yaml)')
    .option('--dry-run', 'show the plan only: no lock, no request')
    .addOption(new Option('--auto-approve', 'accepted and ignored: apply never asks').hideHelp())
    .addOption(new Option('--refresh [bool]', 'read recorded sessions first and repair their drift (default: true; --refresh=false or --no-refresh skips it)').argParser(parseRefresh))
    .addOption(new Option('--no-refresh', 'do not read recorded sessions first').hideHelp())
    .option('--prune', 'delete the recorded sessions whose manifests are gone from these paths (listed before anything is deleted; files sessionctl.yaml ignores keep theirs)')
    .option('--repair-fleet', 'per-user manifests: also read every session on the version published and PATCH back those that drifted (`sessionctl diff` shows that drift first)')
    .option('--yes', 'with --prune: confirm deleting more sessions of per-user manifests than confirm_fleet_deletes_over (default 100)')
    .option('--keep-replaced', 'a replace leaves the old session alive (and forgets it) instead of deleting it')
    .option('--recreate-unknown', 'create sessions whose earlier create has an unknown outcome (check first that none exists)')
    .option('--strict', 'drift the manifest does not declare (added) and warnings fail the run too')
    .option('--github-output', 'append <name>_session_id and <name>_mcp_url to the file named by $GITHUB_OUTPUT')
    .addOption(new Option('--canary <n|p%>', 'per-user manifests: roll out to this many sessions first (or this share of them), read them back, and go on only if they are on the new config').argParser(parseCanary))
    .addOption(new Option('--max-failures <n>', 'per-user manifests: stop the rollout once more than this many sessions failed (default: 1% of the sessions behind, at least 10; the rest untouched, the next apply resumes)').argParser(integerOption(0, 1_000_000_000, 'a whole number of sessions (0 stops at the first failure)')));
  addMissingOptions(cmd);
  addRunOptions(cmd, 'always')
    .addHelpText('after', APPLY_HELP)
    .action((args: string[], flags: ApplyFlags) => runApplyCommand(args, flags, env));
};

/** What apply works on: the manifests (or a saved plan's), the state, and what a saved plan fixed. */
interface ApplyTargets {
  targets: string[];
  state: StateBackend;
  pruneRoots?: string[];
  saved?: { path: string; plan: SavedPlan };
}

/**
 * One path that is a plan saved by `plan --out` applies that plan: its files, its state (unless
 * --state names another) and the options it was made with, which are set on `flags`.
 */
async function applyTargets(paths: string[], flags: ApplyFlags, env: CommandEnv, project: RunProject): Promise<ApplyTargets> {
  const { io } = env;
  const state = stateOf(flags, env, project.loaded.config.state);
  if (paths.length === 1) {
    const { checkSavedPlan, readSavedPlan, savedPlanPaths } = await import('../../runner/saved-plan.js');
    const planPath = resolve(io.cwd, paths[0]!);
    const plan = await readSavedPlan(planPath);
    if (plan !== undefined) {
      if (flags.changedSince !== undefined) throw new UsageError('--changed-since cannot narrow a saved plan', 'pass --changed-since to `sessionctl plan --out` instead');
      checkSavedPlan(plan, paths[0]!, io.cwd, state);
      const named = savedPlanPaths(plan, io.cwd);
      // What the plan was made with is what it applies.
      if (plan.prune === true) flags.prune = true;
      if (plan.recreate_unknown === true) flags.recreateUnknown = true;
      return { targets: named.files, state, ...(named.pruneRoots !== undefined ? { pruneRoots: named.pruneRoots } : {}), saved: { path: planPath, plan } };
    }
  }
  const targets = await narrowToChanged(paths, flags.changedSince, { io, ...(project.envFiles !== undefined ? { envFiles: project.envFiles } : {}) });
  return { targets, state };
}

/** The file named by $GITHUB_OUTPUT, checked before anything runs when --github-output asks for it. */
function githubOutputFile(flags: ApplyFlags, env: CommandEnv): string | undefined {
  if (flags.githubOutput !== true) return undefined;
  const outputFile = env.io.env['GITHUB_OUTPUT'];
  if (outputFile === undefined || outputFile === '') {
    throw new UsageError('--github-output needs $GITHUB_OUTPUT, which GitHub Actions sets for each step', 'run inside a GitHub Actions step, or set GITHUB_OUTPUT to a file');
  }
  return outputFile;
}

async function appendGithubOutput(outputFile: string, applied: AppliedItem[]): Promise<void> {
  const { githubOutputLines } = await import('../../apply/github-output.js');
  const lines = githubOutputLines(applied);
  try {
    if (lines !== '') await appendFile(outputFile, lines);
  } catch (err) {
    throw new InputError(`cannot append to $GITHUB_OUTPUT: ${(err as Error).message}`, outputFile);
  }
}

async function runApplyCommand(args: string[], flags: ApplyFlags, env: CommandEnv): Promise<void> {
  if (flags.autoApprove === true) {
    env.io.stderr.write('hint: apply never asks for confirmation, so --auto-approve changes nothing; review what it will do with `sessionctl plan` (or save it with `plan --out FILE` and apply that file). Only destroy asks.\n');
  }
  const project = await projectForRun('apply', args, flags, env);
  if (project === undefined) return;
  const { runApply } = await import('../../runner/run-apply.js');
  const outputFile = githubOutputFile(flags, env);
  const { targets, state, pruneRoots, saved } = await applyTargets(project.paths, flags, env, project);
  const service = await guardedService(flags, env, state, project, 'start');
  const watch = watchRun(env, 'apply');
  let outcome;
  try {
    outcome = await runApply(targets, {
      ...(await runInputs(flags, env, state, project, service)),
      connect: connector(flags, env, state),
      missing: missingGuard(flags),
      dryRun: flags.dryRun === true,
      refresh: flags.refresh !== false,
      prune: flags.prune === true,
      ...(pruneRoots !== undefined ? { pruneRoots } : {}),
      keepReplaced: flags.keepReplaced === true,
      recreateUnknown: flags.recreateUnknown === true,
      strict: flags.strict === true,
      ...(saved !== undefined ? { saved } : {}),
      lock: processLock(env.io.stderr),
      onProgress: watch.onProgress,
      onRolloutProgress: rolloutProgress(env),
      ...(flags.canary !== undefined ? { canary: flags.canary } : {}),
      ...(flags.maxFailures !== undefined ? { maxFailures: flags.maxFailures } : {}),
      repairFleet: flags.repairFleet === true,
      signal: watch.signal,
      graceMs: graceMs(env),
      onInterrupt: watch.onInterrupt,
      beforeDeletes: (plan) => announceDeletions(plan, env, 'apply --prune'),
      confirmFleetDeletes: (plan) => {
        const fleets = plan.fleetDeletions ?? [];
        announceFleetDeletions(fleets, env, 'apply --prune');
        const threshold = fleetThreshold(project.loaded.config);
        if (flags.yes !== true && pastThreshold(fleets, threshold)) throw fleetRefusal('apply --prune', fleets, threshold);
      },
    });
  } finally {
    watch.stop();
  }
  // The service's answers with every sensitive value masked; a sensitive user id is in its stored form already.
  const applied = outcome.result?.items.map((i) => ({ ...i, ...(i.session_id !== undefined ? { session_id: env.masker.text(i.session_id) } : {}), ...(i.mcp_url !== undefined ? { mcp_url: env.masker.text(i.mcp_url) } : {}) }));
  if (outputFile !== undefined && applied !== undefined) await appendGithubOutput(outputFile, applied);
  const interrupted = watch.signalExit();
  await finishRun(outcome, flags, env, project, (code) => interrupted ?? code);
}
