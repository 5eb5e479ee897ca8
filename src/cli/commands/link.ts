import { resolveApiKey } from '../../client/api-key.js';
import { isLoopbackHost } from '../../client/base-url.js';
import { UsageError } from '../../diagnostics/errors.js';
import type { RegisterCommand } from '../command.js';
import { addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type OperateFlags } from '../operate-options.js';

interface LinkFlags extends OperateFlags {
  callbackUrl?: string;
  approve?: boolean;
}

/**
 * `--approve`: completes the link on the emulator through its admin surface, as a user finishing
 * the connect page would, so execute and proxy work offline at once. Only an emulator has that
 * surface, so only `--emulator` or a loopback base URL (a running `sessionctl emulator`) allow it.
 * The run's key goes with it: an emulator with `--api-key` keys approves a key's own accounts alone.
 */
async function approve(baseUrl: string, accountId: string, key: string | undefined): Promise<void> {
  const { request } = await import('undici');
  const { ApiError } = await import('../../client/errors.js');
  const path = `/_emulator/connections/${encodeURIComponent(accountId)}/approve`;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(key === undefined ? {} : { 'x-api-key': key }) };
  const res = await request(`${baseUrl}${path}`, { method: 'POST', headers, body: '{}' }).catch((err: unknown) => {
    throw new ApiError(`cannot reach the emulator to approve the link: ${(err as { code?: string }).code ?? 'error'}`, { kind: 'network', method: 'POST', path, cause: err });
  });
  await res.body.dump();
  if (res.statusCode !== 200) {
    throw new ApiError(`the emulator refused to approve the link (HTTP ${res.statusCode}); is ${new URL(baseUrl).origin} a sessionctl emulator?`, { kind: 'http', method: 'POST', path, status: res.statusCode });
  }
}

/** `sessionctl link SESSION TOOLKIT`: start a connection flow for the session's user (POST .../link). */
export const registerLink: RegisterCommand = (program, env) => {
  const cmd = program
    .command('link')
    .description('Start connecting a toolkit for the session\'s user: prints the URL the user opens to authorise it.')
    .argument('<session>', SESSION_ARG_HELP)
    .argument('<toolkit>', 'the toolkit slug, e.g. github')
    .option('--callback-url <url>', 'where the user lands after authorising (http or https)')
    .option('--approve', 'emulator only: complete the link at once, without a browser, so the toolkit is connected');
  addOperateOptions(cmd)
    .addHelpText('after', sessionHelp(['sessionctl link support-agent github', 'sessionctl link trs_1a2b3c4d5e6f gmail --callback-url https://example.com/connected', 'sessionctl link support-agent github --emulator --approve']))
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
      if (flags.approve === true && flags.emulator !== true && !isLoopbackBase(flags.baseUrl ?? env.io.env['COMPOSIO_BASE_URL'])) {
        throw new UsageError('--approve completes a link only on an emulator', 'add --emulator, or point --base-url at a running `sessionctl emulator` on loopback');
      }
      await withSession(ref, flags, env, async (client, id) => {
        const result = await client.link(id, { toolkit, ...(flags.callbackUrl !== undefined ? { callback_url: flags.callbackUrl } : {}) });
        if (flags.approve === true) {
          // The in-process emulator of --emulator has no keys; a running one may (the key was resolved, and masked, to connect).
          const key = flags.emulator === true ? undefined : (await resolveApiKey({ env: env.io.env, apiKeyFile: flags.apiKeyFile, cwd: env.io.cwd })).key;
          await approve(client.baseUrl, result.connected_account_id, key);
          env.io.stderr.write(`approved on the emulator: ${toolkit} is connected (${result.connected_account_id})\n`);
        }
        if (flags.format === 'json') return printJson(env, result);
        const { renderLink } = await import('../../report/operate/link.js');
        env.io.stdout.write(renderLink(toolkit, result, renderContext(env)));
      });
    });
};

function isLoopbackBase(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  try {
    return isLoopbackHost(new URL(raw).hostname);
  } catch {
    return false;
  }
}
