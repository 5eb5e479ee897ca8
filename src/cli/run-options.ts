import { InvalidArgumentError, Option, type Command } from 'commander';
import { stateBackend, type StateBackend } from '../state/backend.js';
import { DEFAULT_STATE_PATH } from '../state/file-store.js';
import { parseRateLimit } from '../util/throttle.js';
import type { RunOutcome } from '../runner/outcome.js';
import { changedSinceOption } from './changed-since.js';
import type { CommandEnv } from './command.js';
import { addConnectionOptions, type ConnectionOptions } from './connection.js';
import { exitCodeForDiagnostics } from './exit-codes.js';
import { emitReport, formatOption } from './output.js';
import { declaredSensitive, revealSensitive, sensitiveOption, type SensitiveFlags } from './sensitive-options.js';

/** Options plan, apply and diff share. */
export interface RunFlags extends ConnectionOptions, SensitiveFlags {
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
    .addOption(sensitiveOption())
    .addOption(new Option('--concurrency <n>', `requests in flight at once (default: 4)`).argParser(parseConcurrency))
    .addOption(new Option('--rate-limit <n/min>', 'space requests out to at most this many per minute (creates and reads together)').argParser(parseRate))
    .option(
      '--emulator',
      `use an in-process emulator instead of the service${network === 'refresh' ? ' (with --refresh)' : ''}; its sessions are kept beside the state file, so plan, apply and diff runs see the same ones`,
    );
  return addConnectionOptions(cmd);
}

/**
 * What plan, apply and diff all pass their run: where manifests and state come from, the pace,
 * and the sensitive values (declared ones; the run's masker, which the run fills as it loads).
 */
export async function runInputs(flags: RunFlags, env: CommandEnv, state: StateBackend) {
  const { readStreamBounded } = await import('../manifest/load.js');
  const { io } = env;
  return {
    cwd: io.cwd,
    env: io.env,
    sensitive: declaredSensitive(flags),
    masker: env.masker,
    revealSensitive: revealSensitive(flags, env),
    readStdin: () => readStreamBounded(io.stdin),
    ...(flags.envFile !== undefined ? { envFile: flags.envFile } : {}),
    state,
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(flags.rateLimit !== undefined ? { rateLimitPerMinute: flags.rateLimit } : {}),
  };
}

/**
 * Where the state is: `--state`, else `SESSIONCTL_STATE`, else the default file. A path is relative
 * to the working directory.
 */
export function stateSpec(flags: { state?: string }, env: CommandEnv): string {
  return flags.state ?? env.io.env['SESSIONCTL_STATE'] ?? DEFAULT_STATE_PATH;
}

/** The state backend a command's flags name. */
export function stateOf(flags: { state?: string }, env: CommandEnv): StateBackend {
  return stateBackend(stateSpec(flags, env), env.io.cwd);
}

/** Writes the report in every requested format and sets the exit code from its findings. */
export async function finishRun(outcome: RunOutcome, flags: RunFlags, env: CommandEnv, exitOverride?: (code: number) => number): Promise<void> {
  for (const secret of outcome.secrets) env.redactor.add(secret);
  await emitReport(outcome.report, outcome.sources, flags.format, env);
  const code = exitCodeForDiagnostics(outcome.report.diagnostics, { strict: flags.strict === true });
  env.setExitCode(exitOverride ? exitOverride(code) : code);
}

