import type { RegisterCommand } from '../command.js';
import { addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type OperateFlags } from '../operate-options.js';

/** `sessionctl tools SESSION`: the tools a session exposes directly (GET .../tools). */
export const registerTools: RegisterCommand = (program, env) => {
  const cmd = program
    .command('tools')
    .description('List the tools a session exposes directly: its meta tools and any preloaded app tools.')
    .argument('<session>', SESSION_ARG_HELP);
  addOperateOptions(cmd)
    .addHelpText('after', sessionHelp(['sessionctl tools support-agent', "sessionctl tools trs_1a2b3c4d5e6f --format json | jq -r '.items[].slug'"]))
    .action(async (ref: string, flags: OperateFlags) => {
      await withSession(ref, flags, env, async (client, id) => {
        const list = await client.listTools(id);
        if (flags.format === 'json') return printJson(env, list);
        const { renderTools } = await import('../../report/operate/tools.js');
        env.io.stdout.write(renderTools(Array.isArray(list.items) ? list.items : [], renderContext(env)));
      });
    });
};
