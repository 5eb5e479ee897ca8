import { InvalidArgumentError, Option } from 'commander';
import type { ProxyExecuteRequest } from '../../wire/operations.js';
import type { RegisterCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type OperateFlags } from '../operate-options.js';

interface ProxyFlags extends OperateFlags {
  toolkit: string;
  method: ProxyExecuteRequest['method'];
  endpoint: string;
  body?: string;
  param?: string[];
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'] as const;

function parseMethod(value: string): ProxyExecuteRequest['method'] {
  const upper = value.toUpperCase();
  if (!(METHODS as readonly string[]).includes(upper)) throw new InvalidArgumentError(`expected one of ${METHODS.join(', ')}`);
  return upper as ProxyExecuteRequest['method'];
}

/**
 * `sessionctl proxy SESSION`: call the toolkit's own API with the session's connected account
 * (POST .../proxy_execute).
 */
export const registerProxy: RegisterCommand = (program, env) => {
  const cmd = program
    .command('proxy')
    .description("Call a toolkit's own API through the session's connected account, and print the upstream answer.")
    .argument('<session>', SESSION_ARG_HELP)
    .requiredOption('--toolkit <slug>', 'the toolkit whose connection signs the request, e.g. github')
    .addOption(new Option('--method <method>', `the HTTP method (${METHODS.join(', ')})`).argParser(parseMethod).makeOptionMandatory())
    .requiredOption('--endpoint <path>', "a path relative to the toolkit's API base (or an absolute URL), e.g. /user/repos")
    .option('--body <file|->', 'a JSON request body, from a file or - for standard input')
    .option('--param <type:name=value>', 'a header or query parameter: header:Accept=application/json, query:per_page=5 (repeatable)', (v: string, prev: string[] = []) => [
      ...prev,
      v,
    ]);
  addOperateOptions(cmd)
    .addHelpText(
      'after',
      sessionHelp(
        [
          'sessionctl proxy support-agent --toolkit github --method GET --endpoint /user/repos --param query:per_page=5',
          'sessionctl proxy trs_1a2b3c4d5e6f --toolkit github --method POST --endpoint /user/repos --body repo.json',
        ],
        ['Exit code 1 when the upstream API answers with a status of 400 or more.'],
      ),
    )
    .action(async (ref: string, flags: ProxyFlags) => {
      const { parseProxyParam, readJsonInput } = await import('../../runner/tool-arguments.js');
      const parameters = (flags.param ?? []).map((p, i) => parseProxyParam(p, i));
      const body = flags.body !== undefined ? (await readJsonInput(flags.body, env.io, '--body')).value : undefined;
      await withSession(ref, flags, env, async (client, id) => {
        const result = await client.proxyExecute(id, {
          toolkit_slug: flags.toolkit,
          method: flags.method,
          endpoint: flags.endpoint,
          ...(body !== undefined ? { body } : {}),
          ...(parameters.length > 0 ? { parameters } : {}),
        });
        if (flags.format === 'json') printJson(env, result);
        else {
          const { renderProxy } = await import('../../report/operate/proxy.js');
          env.io.stdout.write(renderProxy(result, renderContext(env)));
        }
        if (typeof result.status === 'number' && result.status >= 400) {
          env.io.stderr.write(`error: the ${flags.toolkit} API answered HTTP ${result.status}\n`);
          env.setExitCode(ExitCode.findings);
        }
      });
    });
};
