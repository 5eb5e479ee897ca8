import { UsageError } from '../../diagnostics/errors.js';
import type { RegisterCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type OperateFlags } from '../operate-options.js';

interface SearchFlags extends OperateFlags {
  knownFields?: string;
  model?: string;
}

/** The service takes 1..7 queries per search (api facts §2.9). */
const MAX_QUERIES = 7;

/** `sessionctl search SESSION USE_CASE...`: which tools fit a task (POST .../search). */
export const registerSearch: RegisterCommand = (program, env) => {
  const cmd = program
    .command('search')
    .description('Find the tools for one or more tasks, with a plan and the connection status of their toolkits.')
    .argument('<session>', SESSION_ARG_HELP)
    .argument('<use-case...>', `what the agent wants to do, in words (1 to ${MAX_QUERIES}; quote each one)`)
    .option('--known-fields <k:v,...>', 'facts the search may use for every use case, e.g. channel:general,user:alice')
    .option('--model <name>', 'a model name the search may tailor its plan to (a hint)');
  addOperateOptions(cmd)
    .addHelpText(
      'after',
      sessionHelp(
        ['sessionctl search support-agent "star a github repository"', 'sessionctl search trs_1a2b3c4d5e6f "send an email" "post to a slack channel" --known-fields channel:general'],
        ['Exit code 1 when the service reports that the search, or one of its use cases, failed (an "error" in its answer).'],
      ),
    )
    .action(async (ref: string, useCases: string[], flags: SearchFlags) => {
      if (useCases.length > MAX_QUERIES) {
        throw new UsageError(`at most ${MAX_QUERIES} use cases per search, got ${useCases.length}`, 'split them over several searches');
      }
      const empty = useCases.findIndex((u) => u.trim() === '');
      if (empty !== -1) throw new UsageError(`use case #${empty + 1} is empty`, 'describe the task in words, e.g. "send an email"');
      const { parseKnownFields } = await import('../../runner/tool-arguments.js');
      const known = flags.knownFields !== undefined ? parseKnownFields(flags.knownFields) : undefined;
      await withSession(ref, flags, env, async (client, id) => {
        const result = await client.search(id, {
          queries: useCases.map((use_case) => (known !== undefined ? { use_case, known_fields: known } : { use_case })),
          ...(flags.model !== undefined ? { model: flags.model } : {}),
        });
        if (flags.format === 'json') printJson(env, result);
        else {
          const { renderSearch } = await import('../../report/operate/search.js');
          env.io.stdout.write(renderSearch(result, renderContext(env), ref));
        }
        // A 200 with `error` is a failure at the search's own level, like a tool's: some or all
        // use cases found nothing. The results that did come are still printed.
        if (result.success === false || (typeof result.error === 'string' && result.error !== '')) {
          env.io.stderr.write(`error: ${result.success === false ? 'the search failed' : 'part of the search failed'}${typeof result.error === 'string' ? `: ${result.error}` : ''}\n`);
          env.setExitCode(ExitCode.findings);
        }
      });
    });
};
