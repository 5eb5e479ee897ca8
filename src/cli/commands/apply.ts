import { appendFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ApplyProgress } from '../../apply/apply.js';
import { lockOwner, DEFAULT_STATE_PATH, type StateLockOptions } from '../../apply/state.js';
import { parseRateLimit } from '../../apply/throttle.js';
import { InputError, UsageError } from '../../errors.js';
import type { Connect, RunOutcome, SessionApi } from '../../plan/run.js';
import { changedSinceOption, narrowToChanged } from '../changed-since.js';
import { addConnectionOptions, clientFromOptions, type ConnectionOptions } from '../connection.js';
import { emitReport, formatOption } from '../output.js';
import type { CommandEnv, RegisterCommand } from '../program.js';
import { exitCodeForDiagnostics } from '../run.js';

/** Options plan, apply and diff share. */
export interface RunFlags extends ConnectionOptions {
  state?: string;
  format?: string[];
  envFile?: string;
  strict?: boolean;
  concurrency?: number;
  rateLimit?: number;
  emulator?: boolean;
  changedSince?: string;
}

function parseConcurrency(value: string): number {
  const n = /^\d+$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 64)) throw new InvalidArgumentError('expected a whole number from 1 to 64');
  return n;
}

function parseRate(value: string): number {
  const n = parseRateLimit(value);
  if (n === undefined) throw new InvalidArgumentError('expected requests per time, such as 2000/min, 30/s or 500 (per minute)');
  return n;
}

/** Adds the options every state-aware command shares (and the connection options). */
export function addRunOptions(cmd: Command, network: 'always' | 'refresh'): Command {
  cmd
    .option('--state <path>', `the state file (default: ${DEFAULT_STATE_PATH})`)
    .addOption(formatOption())
    .addOption(changedSinceOption())
    .option('--env-file <file>', 'read ${VAR} values from a dotenv file; variables already set in the environment win')
    .addOption(new Option('--concurrency <n>', `requests in flight at once (default: 4)`).argParser(parseConcurrency))
    .addOption(new Option('--rate-limit <n/min>', 'space requests out to at most this many per minute (creates and reads together)').argParser(parseRate))
    .option(
      '--emulator',
      `use an in-process emulator instead of the service${network === 'refresh' ? ' (with --refresh)' : ''}; its sessions are kept beside the state file, so plan, apply and diff runs see the same ones`,
    );
  return addConnectionOptions(cmd);
}

/** What plan, apply and diff all pass their run: where manifests and state come from, and the pace. */
export async function runInputs(flags: RunFlags, env: CommandEnv, state: string) {
  const { readStreamBounded } = await import('../../manifest/load.js');
  const { io } = env;
  return {
    cwd: io.cwd,
    env: io.env,
    readStdin: () => readStreamBounded(io.stdin),
    ...(flags.envFile !== undefined ? { envFile: flags.envFile } : {}),
    statePath: state,
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(flags.rateLimit !== undefined ? { rateLimitPerMinute: flags.rateLimit } : {}),
  };
}

export function statePath(flags: RunFlags, env: CommandEnv): string {
  return resolve(env.io.cwd, flags.state ?? DEFAULT_STATE_PATH);
}

/** The emulator's data folder for a state file: `<state folder>/emulator`. */
export function emulatorDataDir(state: string): string {
  return join(dirname(state), 'emulator');
}

/**
 * How a run reaches the service: the real one through the shared connection options, or, with
 * `--emulator`, an in-process emulator (any key works; its URL goes to stderr) that is stopped
 * when the run closes the connection.
 */
export function connector(flags: RunFlags, env: CommandEnv, state: string): Connect {
  return async (): Promise<SessionApi> => {
    if (flags.emulator === true) {
      const [{ startEmulator }, { createClient }] = await Promise.all([import('../../emulator/server.js'), import('../../client/client.js')]);
      const emulator = await startEmulator({ port: 0, dataDir: emulatorDataDir(state) });
      env.io.stderr.write(`emulator: ${emulator.url} (sessions kept in ${emulatorDataDir(state)})\n`);
      const client = createClient({ baseUrl: emulator.url, apiKey: 'sessionctl-emulator' });
      return sessionApi(client, async () => {
        await client.close();
        await emulator.close();
      });
    }
    const client = await clientFromOptions(flags, env);
    return sessionApi(client, () => client.close());
  };
}

type Client = Awaited<ReturnType<typeof clientFromOptions>>;

function sessionApi(client: Client, close: () => Promise<void>): SessionApi {
  return {
    // The body is a validated manifest's wire body; the client's request type is the same shape.
    createSession: (body) => client.createSession(body as Parameters<Client['createSession']>[0]),
    getSession: (id) => client.getSession(id),
    close,
  };
}

/** The state lock's owner and liveness check for this process. */
export function processLock(): StateLockOptions {
  return {
    owner: lockOwner(process.pid),
    isAlive: (pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch (err) {
        // EPERM: it runs, under another user.
        return (err as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
  };
}

/** Writes the report in every requested format and sets the exit code from its findings. */
export async function finishRun(outcome: RunOutcome, flags: RunFlags, env: CommandEnv, exitOverride?: (code: number) => number): Promise<void> {
  for (const secret of outcome.secrets) env.redactor.add(secret);
  await emitReport(outcome.report, outcome.sources, flags.format, env);
  const code = exitCodeForDiagnostics(outcome.report.diagnostics, { strict: flags.strict === true });
  env.setExitCode(exitOverride ? exitOverride(code) : code);
}

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
        import('../../apply/run.js'),
        import('../../plan/run.js'),
        import('../../apply/apply.js'),
      ]);
      const outputFile = io.env['GITHUB_OUTPUT'];
      if (flags.githubOutput === true && (outputFile === undefined || outputFile === '')) {
        throw new UsageError('--github-output needs $GITHUB_OUTPUT, which GitHub Actions sets for each step', 'run inside a GitHub Actions step, or set GITHUB_OUTPUT to a file');
      }
      let state = statePath(flags, env);
      let targets = paths;
      let saved: { path: string; plan: Awaited<ReturnType<typeof readSavedPlan>> & object } | undefined;
      if (paths.length === 1) {
        const planPath = resolve(io.cwd, paths[0]!);
        const plan = await readSavedPlan(planPath);
        if (plan !== undefined) {
          const named = savedPlanPaths(plan, io.cwd);
          targets = named.files;
          if (flags.state === undefined) state = named.statePath;
          saved = { path: planPath, plan };
        }
      }
      if (saved !== undefined && flags.changedSince !== undefined) {
        throw new UsageError('--changed-since cannot narrow a saved plan', 'pass --changed-since to `sessionctl plan --out` instead');
      }
      if (saved === undefined) targets = await narrowToChanged(targets, flags.changedSince, { io });
      const progress = progressHook(env);
      const outcome = await runApply(targets, {
        ...(await runInputs(flags, env, state)),
        connect: connector(flags, env, state),
        dryRun: flags.dryRun === true,
        refresh: flags.refresh !== false,
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
