import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { db, dropSchema, sql, uniqueSchema } from '../helpers/postgres.js';
import { skipBecause } from '../helpers/skip.js';
import { removeAllTempDirs, tempDir } from '../helpers/temp-dir.js';
import { applied, applyVersion, counts, ensureUsers, githubOf, rowsByVersion, until, usersOf, type RolloutWorld } from './fleet/rollout-world.js';
import { emulatorProcess } from './state-processes.js';

/*
 * A manifest change rolled out to a fleet of 10,000 end users' sessions that the application
 * created through ensure, on PostgreSQL and the emulator (a process of its own, as the service
 * is): every session ends on the new config with one PATCH each; a rollout killed with -9 at
 * random points, ten times, and re-run loses and duplicates nothing and patches nothing twice; a
 * SIGTERM ends it after the requests in flight with the state consistent; and the users ensure
 * creates while it runs end on the new version too.
 */

const FLEET = 10_000;
const NAME = 'agent';
const world = { key: 'rollout-key', schema: uniqueSchema('rollout') } as RolloutWorld;
afterAll(() => removeAllTempDirs());

describe.skipIf(skipBecause(db === null, 'the fleet rollout needs a PostgreSQL server (the run printed why there is none)'))('rolling a per-user manifest out to 10,000 sessions', () => {
  beforeAll(async () => {
    world.dir = tempDir('rollout');
    world.emulator = await emulatorProcess();
    const first = await applied(world, NAME, 1);
    expect(first.code, first.stderr).toBe(0);
    const made = await ensureUsers(world, NAME, usersOf('u', FLEET), 4);
    expect(made.filter((r) => r.session === undefined)).toStrictEqual([]);
  }, 180_000);
  afterAll(async () => {
    await world.emulator?.stop();
    if (db !== null) await dropSchema(db, world.schema);
  });

  test('apply: every session on the new config, its config version up by one, exactly one PATCH each', { timeout: 180_000 }, async () => {
    expect((await counts(world)).by_value).toStrictEqual({ [githubOf(1)]: FLEET });
    const r = await applied(world, NAME, 2, ['--concurrency', '32']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`10,000 sessions recorded; rolled out: update 10,000 in place, replace 0, unchanged 0\n`);
    expect(r.stdout).toContain(`  ~ rollout agent to version 2: 10,000 patched, 0 failed\n`);
    const c = await counts(world);
    expect([c.sessions, c.users, c.users_with_several, c.by_config_version, c.by_value]).toStrictEqual([FLEET, FLEET, 0, { 2: FLEET }, { [githubOf(2)]: FLEET }]);
    expect(await rowsByVersion(world, NAME)).toStrictEqual({ 2: FLEET });
    // The rows record what the service answered: each session's config version.
    expect(await sql(db!, `SELECT config_version::int AS v, count(*)::int AS n FROM "${world.schema}".fleet GROUP BY 1`)).toStrictEqual([{ v: 2, n: FLEET }]);
  });

  test('kill -9 at random points, ten times, each followed by a re-run: all on the new version, none patched twice, none duplicated or lost', { timeout: 600_000 }, async () => {
    const stats = async () => ((await emulatorAdmin(world.emulator.url, 'GET', '/stats')) as { routes: Record<string, { received: number; handled: number } | undefined> }).routes;
    const readsBefore = (await stats())['get']?.handled ?? 0;
    let kills = 0;
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    for (let kill = 0; kill < 10; kill++) {
      const before = (await rowsByVersion(world, NAME))['3'] ?? 0;
      if (before >= FLEET) break;
      const target = before + 1 + Math.floor(random() * Math.min(1_500, FLEET - before - 1));
      const run = applyVersion(world, NAME, 3, ['--concurrency', '32']);
      let finished = false;
      void run.done.then(() => (finished = true));
      await until('the rollout to reach its kill point', async () => finished || ((await rowsByVersion(world, NAME))['3'] ?? 0) >= target);
      run.child.kill('SIGKILL');
      const killed = await run.done;
      if (killed.signal === 'SIGKILL') kills++;
      else expect(killed.code, killed.stderr).toBe(0);
      // What an operator does after a killed run (`sessionctl state unlock`), rather than wait out its lease.
      await sql(db!, `DELETE FROM "${world.schema}".locks`);
    }
    expect(kills).toBeGreaterThanOrEqual(8);
    const last = await applied(world, NAME, 3, ['--concurrency', '32']);
    expect(last.code, last.stderr).toBe(0);
    // The PATCHes in flight at each kill were answered and not recorded: the re-runs read them back.
    expect((await stats())['get']?.handled ?? 0).toBeGreaterThan(readsBefore);
    const c = await counts(world);
    // One PATCH per session: a PATCH whose record a kill lost is found done by the re-run (409, read back), not sent again.
    expect([c.sessions, c.users, c.users_with_several, c.by_config_version, c.by_value]).toStrictEqual([FLEET, FLEET, 0, { 3: FLEET }, { [githubOf(3)]: FLEET }]);
    expect(await rowsByVersion(world, NAME)).toStrictEqual({ 3: FLEET });
    expect(await sql(db!, `SELECT config_version::int AS v, count(*)::int AS n FROM "${world.schema}".fleet GROUP BY 1`)).toStrictEqual([{ v: 3, n: FLEET }]);
  });

  test('SIGTERM: exit 143 after the requests in flight, every row what its session is; the re-run finishes', { timeout: 180_000 }, async () => {
    const run = applyVersion(world, NAME, 4, ['--concurrency', '32']);
    await until('the rollout to start', async () => ((await rowsByVersion(world, NAME))['4'] ?? 0) >= 500);
    run.child.kill('SIGTERM');
    const stopped = await run.done;
    expect([stopped.code, stopped.signal]).toStrictEqual([143, null]);
    expect(stopped.stdout).toMatch(/interrupted: [\d,]+ left on an older version \(the next apply resumes\)/);
    const rolled = (await rowsByVersion(world, NAME))['4'] ?? 0;
    expect(rolled).toBeLessThan(FLEET);
    // Consistent: the sessions the state says are on version 4 are, and the others were not touched.
    const c = await counts(world);
    expect(c.by_config_version).toStrictEqual({ 3: FLEET - rolled, 4: rolled });
    expect(c.by_value).toStrictEqual({ [githubOf(3)]: FLEET - rolled, [githubOf(4)]: rolled });
    const again = await applied(world, NAME, 4, ['--concurrency', '32']);
    expect(again.code, again.stderr).toBe(0);
    expect((await counts(world)).by_config_version).toStrictEqual({ 4: FLEET });
  });

  test('ensure from 4 processes creating new users during the rollout: every session, old and new, ends on the new version', { timeout: 300_000 }, async () => {
    const run = applyVersion(world, NAME, 5, ['--concurrency', '16']);
    await until('the rollout to start', async () => ((await rowsByVersion(world, NAME))['5'] ?? 0) >= 200);
    const fresh = await ensureUsers(world, NAME, usersOf('new', 1_000), 4);
    const done = await run.done;
    expect(done.code, done.stderr + done.stdout).toBe(0);
    expect(fresh.filter((r) => r.session === undefined)).toStrictEqual([]);
    const c = await counts(world);
    expect([c.sessions, c.users, c.users_with_several, c.by_value]).toStrictEqual([FLEET + 1_000, FLEET + 1_000, 0, { [githubOf(5)]: FLEET + 1_000 }]);
    expect(await rowsByVersion(world, NAME)).toStrictEqual({ 5: FLEET + 1_000 });
  });
});
