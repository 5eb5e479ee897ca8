import { Option, type Command } from 'commander';
import { DEFAULT_STATE_PATH } from '../state/file-store.js';
import type { SessionClient } from '../client/client.js';
import type { ResolvedSession } from '../runner/session-ref.js';
import type { RenderContext } from '../report/operate/context.js';
import { createStyle } from '../report/ansi.js';
import { addConnectionOptions, type ConnectionOptions } from './connection.js';
import { openConnection } from './open-connection.js';
import { stateOf } from './run-options.js';
import { colorEnabled } from './output.js';
import type { CommandEnv } from './command.js';

/**
 * What the commands that operate one session (get, toolkits, tools, search, execute, execute-meta,
 * link, proxy, files ...) share: how SESSION is named, the output format, and the connection.
 */
export interface OperateFlags extends ConnectionOptions {
  state?: string;
  userId?: string;
  format: 'human' | 'json' | 'yaml';
  emulator?: boolean;
}

export interface ListFlags extends OperateFlags {
  all?: boolean;
  limit?: string;
}

export const SESSION_ARG_HELP = 'a session id (trs_...) or the name of a manifest recorded in the state by apply';

/** Adds --state, --user-id, --format and the connection options. */
export function addOperateOptions(cmd: Command, formats: { yaml?: string } = {}): Command {
  cmd
    .option('--state <path|url>', `the state that resolves manifest names: a file (default: ${DEFAULT_STATE_PATH}) or a postgres:// URL; also SESSIONCTL_STATE`)
    .option('--user-id <id>', 'the user id to pick when a manifest name was applied for several users')
    .addOption(
      new Option('--format <format>', `human: tables and summaries; json: the service's response, unchanged${formats.yaml !== undefined ? `; yaml: ${formats.yaml}` : ''}`)
        .choices(formats.yaml !== undefined ? ['human', 'json', 'yaml'] : ['human', 'json'])
        .default('human'),
    )
    .option(
      '--emulator',
      'use the offline emulator of apply --emulator (kept beside the state file); URLs it prints last only as long as the command',
    );
  return addConnectionOptions(cmd);
}

/** Adds --all and --limit for a paginated list. */
export function addListOptions(cmd: Command): Command {
  return cmd
    .option('--all', 'follow the pages to the end')
    .option('--limit <n>', 'fetch pages until N items are in, and show those N');
}

/**
 * Resolves SESSION (state file when it is a name), builds the client, runs `work`, and closes the
 * client whatever happens. The state file is read before the key is, so a wrong name fails fast.
 */
export async function withSession(
  ref: string,
  flags: OperateFlags,
  env: CommandEnv,
  work: (client: SessionClient, sessionId: string, resolved: ResolvedSession) => Promise<void>,
): Promise<void> {
  const { resolveSession } = await import('../runner/session-ref.js');
  const state = stateOf(flags, env);
  const session = await resolveSession(ref, {
    state,
    cwd: env.io.cwd,
    ...(flags.userId !== undefined ? { userId: flags.userId } : {}),
  });
  const { client, close } = await openConnection(flags, env, state);
  try {
    await work(client, session.sessionId, session);
  } finally {
    await close();
  }
}

/**
 * The width human tables fit: `COLUMNS` when set (scripts, tests), else the terminal's own width;
 * output to a pipe or file is not cut.
 */
export function terminalWidth(env: CommandEnv): number | undefined {
  const fromEnv = env.io.env['COLUMNS'];
  if (fromEnv !== undefined && /^\d+$/.test(fromEnv) && Number(fromEnv) >= 20) return Number(fromEnv);
  const cols = env.io.stdout.columns;
  return env.io.stdout.isTTY === true && typeof cols === 'number' && cols >= 20 ? cols : undefined;
}

/** Width and colour for the human renderers: colour only on a TTY (or FORCE_COLOR), never with NO_COLOR. */
export function renderContext(env: CommandEnv): RenderContext {
  const width = terminalWidth(env);
  return { ...(width !== undefined ? { width } : {}), style: createStyle(colorEnabled(env.io.env, env.io.stdout.isTTY)) };
}

/** `--format json`: the value as the service sent it, pretty-printed, one document. */
export function printJson(env: CommandEnv, value: unknown): void {
  env.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Help text lines shared by every operate command. */
export function sessionHelp(examples: readonly string[], extra: readonly string[] = []): string {
  return [
    '',
    'Examples:',
    ...examples.map((e) => `  ${e}`),
    '',
    ...extra,
    ...(extra.length > 0 ? [''] : []),
    'SESSION is a session id (trs_...) or a manifest name from the state (--state, --user-id).',
    'Exit codes: 0 ok, 1 the tool or request failed at its own level, 2 usage or input error, 3 the service failed or refused,',
    '5 the state that resolves a manifest name could not be read.',
  ].join('\n');
}
