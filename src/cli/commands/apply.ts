import { appendFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ApplyProgress } from '../../apply/apply.js';
import { InputError, UsageError } from '../../diagnostics/errors.js';
import { narrowToChanged } from '../changed-since.js';
import type { CommandEnv, RegisterCommand } from '../command.js';
import { connector } from '../open-connection.js';
import { processLock } from '../process-lock.js';
import { addRunOptions, finishRun, runInputs, stateOf, type RunFlags } from '../run-options.js';

interface ApplyFlags extends RunFlags {
  dryRun?: boolean;
  githubOutput?: boolean;
  refresh?: boolean;
}

/** Progress on a terminal: one line, rewritten in place; nothing when stderr is not a TTY. */
function progressHook(env: CommandEnv): ((p: ApplyProgress) => void) | undefined {
  if (env.io.stderr.isTTY !== true) return undefined;
  return ({ done, total, item }) => {
    const outcome = item.outcome === 'outcome-unknown' ? 'unknown' : item.outcome;
    env.io.stderr.write(`\r\u001b[K[${done}/${total}] ${outcome} ${item.name}${done === total ? '\n' : ''}`);
  };
}

/**
 * `sessionctl apply [paths..]` / `sessionctl apply PLAN.json`: validate, plan, create what changed,
 * verify each returned config, record the state.
 */
export const registerApply: RegisterCommand = (program, env) => {
  const cmd = program
    .command('apply')
    .description('Create sessions for new or changed manifests, verify each returned config against the declared one, and record them in the state file.')
    .argument('<paths...>', 'manifest files, folders, globs in quotes, - for standard input, or one plan file saved by `plan --out`')
    .option('--dry-run', 'show the plan only: no lock, no request')
    .option('--no-refresh', 'do not GET recorded sessions to confirm they exist and check their drift')
    .option('--strict', 'drift the manifest does not declare (added) and warnings fail the run too')
    .option('--github-output', 'append <name>_session_id and <name>_mcp_url to the file named by $GITHUB_OUTPUT');
  addRunOptions(cmd, 'always')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl apply manifests/                          # create what is new or changed',
        '  sessionctl plan manifests/ --out plan.json && sessionctl apply plan.json',
        '  sessionctl apply examples/ --emulator --state /tmp/demo/state.json',
        '  USER_ID=alice sessionctl apply profile.yaml          # one manifest, several users',
        '',
        'Exit codes: 0 applied and in sync, 1 findings or drift, 2 usage or input error,',
        '3 the service failed or refused a request (the others still ran; the state keeps every success).',
      ].join('\n'),
    )
    .action(async (paths: string[], flags: ApplyFlags) => {
      const { io } = env;
      const [{ runApply }, { readSavedPlan, savedPlanPaths }, { githubOutputLines }] = await Promise.all([
        import('../../runner/run-apply.js'),
        import('../../runner/saved-plan.js'),
        import('../../apply/github-output.js'),
      ]);
      const outputFile = io.env['GITHUB_OUTPUT'];
      if (flags.githubOutput === true && (outputFile === undefined || outputFile === '')) {
        throw new UsageError('--github-output needs $GITHUB_OUTPUT, which GitHub Actions sets for each step', 'run inside a GitHub Actions step, or set GITHUB_OUTPUT to a file');
      }
      let state = stateOf(flags, env);
      let targets = paths;
      let saved: { path: string; plan: Awaited<ReturnType<typeof readSavedPlan>> & object } | undefined;
      if (paths.length === 1) {
        const planPath = resolve(io.cwd, paths[0]!);
        const plan = await readSavedPlan(planPath);
        if (plan !== undefined) {
          const named = savedPlanPaths(plan, io.cwd);
          targets = named.files;
          if (flags.state === undefined) state = stateOf({ state: named.state }, env);
          saved = { path: planPath, plan };
        }
      }
      if (saved !== undefined && flags.changedSince !== undefined) {
        throw new UsageError('--changed-since cannot narrow a saved plan', 'pass --changed-since to `sessionctl plan --out` instead');
      }
      if (saved === undefined) targets = await narrowToChanged(targets, flags.changedSince, { io, ...(flags.envFile !== undefined ? { envFile: flags.envFile } : {}) });
      const progress = progressHook(env);
      const outcome = await runApply(targets, {
        ...(await runInputs(flags, env, state)),
        connect: connector(flags, env, state),
        dryRun: flags.dryRun === true,
        refresh: flags.refresh !== false,
        strict: flags.strict === true,
        ...(saved !== undefined ? { saved } : {}),
        lock: processLock(),
        ...(progress ? { onProgress: progress } : {}),
      });
      if (flags.githubOutput === true && outcome.result !== undefined) {
        const lines = githubOutputLines(outcome.result.items);
        try {
          if (lines !== '') await appendFile(outputFile!, lines);
        } catch (err) {
          throw new InputError(`cannot append to $GITHUB_OUTPUT: ${(err as Error).message}`, outputFile);
        }
      }
      await finishRun(outcome, flags, env);
    });
};
