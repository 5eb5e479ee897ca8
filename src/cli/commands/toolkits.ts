import type { ToolkitList } from '../../wire/operations.js';
import type { RegisterCommand } from '../command.js';
import { addListOptions, addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type ListFlags } from '../operate-options.js';

interface ToolkitsFlags extends ListFlags {
  connected?: boolean;
  search?: string;
  toolkit?: string[];
}

/** Toolkits pages: the service's current maximum page size (api facts §2.7, OAS3 1..50). */
const MAX_PAGE = 50;

/** `sessionctl toolkits SESSION`: the session's toolkits and their connections (GET .../toolkits, paginated). */
export const registerToolkits: RegisterCommand = (program, env) => {
  const cmd = program
    .command('toolkits')
    .description('List the toolkits of a session, with their auth and connection status (paginated).')
    .argument('<session>', SESSION_ARG_HELP)
    .option('--connected', 'only toolkits with an active connection')
    .option('--search <text>', 'only toolkits whose slug, name or description matches')
    .option('--toolkit <slug>', 'only this toolkit (repeatable); overrides the session\'s own toolkit filter', (v: string, prev: string[] = []) => [...prev, v]);
  addListOptions(addOperateOptions(cmd))
    .addHelpText(
      'after',
      sessionHelp(
        ['sessionctl toolkits support-agent', 'sessionctl toolkits support-agent --connected', 'sessionctl toolkits trs_1a2b3c4d5e6f --toolkit github --toolkit slack --format json'],
        ['Without --all or --limit, one page (the service\'s default size) is shown. With --format json and several pages, the', 'output is the last page\'s response with "items" holding every item fetched.'],
      ),
    )
    .action(async (ref: string, flags: ToolkitsFlags) => {
      const { pageSelection, collectPages, cursorOf } = await import('../../runner/paginate.js');
      const selection = pageSelection(flags.all, flags.limit);
      await withSession(ref, flags, env, async (client, id) => {
        const got = await collectPages<ToolkitList>(
          (cursor, limit) =>
            client.listToolkits(id, {
              ...(cursor !== undefined ? { cursor } : {}),
              ...(limit !== undefined && cursor === undefined ? { limit } : {}),
              ...(flags.toolkit !== undefined ? { toolkits: flags.toolkit } : {}),
              ...(flags.connected === true ? { is_connected: true } : {}),
              ...(flags.search !== undefined ? { search: flags.search } : {}),
            }),
          cursorOf,
          selection,
          MAX_PAGE,
        );
        if (flags.format === 'json') return printJson(env, got.response);
        const { renderToolkits } = await import('../../report/operate/toolkits.js');
        const total = typeof got.response.total_items === 'number' ? got.response.total_items : undefined;
        env.io.stdout.write(renderToolkits(got.items, total, got.more, renderContext(env)));
      });
    });
};
