import type { Command } from 'commander';
import type { ExecuteResult } from '../../wire/operations.js';
import type { CommandEnv, RegisterCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type OperateFlags } from '../operate-options.js';

export interface ExecuteFlags extends OperateFlags {
  arg?: string[];
  argsFile?: string;
}

export const ARG_HELP = [
  'Arguments: --arg name=value sends value as JSON when it parses as JSON (numbers, true/false, null,',
  '{"objects"}, ["arrays"], "quoted strings"), otherwise as the plain string: --arg count=3 sends 3,',
  "--arg owner=octocat sends \"octocat\", --arg 'zip=\"01234\"' sends the string 01234. --args-file FILE (or - for",
  'standard input) holds a JSON object; each --arg then sets or replaces one top-level key of it.',
  'A tool that fails (HTTP 200 with "error") prints the error on stderr and exits 1.',
];

/** Adds --arg (repeatable) and --args-file. */
export function addArgumentOptions(cmd: Command): Command {
  return cmd
    .option('--arg <name=value>', 'one argument; the value is JSON when it parses, else a string (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--args-file <file|->', 'a JSON object of arguments, from a file or - for standard input');
}

/** Prints a tool result and sets exit code 1 for a tool-level failure (HTTP 200 with `error`). */
export async function reportToolResult(slug: string, result: ExecuteResult, flags: OperateFlags, env: CommandEnv): Promise<void> {
  const { describeToolFailure, renderExecuteResult } = await import('../../report/operate/execute.js');
  const failed = result.error !== null && result.error !== undefined;
  if (flags.format === 'json') printJson(env, result);
  else if (!failed) env.io.stdout.write(renderExecuteResult(slug, result, renderContext(env)));
  if (failed) {
    env.io.stderr.write(describeToolFailure(slug, result));
    env.setExitCode(ExitCode.findings);
  }
}

/** `sessionctl execute SESSION TOOL`: run one tool in the session (POST .../execute). */
export const registerExecute: RegisterCommand = (program, env) => {
  const cmd = program
    .command('execute')
    .description('Run one tool in a session with arguments, and print its result.')
    .argument('<session>', SESSION_ARG_HELP)
    .argument('<tool>', 'the tool slug, e.g. GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER');
  addOperateOptions(addArgumentOptions(cmd))
    .addHelpText(
      'after',
      sessionHelp(
        [
          'sessionctl execute support-agent GITHUB_STAR_A_REPOSITORY_FOR_THE_AUTHENTICATED_USER --arg owner=octocat --arg repo=hello-world',
          'echo \'{"owner": "octocat", "repo": "hello-world"}\' | sessionctl execute trs_1a2b3c4d5e6f GITHUB_GET_A_REPOSITORY --args-file -',
        ],
        ARG_HELP,
      ),
    )
    .action(async (ref: string, tool: string, flags: ExecuteFlags) => {
      const { buildToolArguments } = await import('../../runner/tool-arguments.js');
      const args = await buildToolArguments(flags.arg ?? [], flags.argsFile, env.io);
      await withSession(ref, flags, env, async (client, id) => {
        const result = await client.execute(id, { tool_slug: tool, arguments: args });
        await reportToolResult(tool, result, flags, env);
      });
    });
};
