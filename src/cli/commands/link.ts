import { UsageError } from '../../diagnostics/errors.js';
import type { RegisterCommand } from '../command.js';
import { addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type OperateFlags } from '../operate-options.js';

interface LinkFlags extends OperateFlags {
  callbackUrl?: string;
}

/** `sessionctl link SESSION TOOLKIT`: start a connection flow for the session's user (POST .../link). */
export const registerLink: RegisterCommand = (program, env) => {
  const cmd = program
    .command('link')
    .description('Start connecting a toolkit for the session\'s user: prints the URL the user opens to authorise it.')
    .argument('<session>', SESSION_ARG_HELP)
    .argument('<toolkit>', 'the toolkit slug, e.g. github')
    .option('--callback-url <url>', 'where the user lands after authorising (http or https)');
  addOperateOptions(cmd)
    .addHelpText('after', sessionHelp(['sessionctl link support-agent github', 'sessionctl link trs_1a2b3c4d5e6f gmail --callback-url https://example.com/connected']))
    .action(async (ref: string, toolkit: string, flags: LinkFlags) => {
      if (flags.callbackUrl !== undefined) {
        let ok = false;
        try {
          ok = ['http:', 'https:'].includes(new URL(flags.callbackUrl).protocol);
        } catch {
          ok = false;
        }
        if (!ok) throw new UsageError(`--callback-url must be an absolute http(s) URL, got ${JSON.stringify(flags.callbackUrl)}`, 'e.g. --callback-url https://example.com/connected');
      }
      await withSession(ref, flags, env, async (client, id) => {
        const result = await client.link(id, { toolkit, ...(flags.callbackUrl !== undefined ? { callback_url: flags.callbackUrl } : {}) });
        if (flags.format === 'json') return printJson(env, result);
        const { renderLink } = await import('../../report/operate/link.js');
        env.io.stdout.write(renderLink(toolkit, result, renderContext(env)));
      });
    });
};
