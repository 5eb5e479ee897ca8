import type { RegisterCommand } from '../command.js';
import { addArgumentOptions, ARG_HELP, reportToolResult, type ExecuteFlags } from './execute.js';
import { addOperateOptions, SESSION_ARG_HELP, sessionHelp, withSession } from '../operate-options.js';

/** `sessionctl execute-meta SESSION SLUG`: run one of the session's meta tools (POST .../execute_meta). */
export const registerExecuteMeta: RegisterCommand = (program, env) => {
  const cmd = program
    .command('execute-meta')
    .description('Run one of the session\'s meta tools (COMPOSIO_SEARCH_TOOLS, COMPOSIO_MANAGE_CONNECTIONS, ...) with arguments.')
    .argument('<session>', SESSION_ARG_HELP)
    .argument('<slug>', 'the meta tool, e.g. COMPOSIO_MANAGE_CONNECTIONS (see `sessionctl tools SESSION`)');
  addOperateOptions(addArgumentOptions(cmd))
    .addHelpText(
      'after',
      sessionHelp(
        [
          'sessionctl execute-meta support-agent COMPOSIO_MANAGE_CONNECTIONS --arg \'toolkits=["github"]\'',
          'sessionctl execute-meta trs_1a2b3c4d5e6f COMPOSIO_GET_TOOL_SCHEMAS --arg \'tool_slugs=["GITHUB_GET_A_REPOSITORY"]\' --format json',
        ],
        ARG_HELP,
      ),
    )
    .action(async (ref: string, slug: string, flags: ExecuteFlags) => {
      const { buildToolArguments } = await import('../../runner/tool-arguments.js');
      const args = await buildToolArguments(flags.arg ?? [], flags.argsFile, env.io);
      await withSession(ref, flags, env, async (client, id) => {
        const result = await client.executeMeta(id, { slug, arguments: args });
        await reportToolResult(slug, result, flags, env);
      });
    });
};
