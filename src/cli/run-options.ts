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

/** Options plan, apply and diff share. */
export interface RunFlags extends ConnectionOptions {
  state?: string;
  /** Milliseconds, from `--lock-timeout`. */
  lockTimeout?: number;
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

/** Adds the options every state-aware command shares (and the connection options). */
export function addRunOptions(cmd: Command, network: 'always' | 'refresh'): Command {
  cmd
    .option('--state <path|url>', STATE_OPTION_HELP)
    .addOption(formatOption())
    .addOption(changedSinceOption())
    .option('--env-file <file>', 'read ${VAR} values from a dotenv file; variables already set in the environment win')
    .addOption(new Option('--concurrency <n>', `requests in flight at once (default: 4)`).argParser(parseConcurrency))
    .addOption(new Option('--rate-limit <n/min>', 'space requests out to at most this many per minute (creates and reads together)').argParser(parseRate))
    .option(
      '--emulator',
      `use an in-process emulator instead of the service${network === 'refresh' ? ' (with --refresh)' : ''}; its sessions are kept beside the state file, so plan, apply and diff runs see the same ones`,
    );
  addLockTimeoutOption(cmd);
  return addConnectionOptions(cmd);
}

/** What plan, apply and diff all pass their run: where manifests and state come from, and the pace. */
export async function runInputs(flags: RunFlags, env: CommandEnv, state: StateBackend) {
  const { readStreamBounded } = await import('../manifest/load.js');
  const { io } = env;
  return {
    cwd: io.cwd,
    env: io.env,
    readStdin: () => readStreamBounded(io.stdin),
    ...(flags.envFile !== undefined ? { envFile: flags.envFile } : {}),
    state,
    ...(flags.concurrency !== undefined ? { concurrency: flags.concurrency } : {}),
    ...(flags.rateLimit !== undefined ? { rateLimitPerMinute: flags.rateLimit } : {}),
  };
}

/**
 * Where the state is: `--state`, else `SESSIONCTL_STATE`, else the default file. A path is relative
 * to the working directory; a `postgres://` URL names a database.
 */
export function stateSpec(flags: { state?: string }, env: CommandEnv): string {
  return flags.state ?? env.io.env['SESSIONCTL_STATE'] ?? DEFAULT_STATE_PATH;
}

/**
 * The state backend a command's flags name. The database password (PGPASSWORD) is registered with
 * the redactor: it is never in a URL or message, and this keeps it out of any output regardless.
 */
export function stateOf(flags: { state?: string; lockTimeout?: number }, env: CommandEnv): StateBackend {
  env.redactor.add(env.io.env['PGPASSWORD']);
  return stateBackend(stateSpec(flags, env), env.io.cwd, { env: env.io.env, ...(flags.lockTimeout !== undefined ? { lockTimeoutMs: flags.lockTimeout } : {}) });
}

/** Writes the report in every requested format and sets the exit code from its findings. */
export async function finishRun(outcome: RunOutcome, flags: RunFlags, env: CommandEnv, exitOverride?: (code: number) => number): Promise<void> {
  for (const secret of outcome.secrets) env.redactor.add(secret);
  await emitReport(outcome.report, outcome.sources, flags.format, env);
  const code = exitCodeForDiagnostics(outcome.report.diagnostics, { strict: flags.strict === true });
  env.setExitCode(exitOverride ? exitOverride(code) : code);
}

