import type { McpCallResult, McpTool } from '../../client/mcp.js';
import type { CommandEnv, RegisterCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { addArgumentOptions, ARG_HELP, type ExecuteFlags } from './execute.js';
import { addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession } from '../operate-options.js';

interface McpFlags extends ExecuteFlags {
  call?: string;
}

/** `tools/list` as a table: what an agent connected to the session sees. */
async function printTools(tools: readonly McpTool[], flags: McpFlags, env: CommandEnv): Promise<void> {
  if (flags.format === 'json') return printJson(env, { tools });
  const [{ renderTable }, { count }] = await Promise.all([import('../../report/operate/table.js'), import('../../report/operate/context.js')]);
  if (tools.length === 0) {
    env.io.stdout.write('no tools\n');
    return;
  }
  const table = renderTable([{ header: 'TOOL' }, { header: 'DESCRIPTION', shrink: true }], tools.map((t) => [t.name, t.description]), renderContext(env));
  env.io.stdout.write(`${table}\n${count(tools.length, 'tool')}\n`);
}

/** A `tools/call` result: its text content (JSON as sent), exit 1 when the tool reports an error. */
function printCall(tool: string, result: McpCallResult, flags: McpFlags, env: CommandEnv): void {
  if (flags.format === 'json') printJson(env, result);
  else if (!result.isError) {
    for (const part of result.content) env.io.stdout.write(`${typeof part['text'] === 'string' ? part['text'] : JSON.stringify(part)}\n`);
  }
  if (result.isError) {
    const text = result.content.map((p) => (typeof p['text'] === 'string' ? p['text'] : JSON.stringify(p))).join('\n');
    env.io.stderr.write(`error: ${tool} failed over MCP: ${text}\n`);
    env.setExitCode(ExitCode.findings);
  }
}

/** `sessionctl mcp SESSION`: what an agent connected to the session's MCP URL sees; `--call` runs one tool there. */
export const registerMcp: RegisterCommand = (program, env) => {
  const cmd = program
    .command('mcp')
    .description("List the tools an agent connected to the session's MCP URL sees (tools/list), or call one (--call).")
    .argument('<session>', SESSION_ARG_HELP)
    .option('--call <tool>', 'call this tool over MCP (tools/call) instead of listing');
  addOperateOptions(addArgumentOptions(cmd))
    .addHelpText(
      'after',
      sessionHelp(['sessionctl mcp support-agent', 'sessionctl mcp trs_1a2b3c4d5e6f --format json', "sessionctl mcp support-agent --call COMPOSIO_SEARCH_TOOLS --arg 'queries=[{\"use_case\": \"send an email\"}]'"], ARG_HELP),
    )
    .action(async (ref: string, flags: McpFlags) => {
      const { buildToolArguments } = await import('../../runner/tool-arguments.js');
      const args = flags.call === undefined ? {} : await buildToolArguments(flags.arg ?? [], flags.argsFile, env.io);
      await withSession(ref, flags, env, async (client, id) => {
        if (flags.call === undefined) await printTools(await client.mcpTools(id), flags, env);
        else printCall(flags.call, await client.mcpCall(id, flags.call, args), flags, env);
      });
    });
};
