import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { openState } from '../../src/index.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../helpers/postgres.js';
import { skipBecause } from '../helpers/skip.js';
import { applyWorld, KEY, normalise, type ApplyWorld } from './apply-helpers.js';

/*
 * Issue 24's guards, each through the CLI against a real emulator: the exit code, the exact words,
 * and that nothing was created, deleted or written (the emulator's counters, the state's bytes and
 * the folder's listing compared before and after).
 */

const manifests: Record<string, string> = Object.fromEntries(['a', 'b', 'c'].map((n) => [`m/${n}.yaml`, `name: ${n}\nuser_id: user-${n}\ntoolkits: [gmail]\n`]));
const STATE = join('.sessionctl', 'state.json');

let world: ApplyWorld | undefined;
let other: RunningEmulator | undefined;
afterEach(async () => {
  await world?.close();
  await other?.close();
  world = undefined;
  other = undefined;
});

interface Snapshot {
  files: string[];
  state: string | undefined;
  routes: Record<string, { handled: number }>;
}

async function snapshot(w: ApplyWorld): Promise<Snapshot> {
  const state = await readFile(join(w.dir, STATE), 'utf8').catch(() => undefined);
  const files = (await readdir(w.dir, { recursive: true })).map(String).sort();
  const { routes } = (await w.admin('GET', 'stats')) as { routes: Record<string, { handled: number }> };
  return { files, state, routes };
}

/** Only the reads that the guard itself needed may differ: creates, updates and deletes may not. */
function changes(before: Snapshot, after: Snapshot): { files: boolean; state: boolean; writes: Record<string, number> } {
  const writes: Record<string, number> = {};
  for (const route of ['create', 'update', 'delete']) {
    const n = (after.routes[route]?.handled ?? 0) - (before.routes[route]?.handled ?? 0);
    if (n !== 0) writes[route] = n;
  }
  return { files: JSON.stringify(before.files) !== JSON.stringify(after.files), state: before.state !== after.state, writes };
}

const NOTHING = { files: false, state: false, writes: {} };

async function applied(): Promise<ApplyWorld> {
  const w = await applyWorld(manifests);
  const first = await w.run(['apply', 'm']);
  expect(first.exitCode, first.stderr).toBe(0);
  return w;
}

describe('a state location that is not one', () => {
  const cases: Array<[string, string, string]> = [
    [
      'postgress://deploy@db.internal/ops?workspace=production',
      'error: the state location has the scheme "postgress:", which sessionctl does not read; it is neither a postgres:// URL nor a file path',
      'hint: did you mean postgres://? (a file path has no scheme; write ./NAME for a file whose name has a colon)',
    ],
    [
      'pg://deploy@db.internal/ops',
      'error: the state location has the scheme "pg:", which sessionctl does not read; it is neither a postgres:// URL nor a file path',
      'hint: did you mean postgres://? (a file path has no scheme; write ./NAME for a file whose name has a colon)',
    ],
    [
      'mysql://deploy:hunter2@db.internal/ops',
      'error: the state location has the scheme "mysql:", which sessionctl does not read; it is neither a postgres:// URL nor a file path',
      'hint: give a postgres:// URL, or a file path (./NAME for a file whose name has a colon)',
    ],
    ['postgres:/deploy@db.internal/ops', 'error: the state location starts with "postgres:" but not "postgres://"', 'hint: write it as postgres://USER@HOST:5432/DATABASE?workspace=NAME'],
    [
      ' postgres://deploy@db.internal/ops',
      'error: the state location has spaces or line breaks around it (from a quoted variable, or a file with a trailing newline)',
      'hint: remove them: sessionctl takes the location exactly as given',
    ],
    [
      'postgres://deploy@db.internal/ops\n',
      'error: the state location has spaces or line breaks around it (from a quoted variable, or a file with a trailing newline)',
      'hint: remove them: sessionctl takes the location exactly as given',
    ],
    ['state\u001b[2J.json', 'error: the state location holds a control character (a tab, a line break, an escape)', 'hint: write the path or URL without it'],
  ];

  for (const command of [['apply', 'm'], ['plan', 'm'], ['diff', 'm'], ['state', 'list']]) {
    test.each(cases)(`${command[0]} with SESSIONCTL_STATE=%j: exit 2, nothing created or written`, async (spec, error, hint) => {
      world ??= await applied();
      const before = await snapshot(world);
      const r = await world.run(command, { SESSIONCTL_STATE: spec });
      expect([r.exitCode, r.stderr, r.stdout]).toEqual([2, `${error}\n${hint}\n`, '']);
      expect(changes(before, await snapshot(world))).toEqual(NOTHING);
      // The password of a refused URL is never echoed.
      expect(r.stderr).not.toContain('hunter2');
    });
  }

  test('the project file\'s state is checked the same way, and never made into a folder', async () => {
    world = await applied();
    await world.write('sessionctl.yaml', 'state: " postgres://deploy@db.internal/ops"\n');
    const before = await snapshot(world);
    const r = await world.run(['apply', 'm']);
    expect([r.exitCode, r.stderr]).toEqual([2, 'error: the state location has spaces or line breaks around it (from a quoted variable, or a file with a trailing newline)\nhint: remove them: sessionctl takes the location exactly as given\n']);
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);
  });

  test('openState refuses it before anything is read', async () => {
    await expect(openState('postgress://deploy@db.internal/ops')).rejects.toThrow('the state location has the scheme "postgress:", which sessionctl does not read; it is neither a postgres:// URL nor a file path');
  });
});

describe('a state that is not there', () => {
  test.each([
    [['diff', 'm']],
    [['destroy', 'm', '--auto-approve']],
    [['state', 'list']],
    [['state', 'show', 'a']],
    [['state', 'rm', 'a']],
    [['state', 'pull']],
  ])('%j fails naming the state, and writes nothing', async (argv) => {
    world = await applied();
    const before = await snapshot(world);
    const r = await world.run(argv, { SESSIONCTL_STATE: 'missing/state.json' });
    expect([r.exitCode, normalise(r.stderr, world)]).toEqual([
      2,
      'error: <dir>/missing/state.json: no state file is there: nothing was ever applied with this state, or the path is mistyped (a pipeline must restore or share its state: see PostgreSQL in docs/state.md)\n',
    ]);
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);
  });

  test('openState fails on a missing state file instead of answering "no session"', async () => {
    world = await applied();
    await expect(openState('missing.json', { cwd: world.dir })).rejects.toThrow('no state file is there: nothing was ever applied with this state, or the path is mistyped');
    const found = await openState(STATE, { cwd: world.dir });
    expect((await found.lookup('a', 'user-a'))?.sessionId).toMatch(/^trs_/);
    await found.close();
  });

  test('plan and apply start one and say so in one line; --require-state and require_state refuse', async () => {
    world = await applyWorld(manifests);
    const plan = await world.run(['plan', 'm']);
    expect([plan.exitCode, normalise(plan.stderr, world)]).toEqual([0, 'note: new state at <dir>/.sessionctl/state.json (nothing is recorded there yet)\n']);

    const before = await snapshot(world);
    const required = await world.run(['apply', 'm', '--require-state']);
    expect([required.exitCode, normalise(required.stderr, world), required.stdout]).toEqual([
      2,
      'error: no state is at <dir>/.sessionctl/state.json, and this run requires one (--require-state): nothing was planned, sent or written\nhint: restore the state or fix --state / SESSIONCTL_STATE; leave out --require-state only for the very first apply\n',
      '',
    ]);
    await world.write('sessionctl.yaml', 'require_state: true\n');
    expect((await world.run(['plan', 'm'])).exitCode).toBe(2);
    expect(changes(before, await snapshot(world))).toEqual({ ...NOTHING, files: true });

    await rm(join(world.dir, 'sessionctl.yaml'));
    const apply = await world.run(['apply', 'm']);
    expect([apply.exitCode, normalise(apply.stderr, world).split('\n')[0]]).toEqual([0, 'note: new state at <dir>/.sessionctl/state.json (nothing is recorded there yet)']);
    const again = await world.run(['apply', 'm', '--require-state']);
    expect([again.exitCode, again.stderr.includes('note:'), again.stdout.includes('0 created, 3 unchanged')]).toEqual([0, false, true]);
  });

  test('in CI, a missing state file is a warning with the PostgreSQL recipe', async () => {
    world = await applyWorld(manifests);
    const r = await world.run(['plan', 'm'], { CI: 'true' });
    expect([r.exitCode, normalise(r.stderr, world)]).toEqual([
      0,
      'warning: CI is set and no state file is at <dir>/.sessionctl/state.json: every manifest is planned for create, and apply creates each session again even if an earlier pipeline applied it\n' +
        'hint: keep the state of a pipeline in PostgreSQL (SESSIONCTL_STATE=postgres://USER@HOST/DATABASE?workspace=production, the password in PGPASSWORD); --require-state makes this an error\n',
    ]);
  });
});

describe('a state bound to its service', () => {
  test('apply records the base URL and a fingerprint of the key, never the key', async () => {
    world = await applied();
    const text = await readFile(join(world.dir, STATE), 'utf8');
    const { binding } = JSON.parse(text) as { binding: { service: string; project: string; bound_at: string } };
    expect(binding.service).toBe(world.emulator.url);
    expect(binding.project).toMatch(/^hmac-sha256:[0-9a-f]{32}:[0-9a-f]{32}$/);
    expect(text).not.toContain(KEY);
  });

  test('another key: exit 2, both fingerprints named, nothing sent or written', async () => {
    world = await applied();
    const before = await snapshot(world);
    for (const argv of [['apply', 'm'], ['plan', 'm', '--refresh'], ['diff', 'm'], ['destroy', 'm', '--auto-approve'], ['import', 'a', 'trs_aaaaaaaaaaaa', 'm']]) {
      const r = await world.run(argv, { COMPOSIO_API_KEY: 'sk-staging-key-0002' });
      const [error, hint] = r.stderr.split('\n');
      expect([argv[0], r.exitCode, normalise(error!, world).replace(/(fingerprint |key: )[0-9a-f]{8}/g, '$1<fp>'), hint]).toEqual([
        argv[0],
        2,
        "error: the state <dir>/.sessionctl/state.json is bound to another API key (key fingerprint <fp>; this run's key: <fp>) at <emulator>: a key of another project finds none of the recorded sessions, and apply would create them all again; nothing was sent and nothing was written",
        "hint: use the key of the state's project; after a key rotation, run `sessionctl state rebind` with the new key (it reads every recorded session with it first)",
      ]);
    }
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);
    expect(before.routes['get']?.handled ?? 0).toBe((await snapshot(world)).routes['get']?.handled ?? 0);
  });

  test('another base URL: exit 2, both named, nothing sent to either service', async () => {
    world = await applied();
    other = await startEmulator({ port: 0 });
    const before = await snapshot(world);
    const r = await world.run(['apply', 'm'], { COMPOSIO_BASE_URL: 'https://staging.example.com' });
    expect([r.exitCode, normalise(r.stderr, world)]).toEqual([
      2,
      'error: the state <dir>/.sessionctl/state.json is bound to <emulator>, and this run is against https://staging.example.com; nothing was sent and nothing was written\n' +
        'hint: point --state at the state of this service; if these same sessions now answer at this URL, run `sessionctl state rebind` (it reads every recorded session there first)\n',
    ]);
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);
    // Another loopback port is the same local emulator restarted, not another service: it is not refused
    // by the binding, and every session missing there then stops the run instead.
    const local = await world.run(['apply', 'm'], { COMPOSIO_BASE_URL: other.url });
    expect(local.exitCode).toBe(2);
    expect(local.stderr).toContain('all 3 recorded sessions that were read answer 404 (not found)');
    expect(((await fetch(`${other.url}/_emulator/stats`).then((x) => x.json())) as { routes: { create?: { handled: number } } }).routes.create?.handled ?? 0).toBe(0);
  });

  test('--emulator never writes to a state bound to a service, and a state it makes is marked', async () => {
    world = await applied();
    const before = await snapshot(world);
    const r = await world.run(['apply', 'm', '--emulator']);
    expect([r.exitCode, normalise(r.stderr, world)]).toEqual([
      2,
      'error: the state <dir>/.sessionctl/state.json is bound to <emulator>, and this run is against the in-process emulator (--emulator); nothing was sent and nothing was written\n' +
        'hint: give the emulator a state of its own (such as --state /tmp/demo/state.json), or unset SESSIONCTL_STATE for emulator runs\n',
    ]);
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);

    const own = await world.run(['apply', 'm', '--emulator', '--state', 'emu/state.json']);
    expect(own.exitCode, own.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(world.dir, 'emu', 'state.json'), 'utf8')).binding).toEqual({ service: 'emulator', bound_at: expect.any(String) });
    const back = await world.run(['apply', 'm', '--state', 'emu/state.json']);
    expect([back.exitCode, back.stderr.split('\n')[0]]).toEqual([2, `error: the state ${join(world.dir, 'emu', 'state.json')} is bound to the in-process emulator (--emulator), and this run is against ${world.emulator.url}; nothing was sent and nothing was written`]);
  });
});

describe('recorded sessions that vanish en masse', () => {
  /** A state written before bindings existed, whose sessions the service no longer knows. */
  async function orphaned(): Promise<ApplyWorld> {
    const w = await applied();
    const state = JSON.parse(await readFile(join(w.dir, STATE), 'utf8')) as Record<string, unknown>;
    delete state['binding'];
    await writeFile(join(w.dir, STATE), JSON.stringify(state, null, 2) + '\n');
    return w;
  }

  test('all of them answering 404 stops apply and plan --refresh before any change', async () => {
    world = await orphaned();
    const before = await snapshot(world);
    for (const argv of [['apply', 'm'], ['plan', 'm', '--refresh']]) {
      const r = await world.run(argv, { COMPOSIO_API_KEY: 'sk-staging-key-0002' });
      expect([argv[0], r.exitCode, normalise(r.stderr, world), r.stdout]).toEqual([
        argv[0],
        2,
        'error: all 3 recorded sessions that were read answer 404 (not found) at <emulator>: no real deletion explains all of them, a key of another project or another base URL does; nothing was created, updated or deleted\n' +
          "hint: check COMPOSIO_API_KEY and --base-url (or the project's base_url); if these sessions really are gone, run again with --recreate-missing\n",
        '',
      ]);
    }
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);
  });

  test('--max-missing stops earlier; --recreate-missing goes on; one missing session is a warning', async () => {
    world = await applied();
    const state = JSON.parse(await readFile(join(world.dir, STATE), 'utf8')) as { sessions: Array<{ name: string; session_id: string }> };
    const gone = state.sessions.filter((s) => s.name !== 'c').map((s) => s.session_id);
    for (const id of gone) expect((await fetch(`${world.emulator.url}/api/v3.1/tool_router/session/${id}`, { method: 'DELETE', headers: { 'x-api-key': KEY } })).status).toBe(200);
    const before = await snapshot(world);
    const limited = await world.run(['apply', 'm', '--max-missing', '1']);
    expect([limited.exitCode, normalise(limited.stderr, world).split('\n')[0]]).toEqual([
      2,
      'error: 2 of the 3 recorded sessions that were read answer 404 (not found) at <emulator>: no real deletion explains that many, a key of another project or another base URL does; nothing was created, updated or deleted',
    ]);
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);
    // Two of three is not all of them: without a limit, they are plan items, each a warning.
    const plan = await world.run(['plan', 'm', '--refresh', '--format', 'json']);
    expect(plan.exitCode).toBe(0);
    expect(JSON.parse(plan.stdout).diagnostics.map((d: { code: string; severity: string }) => [d.code, d.severity])).toEqual([
      ['state/session-missing', 'warning'],
      ['state/session-missing', 'warning'],
    ]);
    const recreated = await world.run(['apply', 'm', '--max-missing', '1', '--recreate-missing']);
    expect(recreated.exitCode, recreated.stderr).toBe(0);
    expect(changes(before, await snapshot(world)).writes).toEqual({ create: 2 });
  });
});

describe('key rotation', () => {
  test('state rebind binds the new key once it reads every recorded session, and refuses a key that does not', async () => {
    world = await applyWorld(manifests, { projects: { acme: [KEY, 'sk-rotated-key-0003'] } });
    expect((await world.run(['apply', 'm'])).exitCode).toBe(0);
    const before = await snapshot(world);

    const stranger = await world.run(['state', 'rebind'], { COMPOSIO_API_KEY: 'sk-staging-key-0002' });
    expect([stranger.exitCode, normalise(stranger.stderr, world)]).toEqual([
      2,
      'error: 3 of 3 recorded sessions do not answer at <emulator> with this key, so the state <dir>/.sessionctl/state.json was not rebound: a (user user-a) trs_<id>: not found (404); b (user user-b) trs_<id>: not found (404); c (user user-c) trs_<id>: not found (404)\n' +
        'hint: rebind with the key and base URL of the project these sessions live in; a session really gone is forgotten with `sessionctl state rm` first\n',
    ]);
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);

    const rotated = { COMPOSIO_API_KEY: 'sk-rotated-key-0003' };
    expect((await world.run(['apply', 'm'], rotated)).exitCode).toBe(2);
    const rebind = await world.run(['state', 'rebind'], rotated);
    expect([rebind.exitCode, normalise(rebind.stdout, world)]).toEqual([0, 'Rebound <dir>/.sessionctl/state.json to <emulator> and this key (it was bound to <emulator> on <time>): 3 recorded sessions answered.\n']);
    const after = await world.run(['apply', 'm'], rotated);
    expect([after.exitCode, after.stdout.includes('0 created, 3 unchanged, 0 drifted, 0 failed')]).toEqual([0, true]);
    // The old key is refused now, as any other key is.
    expect((await world.run(['apply', 'm'])).exitCode).toBe(2);
    expect(changes(before, await snapshot(world)).writes).toEqual({});
  });
});

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('a PostgreSQL workspace that is not there', () => {
  const schema = uniqueSchema('guard');
  afterAll(async () => {
    if (db !== null) await dropSchema(db, schema);
  });

  test('beside others: plan and apply name them, --require-state refuses, openState and diff fail; the binding is a row', async () => {
    world = await applyWorld(manifests);
    const env = db!.env;
    const production = stateUrl(db!, schema, 'production');
    const first = await world.run(['apply', 'm', '--state', production], env);
    expect([first.exitCode, first.stderr.split('\n')[0]]).toEqual([0, `note: new state at ${production} (nothing is recorded there yet)`]);
    expect(await sql(db!, `SELECT workspace, service, project IS NOT NULL AS keyed FROM "${schema}".bindings`)).toEqual([{ workspace: 'production', service: world.emulator.url, keyed: true }]);

    const typo = stateUrl(db!, schema, 'Production');
    const before = await snapshot(world);
    const plan = await world.run(['plan', 'm', '--state', typo], env);
    expect([plan.exitCode, plan.stderr]).toEqual([0, `note: new workspace at ${typo}, beside the workspaces that exist: production (nothing is recorded there yet)\n`]);
    const refused = await world.run(['apply', 'm', '--state', typo, '--require-state'], env);
    expect([refused.exitCode, refused.stderr]).toEqual([
      2,
      `error: no state is at ${typo} (the workspaces that exist: production), and this run requires one (--require-state): nothing was planned, sent or written\nhint: workspace names are case-sensitive: fix the workspace in --state / SESSIONCTL_STATE\n`,
    ]);
    const diff = await world.run(['diff', 'm', '--state', typo], env);
    expect([diff.exitCode, diff.stderr]).toEqual([2, `error: ${typo}: no state is in this database for that schema and workspace: nothing was ever applied there, or the URL is mistyped; the workspaces that exist: production\n`]);
    await expect(openState(typo, { env })).rejects.toThrow('no state is in this database for that schema and workspace: nothing was ever applied there, or the URL is mistyped; the workspaces that exist: production');
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);
    expect(await sql(db!, `SELECT DISTINCT workspace FROM "${schema}".entries`)).toEqual([{ workspace: 'production' }]);

    // Bound to the key that applied it: another key is refused before any request.
    const other = await world.run(['apply', 'm', '--state', production], { ...env, COMPOSIO_API_KEY: 'sk-staging-key-0002' });
    expect([other.exitCode, other.stderr.split('\n')[0]?.replace(/(fingerprint |key: )[0-9a-f]{8}/g, '$1<fp>')]).toEqual([
      2,
      `error: the state ${production} is bound to another API key (key fingerprint <fp>; this run's key: <fp>) at ${world.emulator.url}: a key of another project finds none of the recorded sessions, and apply would create them all again; nothing was sent and nothing was written`,
    ]);
    expect(changes(before, await snapshot(world))).toEqual(NOTHING);
  });
});
