import type { RegisterCommand } from '../command.js';
import { exportSession } from '../export-session.js';
import { registerDeclared, sensitiveOption, type SensitiveFlags } from '../sensitive-options.js';
import { addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type OperateFlags } from '../operate-options.js';

/** `sessionctl get SESSION`: the session as the service holds it (GET /session/{id}). */
export const registerGet: RegisterCommand = (program, env) => {
  const cmd = program
    .command('get')
    .description('Show a session: its user, MCP URL, meta tools and effective config (GET).')
    .argument('<session>', SESSION_ARG_HELP)
    .addOption(sensitiveOption());
  addOperateOptions(cmd, { yaml: 'the manifest that declares the session (as `sessionctl export`)' })
    .addHelpText('after', sessionHelp(['sessionctl get support-agent', 'sessionctl get trs_1a2b3c4d5e6f --format json | jq .config', 'sessionctl get support-agent --format yaml > support-agent.yaml']))
    .action(async (ref: string, flags: OperateFlags & SensitiveFlags) => {
      const { io } = env;
      registerDeclared(flags, env);
      const { maskRecordedSession, registerRecordedSensitive } = await import('../../runner/mask-session.js');
      await withSession(ref, flags, env, async (client, id, resolved) => {
        if (flags.format === 'yaml') return exportSession(client, id, resolved, {}, env);
        registerRecordedSensitive(resolved.entry, env.masker, io.env);
        // The fields apply recorded as sensitive are masked whole; every known sensitive value anywhere.
        const session = maskRecordedSession(await client.getSession(id), resolved.entry, env.masker);
        if (flags.format === 'json') return printJson(env, session);
        const { renderSession } = await import('../../report/operate/session.js');
        env.io.stdout.write(renderSession(session, renderContext(env)));
      });
    });
};
