import { integerOption } from '../integer-option.js';
import { UsageError } from '../../diagnostics/errors.js';
import type { StateEntry } from '../../state/entry.js';
import type { ConfigHistory, ConfigVersion } from '../../wire/session.js';
import type { RegisterCommand } from '../command.js';
import { registerDeclared, sensitiveOption, type SensitiveFlags } from '../sensitive-options.js';
import { addListOptions, addOperateOptions, printJson, renderContext, SESSION_ARG_HELP, sessionHelp, withSession, type ListFlags } from '../operate-options.js';

interface HistoryFlags extends ListFlags, SensitiveFlags {
  diff?: [number, number];
}

/** config_history pages: the service's maximum page size (api facts §7). */
const MAX_PAGE = 100;

const parseVersion = integerOption(1, Number.MAX_SAFE_INTEGER, 'a config version, a whole number from 1');

function parseVersions(value: string, previous: number[] | undefined): number[] {
  return [...(previous ?? []), parseVersion(value)];
}

/**
 * `sessionctl history SESSION`: the session's config versions, newest first (GET .../config_history,
 * a v3.1 route whichever --api-version is chosen); `--diff V1 V2` shows what changed between two.
 */
export const registerHistory: RegisterCommand = (program, env) => {
  const cmd = program
    .command('history')
    .description('List the config versions of a session, newest first; --diff V1 V2 shows what changed between two.')
    .argument('<session>', SESSION_ARG_HELP)
    .option('--diff <version...>', 'a unified diff of the config of two versions (give two numbers)', parseVersions)
    .addOption(sensitiveOption());
  addListOptions(addOperateOptions(cmd))
    .addHelpText(
      'after',
      sessionHelp(
        ['sessionctl history support-agent', 'sessionctl history support-agent --diff 1 3', 'sessionctl history trs_1a2b3c4d5e6f --all --format json'],
        ['Every version is kept by the service; the one in effect is marked current.'],
      ),
    )
    .action(async (ref: string, flags: HistoryFlags) => {
      const { pageSelection, collectPages, cursorOf } = await import('../../runner/paginate.js');
      if (flags.diff !== undefined && flags.diff.length !== 2) throw new UsageError(`--diff takes two versions, got ${flags.diff.length}`, 'e.g. --diff 1 2');
      const versions = flags.diff;
      // A diff needs the two versions wherever they are in the history, so it reads every page.
      const selection = versions !== undefined ? { all: true } : pageSelection(flags.all, flags.limit);
      const { maskRecordedConfig, registerRecordedSensitive } = await import('../../runner/mask-session.js');
      registerDeclared(flags, env);
      await withSession(ref, flags, env, async (client, id, resolved) => {
        registerRecordedSensitive(resolved.entry, env.masker, env.io.env);
        const got = await collectPages<ConfigHistory>(
          (cursor, limit) => client.configHistory(id, { ...(cursor !== undefined ? { cursor } : {}), ...(limit !== undefined && cursor === undefined ? { limit } : {}) }),
          cursorOf,
          selection,
          MAX_PAGE,
        );
        if (versions !== undefined) return showDiff(got.items, versions[0]!, versions[1]!, resolved.entry, flags.format === 'json');
        // Every version holds the values its config was given: the fields apply recorded as sensitive are masked whole.
        const items = got.items.map((item) => ({ ...env.masker.json(item), config: maskRecordedConfig(item.config, resolved.entry, env.masker) }));
        if (flags.format === 'json') return printJson(env, { ...env.masker.json(got.response), items });
        const { renderHistory } = await import('../../report/operate/history.js');
        env.io.stdout.write(renderHistory(items, typeof got.response.total_items === 'number' ? got.response.total_items : undefined, got.more, renderContext(env)));
      });
    });

  /** The versions as the service holds them: the diff compares sensitive fields by digest and masks what it shows. */
  async function showDiff(items: readonly ConfigVersion[], v1: number, v2: number, entry: StateEntry | undefined, json: boolean): Promise<void> {
    const find = (v: number): ConfigVersion => {
      const found = items.find((i) => i.version === v);
      if (found === undefined) throw new UsageError(`the session has no config version ${v}`, `its versions: ${items.map((i) => i.version).join(', ') || 'none'}`);
      return found;
    };
    const [a, b] = [find(v1), find(v2)];
    const [{ versionsDiff }, { renderVersionsDiff }] = await Promise.all([import('../../runner/versions-diff.js'), import('../../report/operate/history.js')]);
    const diff = versionsDiff(a, b, entry, env.masker);
    if (json) return printJson(env, { from: diff.from, to: diff.to, changes: diff.changes });
    env.io.stdout.write(renderVersionsDiff(diff, renderContext(env).style));
  }
};
