import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { db, dropSchema, pgbouncer, poolerUrl, sql, stateUrl, uniqueSchema } from '../helpers/postgres.js';
import { runCli } from '../helpers/run-cli.js';
import { removeAllTempDirs, tempDir } from '../helpers/temp-dir.js';
import { ensureProcess, sessionsByUser, type Ensured } from './fleet/fleet-helpers.js';
import { emulatorProcess } from './state-processes.js';

/*
 * The application side of a fleet, as production runs it: several processes (hosts, in effect:
 * nothing is shared but the database) ask for the sessions of the same users at once, some of
 * them killed mid-create. Exactly one session per user must exist at the service, each recorded,
 * and a create whose answer was lost must never be repeated.
 */

const KEY = 'fleet-test-key';
const PROCESSES = 8;
const IN_FLIGHT = 200;

afterAll(() => removeAllTempDirs());

/** `n` user ids. */
const usersOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(4, '0')}`);

/** A deterministic shuffle, so that each process meets the shared users in another order. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) % 2147483648;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Per process: its own users, and the shared ones (asked for by every process at once). */
function split(users: readonly string[], sharedShare: number): string[][] {
  const shared = users.slice(0, Math.round(users.length * sharedShare));
  const own = users.slice(shared.length);
  return Array.from({ length: PROCESSES }, (_, p) => shuffled([...shared, ...own.filter((_, i) => i % PROCESSES === p)], p + 1));
}

const routes = [
  { via: 'the database', url: (schema: string) => stateUrl(db!, schema), skip: db === null },
  { via: 'PgBouncer in transaction mode', url: (schema: string) => poolerUrl(db!, pgbouncer!, schema), skip: db === null || pgbouncer === null },
];

describe.each(routes)('ensure from 8 processes through $via', ({ url, skip }) => {
  let emulator: { url: string; stop(): Promise<void> };
  let schema: string;
  let state: string;
  const env = () => ({ ...db!.env, FLEET_KEY: KEY });

  beforeEach(async (ctx) => {
    if (skip) return ctx.skip();
    // A process of its own, as the service is: the test's processes share nothing but the database.
    emulator = await emulatorProcess();
    schema = uniqueSchema('fleet');
    state = url(schema);
    const dir = tempDir('fleet-e2e');
    writeFileSync(join(dir, 'agent.yaml'), 'name: support-agent\nuser_id: <end-user>\ntoolkits: [gmail, github]\n');
    const r = await runCli(['apply', 'agent.yaml', '--base-url', emulator.url, '--state', state], { cwd: dir, env: { ...db!.env, COMPOSIO_API_KEY: KEY } });
    expect(r.exitCode, r.stderr).toBe(0);
  });
  afterEach(async () => {
    if (skip) return;
    await emulator.stop();
    await dropSchema(db!, schema);
  });

  const recorded = async (): Promise<Map<string, string>> =>
    new Map((await sql<{ user_id: string; session_id: string }>(db!, `SELECT user_id, session_id FROM "${schema}".fleet WHERE session_id <> ''`)).map((r) => [r.user_id, r.session_id]));

  test('1,000 new users, 200 calls in flight per process, 20 % asked for by every process at once: one session each, every one recorded', async () => {
    const users = usersOf('user-', 1000);
    const runs = split(users, 0.2).map((mine) => ensureProcess({ state, baseUrl: emulator.url, name: 'support-agent', users: mine, inFlight: IN_FLIGHT, env: env() }).done);
    const done = await Promise.all(runs);
    for (const d of done) expect([d.code, d.stderr]).toStrictEqual([0, '']);
    const all = done.flatMap((d) => d.results);
    expect(all.filter((r) => r.error !== undefined)).toStrictEqual([]);
    expect(all).toHaveLength(1000 * 0.2 * PROCESSES + 800);
    const given = sessionsByUser(all);
    expect(given.size).toBe(1000);
    const counts = await emulatorAdmin(emulator.url, 'GET', '/counts');
    expect([counts.sessions, counts.users, counts.users_with_several]).toStrictEqual([1000, 1000, 0]);
    const rows = await recorded();
    expect(rows.size).toBe(1000);
    for (const [user, seen] of given) expect(rows.get(user), user).toBe([...seen][0]);
  }, 180_000);

  test('a process killed with -9 while its creates wait at the service: its users get one session or the outcome-unknown error, never a second session', async () => {
    const doomed = usersOf('doomed-', 30);
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'create', hold: true, times: doomed.length });
    // Its sent claims last 2.5 s (a create given 2 s), so the others see them end within the test.
    const victim = ensureProcess({ state, baseUrl: emulator.url, name: 'support-agent', users: doomed, inFlight: doomed.length, env: { ...env(), FLEET_CALL_MS: '2000' } });
    // Every create of the victim has reached the service and waits there (its claims are sent).
    for (let i = 0; i < 400 && (await emulatorAdmin(emulator.url, 'GET', '/faults')).faults.length > 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect((await emulatorAdmin(emulator.url, 'GET', '/faults')).faults).toStrictEqual([]);
    victim.child.kill('SIGKILL');
    expect((await victim.done).signal).toBe('SIGKILL');
    // The service goes on with what it received: each of those users now has a session nobody recorded.
    await emulatorAdmin(emulator.url, 'POST', '/faults/release');

    const others = usersOf('user-', 200);
    const runs = split([...doomed, ...others], 0.5).map((mine) => ensureProcess({ state, baseUrl: emulator.url, name: 'support-agent', users: mine, inFlight: IN_FLIGHT, env: env() }).done);
    const done = await Promise.all(runs);
    for (const d of done) expect([d.code, d.stderr]).toStrictEqual([0, '']);
    const all: Ensured[] = done.flatMap((d) => d.results);
    const forDoomed = all.filter((r) => r.user.startsWith('doomed-'));
    expect(forDoomed.length).toBeGreaterThanOrEqual(doomed.length);
    expect(forDoomed.filter((r) => r.error !== 'OutcomeUnknownError')).toStrictEqual([]);
    expect(all.filter((r) => r.user.startsWith('user-') && r.error !== undefined)).toStrictEqual([]);
    expect(sessionsByUser(all).size).toBe(others.length);

    const counts = await emulatorAdmin(emulator.url, 'GET', '/counts');
    expect([counts.sessions, counts.users, counts.users_with_several]).toStrictEqual([doomed.length + others.length, doomed.length + others.length, 0]);
    const rows = await recorded();
    expect([rows.size, doomed.some((u) => rows.has(u))]).toStrictEqual([others.length, false]);
  }, 180_000);
});
