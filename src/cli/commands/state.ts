import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { InputError, UsageError } from '../../diagnostics/errors.js';
import type { CommandEnv, RegisterCommand } from '../command.js';
import { ExitCode } from '../exit-codes.js';
import { printJson, renderContext } from '../operate-options.js';
import { processLock } from '../process-lock.js';
import { addLockTimeoutOption, STATE_OPTION_HELP, stateOf } from '../run-options.js';
import { guardRun, runIdentity } from '../state-guard.js';
import { addConnectionOptions, type ConnectionOptions } from '../connection.js';
import { connector } from '../open-connection.js';
import { integerOption } from '../integer-option.js';
import type { StateBackend } from '../../state/backend.js';

interface StateFlags {
  state?: string;
  format: 'human' | 'json';
  lockTimeout?: number;
  userId?: string;
}

interface PushFlags extends StateFlags {
  force?: boolean;
  dryRun?: boolean;
}

/** --state, --format, and for commands that write, --lock-timeout. */
function stateOptions(cmd: Command, writes: boolean): Command {
  cmd.option('--state <path|url>', STATE_OPTION_HELP).addOption(new Option('--format <format>', 'human: text and tables; json: a document').choices(['human', 'json']).default('human'));
  return writes ? addLockTimeoutOption(cmd) : cmd;
}

function examples(lines: readonly string[], extra: readonly string[] = []): string {
  return ['', 'Examples:', ...lines.map((l) => `  ${l}`), ...(extra.length > 0 ? ['', ...extra] : [])].join('\n');
}

const USER_ID_HELP = 'only the entry of this user (a manifest applied for several users has one entry each)';

async function readDocument(file: string, env: CommandEnv): Promise<{ text: string; source: string }> {
  if (file === '-') {
    const { readStreamBounded } = await import('../../manifest/load.js');
    return { text: (await readStreamBounded(env.io.stdin)).toString('utf8'), source: '<stdin>' };
  }
  const path = resolve(env.io.cwd, file);
  try {
    return { text: await readFile(path, 'utf8'), source: path };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(`cannot read the state document: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : (code ?? (err as Error).message)}`, file, { cause: err });
  }
}

/**
 * `sessionctl state list|show|rm|mv|pull|push|unlock` (terraform's `state` subcommands): inspect
 * and repair the state, file or PostgreSQL, and move it between backends (pull from one, push
 * into the other). Nothing here talks to the service: `rm` forgets without deleting.
 */
export const registerState: RegisterCommand = (program, env) => {
  const state = program
    .command('state')
    .description('Inspect and manage the state (file or PostgreSQL): list, show, rm, mv, pull, push, unlock.')
    .addHelpText(
      'after',
      examples(
        [
          'sessionctl state list',
          'sessionctl state show support-agent --user-id alice',
          'sessionctl state pull > state.json && sessionctl state push state.json --state "postgres://deploy@db.internal/ops?workspace=production"',
        ],
        ['The state is --state, else $SESSIONCTL_STATE, else .sessionctl/state.json. Only rebind talks to the service.'],
      ),
    );
  // In the order help lists them.
  addInspect(state, env);
  addRepair(state, env);
  addTransfer(state, env);
  addUnlock(state, env);
};

const ops = () => import('../../state/operations.js');

/** The state a command reads or repairs: it must be there (a mistyped location is not an empty state). */
async function existingState(flags: StateFlags, env: CommandEnv): Promise<StateBackend> {
  const backend = stateOf(flags, env);
  await guardRun(backend, env, { use: 'read' });
  return backend;
}
const render = () => import('../../report/state.js');

/** `--user`, the name people type for `--user-id`: one of the two, or both with the same id. */
function withUserAlias<T extends StateFlags & { user?: string }>(flags: T): T {
  if (flags.user === undefined) return flags;
  if (flags.userId !== undefined && flags.userId !== flags.user) throw new UsageError(`--user ${flags.user} and --user-id ${flags.userId} name two users`, 'give one of them (--user is the same as --user-id)');
  return { ...flags, userId: flags.user };
}

/** list, show: read, no lock. */
function addInspect(state: Command, env: CommandEnv): void {
  stateOptions(
    state
      .command('list')
      .description('List the recorded sessions (manifest name, user, session id, config version, when applied), and the per-user manifests with their session counts.')
      .option('--name <name>', 'only this manifest; for a per-user manifest, a page of its end users\' sessions')
      .option('--user-id <id>', 'only the sessions of this user (a per-user manifest\'s too)')
      .option('--user <id>', 'the same as --user-id')
      .addOption(new Option('--limit <n>', 'end users\' sessions per page').argParser(integerOption(1, 10_000, 'a whole number from 1 to 10000')).default(50))
      .option('--after <user>', 'the page after this user (what the last page printed)'),
    false,
  )
    .addHelpText(
      'after',
      examples(['sessionctl state list', 'sessionctl state list --name support-agent --limit 100', 'sessionctl state list --user alice@example.com', "sessionctl state list --format json | jq -r '.sessions[].session_id'"], [
        'A per-user manifest is counted, never listed whole: --name pages through its users (--after), reading one page at a time.',
      ]),
    )
    .action(async (given: StateFlags & { name?: string; user?: string; limit: number; after?: string }) => {
      const flags = withUserAlias(given);
      const backend = await existingState(flags, env);
      const view = await backend.load();
      const entries = view.list().filter((e) => (flags.name === undefined || e.name === flags.name) && (flags.userId === undefined || e.user_id === flags.userId));
      const published = [...(view.published?.values() ?? [])].filter((p) => flags.name === undefined || p.name === flags.name).map((publication) => ({ publication, count: view.fleet?.get(publication.name) }));
      const paged = flags.userId !== undefined || (flags.name !== undefined && published.length > 0);
      const after = flags.after !== undefined && flags.name !== undefined ? { name: flags.name, userId: flags.after } : undefined;
      const rows = paged ? await backend.fleetPage({ ...(flags.name !== undefined ? { name: flags.name } : {}), ...(flags.userId !== undefined ? { userId: flags.userId } : {}), ...(after ? { after } : {}), limit: flags.limit }) : [];
      const last = rows.length === flags.limit ? rows[rows.length - 1] : undefined;
      const listing = { published, ...(paged ? { page: { rows, ...(flags.name !== undefined ? { name: flags.name } : {}), ...(last !== undefined && flags.name !== undefined ? { next: last.user_id } : {}) } } : {}) };
      const r = await render();
      const fleet = await import('../../report/state-fleet.js');
      if (flags.format === 'json') return printJson(env, { ...(r.stateListJson(entries, backend.location) as object), ...(fleet.fleetListingJson(listing) as object) });
      // A state of per-user manifests alone records no fixed user's session: not "no sessions".
      const fixed = entries.length === 0 && published.length > 0 ? `No session of a fixed user is recorded in ${backend.location}; per-user manifests:\n` : r.renderStateList(entries, backend.location, renderContext(env));
      env.io.stdout.write(fixed + fleet.renderFleetListing(listing, renderContext(env)));
    });

  stateOptions(state.command('show').description('Show every field of one entry, the applied request body included.').argument('<name>', 'the manifest name').option('--user-id <id>', USER_ID_HELP), false)
    .addHelpText('after', examples(['sessionctl state show support-agent', 'sessionctl state show triage --user-id bob --format json']))
    .action(async (name: string, flags: StateFlags) => {
      const backend = await existingState(flags, env);
      const entry = (await ops()).pickEntry((await backend.load()).list(), name, flags.userId, backend.location);
      if (flags.format === 'json') return printJson(env, entry);
      env.io.stdout.write((await render()).renderStateEntry(entry, renderContext(env)));
    });

}

/** rm, mv: under the lock. */
function addRepair(state: Command, env: CommandEnv): void {
  stateOptions(
    state.command('rm').description('Forget entries without deleting their sessions (the next apply creates new ones). Every user of NAME unless --user-id.').argument('<name>', 'the manifest name').option('--user-id <id>', USER_ID_HELP),
    true,
  )
    .addHelpText('after', examples(['sessionctl state rm old-agent', 'sessionctl state rm triage --user-id bob'], ['The sessions stay on the service: delete them there (or with destroy before rm) if they must go.']))
    .action(async (name: string, flags: StateFlags) => {
      const backend = await existingState(flags, env);
      const removed = await (await ops()).removeEntries(backend, processLock(env.io.stderr), name, flags.userId);
      const r = await render();
      if (flags.format === 'json') return printJson(env, r.removedJson(removed, backend.location));
      env.io.stdout.write(r.renderRemoved(removed, backend.location));
    });

  stateOptions(
    state.command('mv').description('Rename a manifest in the state (after renaming `name:` in the manifest), so apply keeps its sessions.').argument('<old>', 'the recorded manifest name').argument('<new>', 'the new manifest name').option('--user-id <id>', 'only the entry of this user (default: every user of OLD)'),
    true,
  )
    .addHelpText('after', examples(['sessionctl state mv support support-agent']))
    .action(async (from: string, to: string, flags: StateFlags) => {
      const backend = await existingState(flags, env);
      const moved = await (await ops()).moveEntries(backend, processLock(env.io.stderr), from, to, flags.userId);
      const r = await render();
      if (flags.format === 'json') return printJson(env, r.movedJson(from, moved, backend.location));
      env.io.stdout.write(r.renderMoved(from, moved, backend.location));
    });

}

/** pull, push (under the lock), rebind. */
function addTransfer(state: Command, env: CommandEnv): void {
  stateOptions(state.command('pull').description('Print the whole state as a JSON document (the state file format) on stdout.'), false)
    .addHelpText('after', examples(['sessionctl state pull > backup.json', 'sessionctl state pull --state "postgres://deploy@db.internal/ops?workspace=staging" | jq .sessions']))
    .action(async (flags: StateFlags) => {
      printJson(env, await (await ops()).pullState(await existingState(flags, env)));
    });

  stateOptions(
    state
      .command('push')
      .description('Merge a state document (from state pull, or a state file) into the state. An entry the state holds in a newer version refuses the push unless --force; entries only the state holds are kept.')
      .argument('<file>', 'the document, or - for standard input')
      .option('--force', 'overwrite entries the state holds in a newer version')
      .option('--dry-run', 'show what would change; write nothing'),
    true,
  )
    .addHelpText(
      'after',
      examples(
        [
          'sessionctl state push .sessionctl/state.json --state "postgres://deploy@db.internal/ops?workspace=production"',
          'sessionctl state pull --state old.json | sessionctl state push - --state "$SESSIONCTL_STATE" --dry-run',
        ],
        ['Newer: the same session with a higher config_version, else a later applied_at. Exit 1 when refused.'],
      ),
    )
    .action(async (file: string, flags: PushFlags) => {
      const backend = stateOf(flags, env);
      const { text, source } = await readDocument(file, env);
      const { parseStateDocument } = await import('../../state/entry.js');
      const { entries: incoming, binding, published } = parseStateDocument(text, source, { pushed: true });
      // A state file pushed into PostgreSQL is a migration: the report then says the file can go.
      const migratedFrom = file !== '-' && backend.kind !== 'file' ? file : undefined;
      const options = { dryRun: flags.dryRun === true, force: flags.force === true, ...(migratedFrom !== undefined ? { migratedFrom } : {}) };
      await guardRun(backend, env, { use: 'start' });
      const result = await (await ops()).pushState(backend, processLock(env.io.stderr), incoming, { source, ...options, ...(binding !== undefined ? { binding } : {}), published });
      const r = await render();
      if (flags.format === 'json') printJson(env, r.pushJson(result, backend.location, options));
      else env.io.stdout.write(r.renderPush(result, backend.location, options));
      if (!options.force && result.changes.some((c) => c.action === 'conflict')) env.setExitCode(ExitCode.findings);
    });

  const rebind = state
    .command('rebind')
    .description('Bind the state to this run\'s service and API key (after a key rotation, or the same service behind another URL), once every recorded session answers there with it.')
    .option('--emulator', 'bind it to the in-process emulator (a state made for tests)');
  stateOptions(rebind, true);
  addConnectionOptions(rebind)
    .addHelpText(
      'after',
      examples(['COMPOSIO_API_KEY=$NEW_KEY sessionctl state rebind --state "$SESSIONCTL_STATE"'], [
        'Each recorded session is read (GET) with the new key first; if one does not answer, nothing is changed.',
        'The only state command that talks to the service. Exit codes: 0 rebound, 2 refused, 3 the service failed, 5 the state failed.',
      ]),
    )
    .action(async (flags: StateFlags & ConnectionOptions & { emulator?: boolean }) => {
      const backend = await existingState(flags, env);
      const service = await runIdentity(flags, env);
      const { runRebind } = await import('../../runner/run-rebind.js');
      const result = await runRebind({ state: backend, connect: connector(flags, env, backend), service, lock: processLock(env.io.stderr) });
      const { describeService } = await import('../../state/binding.js');
      if (flags.format === 'json') return printJson(env, { state: result.location, checked: result.checked, ...(result.previous !== undefined ? { previous: result.previous } : {}), binding: result.binding });
      const was = result.previous !== undefined ? ` (it was bound to ${describeService(result.previous.service)} on ${result.previous.bound_at})` : '';
      env.io.stdout.write(`Rebound ${result.location} to ${describeService(result.binding.service)}${result.binding.project !== undefined ? ' and this key' : ''}${was}: ${result.checked} recorded session${result.checked === 1 ? '' : 's'} answered.\n`);
    });

}

/** unlock: no lock of its own (it releases one). */
function addUnlock(state: Command, env: CommandEnv): void {
  stateOptions(state.command('unlock').description('Release the state lock of a run that died (as terraform force-unlock). LOCK_ID is in the lock error.').argument('<lock-id>', 'the id of the lock to release'), false)
    .addHelpText(
      'after',
      examples(['sessionctl state unlock 3f2c7a9e-0b1d-4c55-9a43-6f1e2d8b7c10'], [
        'Only for a holder that died: a live run whose lock is released can no longer write its state.',
        'PostgreSQL releases the lock of a run whose connection ended by itself; unlock is for a holder whose host vanished.',
      ]),
    )
    .action(async (lockId: string, flags: StateFlags) => {
      const backend = stateOf(flags, env);
      const released = await backend.forceUnlock(lockId);
      const r = await render();
      if (flags.format === 'json') return printJson(env, r.unlockedJson(released, backend.location));
      env.io.stdout.write(r.renderUnlocked(released, backend.location));
    });
}
