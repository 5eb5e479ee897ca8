import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ApiError } from '../../../src/client/errors.js';
import { InputError, UsageError } from '../../../src/diagnostics/errors.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { InvalidUserIdError, MissingVariableError, NotPublishedError, OutcomeUnknownError } from '../../../src/fleet/errors.js';
import { openSessions, type Sessions } from '../../../src/library/open-sessions.js';
import { stateBackend } from '../../../src/state/backend.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { emulatorAdmin } from '../../helpers/emulator-admin.js';
import { runCli } from '../../helpers/run-cli.js';
import { skipBecause } from '../../helpers/skip.js';
import { removeAllTempDirs, tempDir } from '../../helpers/temp-dir.js';

const KEY = 'key-of-project-a';
const MANIFEST = `name: support-agent
user_id: <end-user>
toolkits: [gmail, github]
tools:
  github: { disable: [GITHUB_DELETE_A_REPOSITORY] }
manage_connections: { enable: true, callback_url: "https://hooks.example.com/cb?token=\${HOOK_TOKEN}" }
`;

interface Backend {
  name: string;
  /** A state location for one test; `cleanup` removes what it made. */
  make(dir: string): { url: string; env: Record<string, string | undefined>; cleanup(): Promise<void> };
}

const backends: Backend[] = [
  { name: 'file', make: (dir) => ({ url: join(dir, 'state.json'), env: {}, cleanup: async () => undefined }) },
  ...(db === null
    ? []
    : [
        {
          name: 'postgres',
          make: () => {
            const schema = uniqueSchema('fleet');
            return { url: stateUrl(db!, schema), env: { ...db!.env }, cleanup: () => dropSchema(db!, schema) };
          },
        },
      ]),
];

afterAll(() => removeAllTempDirs());

describe.each(backends)('ensure on the $name state', (backend) => {
  let emulator: RunningEmulator;
  let dir: string;
  let state: ReturnType<Backend['make']>;
  let sessions: Sessions | undefined;

  const apply = async (manifest = MANIFEST, token = 'hook-secret-1') => {
    writeFileSync(join(dir, 'support.yaml'), manifest);
    const r = await runCli(['apply', 'support.yaml', '--base-url', emulator.url, '--state', state.url], { cwd: dir, env: { ...state.env, COMPOSIO_API_KEY: KEY, HOOK_TOKEN: token } });
    expect(r.exitCode, r.stderr + r.stdout).toBe(0);
    return r;
  };
  const open = async (options: { apiKey?: string; env?: Record<string, string | undefined> } = {}) => {
    sessions = await openSessions(state.url, { apiKey: options.apiKey ?? KEY, baseUrl: emulator.url, cwd: dir, env: { ...state.env, HOOK_TOKEN: 'hook-secret-app', ...options.env } });
    return sessions;
  };
  const creates = async (): Promise<number> => (await emulatorAdmin(emulator.url, 'GET', '/stats')).routes.create?.handled ?? 0;

  beforeEach(async () => {
    emulator = await startEmulator({ port: 0 });
    dir = tempDir('ensure');
    state = backend.make(dir);
  });
  afterEach(async () => {
    await sessions?.close();
    sessions = undefined;
    await emulator.close();
    await state.cleanup();
  });

  test('a new user gets one session from the published body, its sensitive value filled from the application; a recorded user is one read and no request', async () => {
    await apply();
    const s = await open();
    const first = await s.ensure('support-agent', 'alice@example.com');
    expect([first.created, first.version, first.configVersion, first.sessionId.startsWith('trs_'), first.mcpUrl.includes(first.sessionId)]).toStrictEqual([true, 1, 1, true, true]);
    const live = await emulatorAdmin(emulator.url, 'GET', `/sessions/${first.sessionId}`);
    expect([live.config.user_id, live.config.manage_connections.callback_url, live.config.tools.github]).toStrictEqual([
      'alice@example.com',
      'https://hooks.example.com/cb?token=hook-secret-app',
      { disabled: ['GITHUB_DELETE_A_REPOSITORY'] },
    ]);
    const before = await creates();
    const again = await s.ensure('support-agent', 'alice@example.com');
    expect({ ...again, created: true }).toStrictEqual(first);
    expect(again.created).toBe(false);
    expect(await creates()).toBe(before);
    expect(await s.lookup('support-agent', 'bob')).toBeUndefined();
  });

  test('concurrent calls of one process for one user create one session', async () => {
    await apply();
    const s = await open();
    const all = await Promise.all(Array.from({ length: 40 }, (_, i) => s.ensure('support-agent', `user-${i % 4}`)));
    expect(new Set(all.map((x) => x.sessionId)).size).toBe(4);
    expect(all.filter((x) => x.created)).toHaveLength(4);
    const counts = await emulatorAdmin(emulator.url, 'GET', '/counts');
    expect([counts.sessions, counts.users, counts.users_with_several]).toStrictEqual([4, 4, 0]);
  });

  test('refusals before any request: a name never published, a missing sensitive variable, a user id the service would refuse', async () => {
    await apply();
    const s = await open({ env: { HOOK_TOKEN: undefined } });
    const notPublished = await s.ensure('support-agnet', 'alice').catch((e: unknown) => e);
    expect(notPublished).toBeInstanceOf(NotPublishedError);
    expect((notPublished as NotPublishedError).published).toStrictEqual(['support-agent']);
    const missing = await s.ensure('support-agent', 'alice').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MissingVariableError);
    expect([(missing as MissingVariableError).variable, (missing as Error).message]).toStrictEqual([
      'HOOK_TOKEN',
      '"support-agent" needs the variable HOOK_TOKEN (a sensitive value, never stored in the state): pass it in openSessions\' env; nothing was sent',
    ]);
    for (const bad of ['', 'x'.repeat(257), '<end-user>', 'a\u0000b', '\u0000']) {
      await expect(s.ensure('support-agent', bad)).rejects.toBeInstanceOf(InvalidUserIdError);
      await expect(s.lookup('support-agent', bad)).rejects.toBeInstanceOf(InvalidUserIdError);
    }
    // A refused id shares no statement with the calls made beside it.
    const [bad, good] = await Promise.allSettled([s.lookup('support-agent', 'nul\u0000user'), s.lookup('support-agent', 'beside-it')]);
    expect([bad.status, good.status]).toEqual(['rejected', 'fulfilled']);
    // So does a manifest name no state can hold: not published, and nothing recorded for it.
    const [badName, beside] = await Promise.allSettled([s.ensure('support\u0000agent', 'alice'), s.lookup('support-agent', 'beside-it')]);
    expect([(badName as PromiseRejectedResult).reason, beside.status]).toEqual([expect.any(NotPublishedError), 'fulfilled']);
    expect(await s.lookup('support\u0000agent', 'alice')).toBeUndefined();
    expect(await creates()).toBe(0);
    // Nothing was claimed: the next call with the variable set creates at once.
    await s.close();
    const ok = await (await open()).ensure('support-agent', 'alice');
    expect(ok.created).toBe(true);
  });

  test('a create the service refuses frees the claim (ApiError); a create whose answer is lost is never repeated (OutcomeUnknownError)', async () => {
    await apply();
    const s = await open();
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'create', status: 400, times: 1 });
    const refused = await s.ensure('support-agent', 'alice').catch((e: unknown) => e);
    expect([refused instanceof ApiError, (refused as ApiError).status]).toStrictEqual([true, 400]);
    expect((await s.ensure('support-agent', 'alice')).created).toBe(true);

    for (const [user, fault] of [
      ['bob', { reset: 'after' }],
      ['carol', { status: 500 }],
      ['dave', { malformed: true }],
    ] as const) {
      await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'create', times: 1, ...fault });
      const lost = await s.ensure('support-agent', user).catch((e: unknown) => e);
      expect(lost, user).toBeInstanceOf(OutcomeUnknownError);
      const before = await creates();
      const later = await s.ensure('support-agent', user).catch((e: unknown) => e);
      expect(later, user).toBeInstanceOf(OutcomeUnknownError);
      expect((later as OutcomeUnknownError).message).toContain(`sessionctl state rm support-agent --user-id ${user}`);
      expect(await creates(), user).toBe(before);
    }
    // Once a person has made sure no session is left, `state rm --user-id` lets the next ensure create it.
    await s.close();
    const rm = await runCli(['state', 'rm', 'support-agent', '--user-id', 'bob', '--state', state.url], { cwd: dir, env: state.env });
    expect([rm.exitCode, rm.stdout.split('\n')[1]]).toStrictEqual([0, '  -  support-agent  user bob  (no session)']);
    const whole = await runCli(['state', 'rm', 'support-agent', '--state', state.url], { cwd: dir, env: state.env });
    expect([whole.exitCode, whole.stderr]).toStrictEqual([2, 'error: "support-agent" is a per-user manifest with 1 recorded session; state rm forgets one user\'s at a time\nhint: give the user: `sessionctl state rm support-agent --user-id USER`\n']);
    expect((await (await open()).ensure('support-agent', 'bob')).created).toBe(true);
  });

  test('state list counts a per-user manifest and pages through its users, one page at a time', async () => {
    await apply();
    const s = await open();
    await Promise.all(['u1', 'u2', 'u3', 'u4', 'u5'].map((u) => s.ensure('support-agent', u)));
    const list = async (...args: string[]) => JSON.parse((await runCli(['state', 'list', '--state', state.url, '--format', 'json', ...args], { cwd: dir, env: state.env })).stdout);
    const all = await list();
    expect([all.sessions, all.published.map((p: { name: string; sessions: number; by_version: object }) => [p.name, p.sessions, p.by_version]), all.fleet]).toStrictEqual([[], [['support-agent', 5, { 1: 5 }]], undefined]);
    const first = await list('--name', 'support-agent', '--limit', '2');
    expect([first.fleet.map((r: { user_id: string }) => r.user_id), first.next_after]).toStrictEqual([['u1', 'u2'], 'u2']);
    const last = await list('--name', 'support-agent', '--limit', '2', '--after', 'u4');
    expect([last.fleet.map((r: { user_id: string }) => r.user_id), last.next_after]).toStrictEqual([['u5'], null]);
    const one = await list('--user-id', 'u3');
    expect(one.fleet.map((r: { user_id: string; version: number }) => [r.user_id, r.version])).toStrictEqual([['u3', 1]]);
  });

  test('state pull carries the publication (never the secret) and state push puts it in another state', async () => {
    await apply();
    const pulled = await runCli(['state', 'pull', '--state', state.url], { cwd: dir, env: state.env });
    expect(pulled.exitCode, pulled.stderr).toBe(0);
    expect(pulled.stdout).not.toContain('hook-secret-1');
    const doc = JSON.parse(pulled.stdout) as { version: number; published: Array<{ name: string; version: number; templates: unknown }> };
    expect([doc.version, doc.published.map((p) => [p.name, p.version, p.templates])]).toStrictEqual([
      3,
      [['support-agent', 1, [{ pointer: '/manage_connections/callback_url', parts: ['https://hooks.example.com/cb?token=', { variable: 'HOOK_TOKEN' }] }]]],
    ]);
    writeFileSync(join(dir, 'pulled.json'), pulled.stdout);
    const pushed = await runCli(['state', 'push', 'pulled.json', '--state', 'copy.json'], { cwd: dir, env: state.env });
    expect(pushed.exitCode, pushed.stderr).toBe(0);
    const copy = await stateBackend(join(dir, 'copy.json'), dir).load();
    expect([...(copy.published?.keys() ?? [])]).toStrictEqual(['support-agent']);
  });

  test('the state is bound to the key apply used: another project\'s key is refused at open', async () => {
    await apply();
    await expect(open({ apiKey: 'key-of-project-b' })).rejects.toBeInstanceOf(UsageError);
    expect(await creates()).toBe(0);
  });

  test('no API key is refused at open, before the state is read', async () => {
    await expect(openSessions(state.url, { apiKey: undefined as unknown as string, env: state.env })).rejects.toThrow(
      new UsageError('openSessions needs the API key sessions are created with: pass apiKey (the COMPOSIO_API_KEY of the environment, say), which is empty or unset here'),
    );
    await expect(openSessions(state.url, { apiKey: '', env: state.env })).rejects.toBeInstanceOf(UsageError);
  });

  test('a state that is not there is refused at open', async () => {
    const e = await open().catch((x: unknown) => x);
    expect([e instanceof InputError, (e as Error).message]).toStrictEqual([
      true,
      backend.name === 'file'
        ? 'no state file is there: nothing was ever applied with this state, or the path is mistyped (a pipeline must restore or share its state: see PostgreSQL in docs/state.md)'
        : 'nothing is published to this schema and workspace: no apply of a per-user manifest (user_id: <end-user>) wrote here, or the URL is mistyped',
    ]);
  });

  test('a new publish: sessions created after it carry the new body', async () => {
    await apply();
    const s = await open();
    const old = await s.ensure('support-agent', 'alice');
    await apply(MANIFEST.replace('toolkits: [gmail, github]', 'toolkits: [gmail, github, slack]'));
    // The apply rolled alice's row out: a file state's application opens its fleet again after a
    // deploy (one process owns the file); PostgreSQL's reads the rows as they are.
    await s.close();
    const fresh = await (await open()).ensure('support-agent', 'bob');
    expect([old.version, fresh.version]).toStrictEqual([1, 2]);
    const live = await emulatorAdmin(emulator.url, 'GET', `/sessions/${fresh.sessionId}`);
    expect(live.config.toolkits).toStrictEqual({ enabled: ['gmail', 'github', 'slack'] });
    const plan = await runCli(['plan', 'support.yaml', '--state', state.url], { cwd: dir, env: { ...state.env, HOOK_TOKEN: 'hook-secret-1' } });
    // The apply rolled alice's session out to version 2; its callback keeps the application's token.
    expect(plan.stdout).toContain('    = unchanged support-agent  every end user, support.yaml\n        up to date: version 2\n        2 sessions recorded; rollout: update 0 in place, replace 0, unchanged 2\n');
    const alice = await emulatorAdmin(emulator.url, 'GET', `/sessions/${old.sessionId}`);
    expect([alice.config.toolkits, alice.config.manage_connections.callback_url, alice.config_version]).toStrictEqual([{ enabled: ['gmail', 'github', 'slack'] }, 'https://hooks.example.com/cb?token=hook-secret-app', 2]);
  });
});

describe.skipIf(skipBecause(db === null, 'ensure on PostgreSQL needs a server (the run printed why there is none)'))('ensure on PostgreSQL: claims', () => {
  let emulator: RunningEmulator;
  let schema: string;
  let sessions: Sessions | undefined;
  beforeEach(async () => {
    emulator = await startEmulator({ port: 0 });
    schema = uniqueSchema('claim');
    const dir = tempDir('claims');
    writeFileSync(join(dir, 'a.yaml'), 'name: agent\nuser_id: <end-user>\ntoolkits: [gmail]\n');
    const r = await runCli(['apply', 'a.yaml', '--base-url', emulator.url, '--state', stateUrl(db!, schema)], { cwd: dir, env: { ...db!.env, COMPOSIO_API_KEY: KEY } });
    expect(r.exitCode, r.stderr).toBe(0);
    sessions = await openSessions(stateUrl(db!, schema), { apiKey: KEY, baseUrl: emulator.url, env: db!.env, waitMs: 2_000 });
  });
  afterEach(async () => {
    await sessions?.close();
    await emulator.close();
    await dropSchema(db!, schema);
  });
  const table = () => `"${schema}".fleet`;

  test('a claim whose holder died before sending is taken over once its lease ends; one still live is waited for', async () => {
    await sql(db!, `INSERT INTO ${table()} (workspace, name, user_id, claim_id, claim_state, claim_since, claim_expires) VALUES ('default', 'agent', 'alice', 'dead', 'claimed', now(), now() - interval '1 second')`);
    expect((await sessions!.ensure('agent', 'alice')).created).toBe(true);
    await sql(db!, `INSERT INTO ${table()} (workspace, name, user_id, claim_id, claim_state, claim_since, claim_expires) VALUES ('default', 'agent', 'bob', 'live', 'claimed', now(), now() + interval '1 hour')`);
    const waited = await sessions!.ensure('agent', 'bob').catch((e: unknown) => e);
    expect((waited as Error).name).toBe('EnsureTimeoutError');
    expect((await emulatorAdmin(emulator.url, 'GET', '/counts?user_id=bob')).sessions).toBe(0);
  });

  test('a sent create whose holder died is never taken over: its outcome is unknown', async () => {
    await sql(db!, `INSERT INTO ${table()} (workspace, name, user_id, claim_id, claim_state, claim_since, claim_expires) VALUES ('default', 'agent', 'carol', 'dead', 'sent', '2026-11-28T10:00:00Z', now() - interval '1 second')`);
    const e = await sessions!.ensure('agent', 'carol').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(OutcomeUnknownError);
    expect([(e as OutcomeUnknownError).since, (e as OutcomeUnknownError).reason]).toStrictEqual(['2026-11-28T10:00:00.000Z', 'the caller that sent it ended before it recorded the answer: killed, or it lost the state']);
    expect((await emulatorAdmin(emulator.url, 'GET', '/counts')).sessions).toBe(0);
  });

  test('a publish during concurrent ensure calls: every session created after it carries the new body, none a mix; the rollout brings the others to it', async () => {
    const dir = tempDir('publish-race');
    const v2 = 'name: agent\nuser_id: <end-user>\ntoolkits: [gmail, slack]\ntags: { disable: [destructiveHint] }\n';
    writeFileSync(join(dir, 'a.yaml'), v2);
    let published = Number.POSITIVE_INFINITY;
    let next = 0;
    let startedAfter = 0;
    const results: Array<{ user: string; started: number; version: number | null; session: string }> = [];
    // Calls go on, 20 at once, while the publish runs, until 100 have started after it returned.
    const lane = async () => {
      while (startedAfter < 100) {
        const user = `racer-${next++}`;
        const started = Date.now();
        if (started > published) startedAfter++;
        const s = await sessions!.ensure('agent', user);
        results.push({ user, started, version: s.version, session: s.sessionId });
        if (results.length === 60 && published === Number.POSITIVE_INFINITY) {
          const r = await runCli(['apply', 'a.yaml', '--base-url', emulator.url, '--state', stateUrl(db!, schema)], { cwd: dir, env: { ...db!.env, COMPOSIO_API_KEY: KEY } });
          expect(r.exitCode, r.stderr).toBe(0);
          published = Date.now();
        }
      }
    };
    await Promise.all(Array.from({ length: 20 }, lane));
    const after = results.filter((r) => r.started > published);
    expect(after.length).toBeGreaterThanOrEqual(100);
    expect(after.filter((r) => r.version !== 2)).toStrictEqual([]);
    expect(new Set(results.map((r) => r.version))).toStrictEqual(new Set([1, 2]));
    // Each session is one version's body whole: v1's toolkits and no tags, or v2's with its tags.
    const { sessions: all } = await emulatorAdmin(emulator.url, 'GET', '/sessions');
    expect(all).toHaveLength(results.length);
    // Each session was created from one version's body whole (v1's: config version 1, then one
    // PATCH by the rollout; v2's: never patched), and every one ends on v2, those created from v1
    // while the apply ran included: the rollout waited for their creates and patched them too.
    const v2Config = [{ enabled: ['gmail', 'slack'] }, { disabled: ['destructiveHint'] }];
    for (const r of results) {
      const live = await emulatorAdmin(emulator.url, 'GET', `/sessions/${r.session}`);
      expect([live.config.toolkits, live.config.tags?.disabled === undefined ? undefined : { disabled: live.config.tags.disabled }], r.user).toStrictEqual(v2Config);
      expect(live.config_version, r.user).toBe(r.version === 1 ? 2 : 1);
    }
    expect(await sql(db!, `SELECT version, count(*)::int AS n FROM ${table()} GROUP BY version`)).toStrictEqual([{ version: 2, n: results.length }]);
  }, 60_000);

  test('ensure needs no workspace lock: a deploy holding it does not hold ensure up', async () => {
    const deploy = await stateBackend(stateUrl(db!, schema), '.', { env: db!.env }).openLocked({ owner: { pid: 1, hostname: 'deploy-runner' }, isAlive: () => true });
    try {
      expect((await sessions!.ensure('agent', 'during-deploy')).created).toBe(true);
    } finally {
      await deploy.unlock();
    }
  });

  test.skipIf(skipBecause(process.env['SESSIONCTL_TEST_APP_ROLE'] === undefined, 'the application-role test needs SESSIONCTL_TEST_APP_ROLE, a role with a login and no privilege (.ci/run creates sessionctl_test_app)'))('the application role needs only the grants docs/per-user.md lists', async () => {
    const role = process.env['SESSIONCTL_TEST_APP_ROLE']!;
    const q = (t: string) => `"${schema}".${t}`;
    // The page's statements, for this test's schema and role.
    const page = readFileSync(new URL('../../../docs/per-user.md', import.meta.url), 'utf8');
    const grants = /## On PostgreSQL\n[\s\S]*?```sql\n([\s\S]*?)```/.exec(page)![1]!;
    const statements = grants.split(';').map((s) => s.trim()).filter((s) => s !== '');
    expect(statements).toHaveLength(3);
    for (const statement of statements) {
      await sql(db!, statement.replace(/\bsessionctl\.(\w+)/g, (_, name: string) => q(name)).replace(/SCHEMA sessionctl\b/, `SCHEMA "${schema}"`).replace(/ TO app$/, ` TO ${role}`));
    }
    const app = await openSessions(stateUrl(db!, schema).replace(`//${encodeURIComponent(db!.env['PGUSER']!)}@`, `//${role}@`), { apiKey: KEY, baseUrl: emulator.url, env: db!.env });
    try {
      const made = await Promise.all(['r1', 'r1', 'r2'].map((u) => app.ensure('agent', u)));
      expect(made.map((m) => m.created)).toStrictEqual([true, false, true]);
      expect((await app.ensure('agent', 'r1')).sessionId).toBe(made[0]!.sessionId);
    } finally {
      await app.close();
    }
    // And nothing more: it cannot touch the pipeline's entries or publish.
    const denied = await sql(db!, `SELECT has_table_privilege('${role}', '${q('entries')}', 'SELECT') AS s, has_table_privilege('${role}', '${q('published')}', 'INSERT') AS i`);
    expect(denied).toStrictEqual([{ s: false, i: false }]);
  });

  test('the fleet is counted for plan without being read', async () => {
    await Promise.all(['a', 'b', 'c'].map((u) => sessions!.ensure('agent', u)));
    const view = await stateBackend(stateUrl(db!, schema), '.', { env: db!.env }).load();
    const count = view.fleet?.get('agent');
    expect([count?.sessions, [...(count?.byVersion ?? [])], count?.unknown, view.list().length]).toStrictEqual([3, [[1, 3]], 0, 0]);
  });
});
