import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { NotPublishedError } from '../../src/fleet/errors.js';
import { openSessions } from '../../src/library/open-sessions.js';
import { stateBackend } from '../../src/state/backend.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { removeAllTempDirs } from '../helpers/temp-dir.js';
import { fleetBackends, fleetWorld, KEY, usersOf, type FleetWorld } from './fleet/fleet-world.js';
import { sessionctl } from './state-processes.js';

/*
 * destroy and `apply --prune` of a per-user manifest over real HTTP to the emulator: the count
 * stated before any request, a confirmation past the threshold (also off a terminal), every
 * session deleted and its row removed, then the publication; and a destroy killed with -9 that a
 * re-run finishes, no session deleted twice.
 */

const MANIFEST = `name: support-agent
user_id: <end-user>
toolkits: [gmail, github]
`;

afterAll(() => removeAllTempDirs());

/** The recorded sessions of the manifest, page by page through the state (no lock). */
async function rows(w: FleetWorld): Promise<number> {
  const backend = stateBackend(w.state.url, w.dir, { env: w.state.env });
  let n = 0;
  let after: { name: string; userId: string } | undefined;
  for (;;) {
    const page = await backend.fleetPage({ name: 'support-agent', limit: 500, ...(after !== undefined ? { after } : {}) });
    n += page.filter((r) => r.session_id !== '').length;
    if (page.length < 500) return n;
    after = { name: 'support-agent', userId: page[page.length - 1]!.user_id };
  }
}

async function published(w: FleetWorld): Promise<boolean> {
  return (await stateBackend(w.state.url, w.dir, { env: w.state.env }).load()).published?.has('support-agent') === true;
}

/** The application, open before the destroy as a running one is. */
async function application(w: FleetWorld) {
  const sessions = await openSessions(w.state.url, { apiKey: KEY, baseUrl: w.emulator.url, cwd: w.dir, env: w.state.env });
  return { ensure: (user: string) => sessions.ensure('support-agent', user).catch((e: unknown) => e), close: () => sessions.close() };
}

const liveSessions = async (w: FleetWorld): Promise<number> => (await emulatorAdmin(w.emulator.url, 'GET', '/counts')).sessions;

describe.each(fleetBackends)('destroy of a per-user manifest on the $name state', (backend) => {
  const w = fleetWorld(backend);

  test('150 sessions off a terminal: --auto-approve is refused with exit 2 and nothing deleted; --yes deletes every session, row and the publication, and ensure then refuses', async () => {
    await w.apply('support.yaml', MANIFEST);
    await w.ensure('support-agent', usersOf(150));

    const refused = await w.cli(['destroy', 'support.yaml', '--auto-approve']);
    expect(refused.exitCode).toBe(2);
    // The count comes first, before any request.
    expect(refused.stderr.split('\n').slice(0, 3)).toStrictEqual([
      "destroy will delete 150 sessions of per-user manifests (every end user's), then their publications:",
      '  - support-agent  150 sessions, e.g. "user-000", "user-001", "user-002"',
      'error: destroy would delete 150 sessions of per-user manifests, more than confirm_fleet_deletes_over (100) allows without a confirmation: nothing was deleted. Pass --yes to confirm (--auto-approve is not enough past it, in CI too)',
    ]);
    expect([await liveSessions(w), (await w.stat('delete')).received, await rows(w), await published(w)]).toStrictEqual([150, 0, 150, true]);

    const app = await application(w);
    const done = await w.cli(['destroy', 'support.yaml', '--yes']);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stdout).toBe(`Deleted (per-user manifests):

  - deleted support-agent: 150 deleted, 0 failed
        publication removed: the application's ensure creates no more sessions of it

✔ No problems in 1 manifest (1 file)
`);
    expect([await liveSessions(w), await w.stat('delete'), await rows(w), await published(w)]).toStrictEqual([0, { received: 150, handled: 150 }, 0, false]);
    // A new user gets no session any more; on PostgreSQL neither does a user whose row went (a
    // file state's application holds its rows in memory: it is restarted after a destroy).
    expect(await app.ensure('someone-new')).toBeInstanceOf(NotPublishedError);
    if (backend.name === 'postgres') expect(await app.ensure('user-000')).toBeInstanceOf(NotPublishedError);
    await app.close();

    // Nothing is left to delete: a second destroy says so and sends nothing.
    const again = await w.cli(['destroy', 'support.yaml', '--yes', '--format', 'json']);
    expect([again.exitCode, JSON.parse(again.stdout).plan.counts.delete, (await w.stat('delete')).received]).toStrictEqual([0, 0, 150]);
  }, 90_000);

  test('the threshold: up to it --auto-approve deletes; sessionctl.yaml raises it; --dry-run counts without a request; JSON counts what went', async () => {
    await w.apply('support.yaml', MANIFEST);
    await w.ensure('support-agent', usersOf(120));
    const dry = await w.cli(['destroy', 'support.yaml', '--dry-run', '--format', 'json']);
    expect(dry.exitCode).toBe(0);
    const plan = JSON.parse(dry.stdout).plan;
    expect([plan.counts.delete, plan.fleet_deletions]).toStrictEqual([
      120,
      [{ name: 'support-agent', file: 'support.yaml', action: 'delete', reason: 'destroy', sessions: 120, unknown: 0, samples: ['user-000', 'user-001', 'user-002'], published: true }],
    ]);
    const human = await w.cli(['destroy', 'support.yaml', '--dry-run']);
    expect(human.stdout).toBe(`Plan: 0 to create, 0 to update, 0 to replace, 120 to delete, 0 no-op

    - delete  support-agent  every end user, support.yaml
        120 sessions (e.g. "user-000", "user-001", "user-002"), then its publication: would be deleted by destroy

✔ No problems in 1 manifest (1 file)
`);
    expect((await w.stat('delete')).received).toBe(0);

    writeFileSync(join(w.dir, 'sessionctl.yaml'), 'confirm_fleet_deletes_over: 120\n');
    const r = await w.cli(['destroy', 'support.yaml', '--auto-approve', '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).fleet_deleted).toStrictEqual([
      { name: 'support-agent', total: 120, deleted: 120, already_gone: 0, failed: 0, failures: [], raced: 0, unpublished: true, unknown: 0, creates_under_way: 0 },
    ]);
    expect([await liveSessions(w), await rows(w), await published(w)]).toStrictEqual([0, 0, false]);
  }, 90_000);

  test('sessions already gone at the service (404) count as gone; their rows go too', async () => {
    await w.apply('support.yaml', MANIFEST);
    const sessions = await w.ensure('support-agent', usersOf(10));
    for (const u of ['user-002', 'user-007']) await emulatorAdmin(w.emulator.url, 'DELETE', `/sessions/${sessions.get(u)!}`);
    const r = await w.cli(['destroy', 'support.yaml', '--auto-approve', '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).fleet_deleted[0]).toMatchObject({ total: 10, deleted: 8, already_gone: 2, failed: 0, unpublished: true });
    expect([await rows(w), await published(w)]).toStrictEqual([0, false]);
  }, 60_000);

  test('apply --prune of a per-user manifest whose file is gone: the count first, refused past the threshold without --yes (nothing published or deleted), then every session and the publication go', async () => {
    mkdirSync(join(w.dir, 'm'));
    writeFileSync(join(w.dir, 'm', 'bot.yaml'), 'name: ci-bot\nuser_id: ci-bot\ntoolkits: [gmail]\n');
    await w.apply('m/support.yaml', MANIFEST);
    await w.ensure('support-agent', usersOf(101));
    rmSync(join(w.dir, 'm', 'support.yaml'));

    const plan = await w.cli(['plan', 'm']);
    expect(plan.stdout).toContain('support-agent (per-user) has no manifest in these paths any more; --prune deletes its 101 sessions and its publication');
    const refused = await w.cli(['apply', 'm', '--prune']);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain("apply --prune will delete 101 sessions of per-user manifests (every end user's), then their publications:\n");
    expect(refused.stderr).toContain('Pass --yes to confirm');
    // Refused before anything was sent or published: the bot's session was not created either.
    expect([await liveSessions(w), await rows(w), await published(w)]).toStrictEqual([101, 101, true]);

    const pruned = await w.cli(['apply', 'm', '--prune', '--yes', '--format', 'json']);
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    const report = JSON.parse(pruned.stdout);
    expect(report.fleet_deleted[0]).toMatchObject({ name: 'support-agent', total: 101, deleted: 101, failed: 0, unpublished: true });
    expect(report.applied.tally.created).toBe(1);
    expect([await liveSessions(w), await rows(w), await published(w)]).toStrictEqual([1, 0, false]);
  }, 90_000);

  test('on a terminal past the threshold it asks, --auto-approve or not: no keeps everything, yes deletes', async () => {
    writeFileSync(join(w.dir, 'sessionctl.yaml'), 'confirm_fleet_deletes_over: 5\n');
    await w.apply('support.yaml', MANIFEST);
    await w.ensure('support-agent', usersOf(6));
    const no = await w.cli(['destroy', 'support.yaml', '--auto-approve'], { stdin: 'no\n', stdinTty: true, tty: true });
    expect([no.exitCode, no.stderr.includes("Delete 6 sessions of every end user? Only 'yes' is accepted: destroy cancelled: nothing was deleted")]).toStrictEqual([2, true]);
    expect([await liveSessions(w), await rows(w)]).toStrictEqual([6, 6]);
    const yes = await w.cli(['destroy', 'support.yaml'], { stdin: 'yes\n', stdinTty: true, tty: true });
    expect(yes.exitCode, yes.stderr).toBe(0);
    expect([await liveSessions(w), await rows(w), await published(w)]).toStrictEqual([0, 0, false]);
  }, 60_000);

  test('destroy --all-recorded deletes the fleets too, beside the fixed sessions', async () => {
    writeFileSync(join(w.dir, 'bot.yaml'), 'name: ci-bot\nuser_id: ci-bot\ntoolkits: [gmail]\n');
    expect((await w.cli(['apply', 'bot.yaml'])).exitCode).toBe(0);
    await w.apply('support.yaml', MANIFEST);
    await w.ensure('support-agent', usersOf(3));
    const r = await w.cli(['destroy', '--all-recorded', '--auto-approve', '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect([report.applied.tally.deleted, report.fleet_deleted[0].deleted]).toStrictEqual([1, 3]);
    expect([await liveSessions(w), await rows(w), await published(w)]).toStrictEqual([0, 0, false]);
  }, 60_000);

  test('a destroy killed with -9 mid-way: the re-run finishes, no session is left and none was deleted twice', async () => {
    await w.apply('support.yaml', MANIFEST);
    await w.ensure('support-agent', usersOf(150));
    // Slow deletes, so that the kill lands mid-way.
    await emulatorAdmin(w.emulator.url, 'POST', '/faults', { route: 'delete', latency_ms: 40, times: 10_000 });
    const env = { ...(w.state.env as Record<string, string>), COMPOSIO_API_KEY: KEY };
    const run = sessionctl(['destroy', 'support.yaml', '--yes', '--concurrency', '4', '--base-url', w.emulator.url, '--state', w.state.url], { cwd: w.dir, env });
    while ((await rows(w)) > 100) await new Promise((r) => setTimeout(r, 20));
    run.child.kill('SIGKILL');
    expect((await run.done).signal).toBe('SIGKILL');
    const left = await rows(w);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(150);
    expect(await published(w)).toBe(true);

    await emulatorAdmin(w.emulator.url, 'DELETE', '/faults');
    const again = await w.cli(['destroy', 'support.yaml', '--yes', '--format', 'json', '--lock-timeout', '1m']);
    expect(again.exitCode, again.stderr).toBe(0);
    const result = JSON.parse(again.stdout).fleet_deleted[0];
    expect([await liveSessions(w), await rows(w), await published(w)]).toStrictEqual([0, 0, false]);
    const deletes = await w.stat('delete');
    // Each session was deleted once at the service; a DELETE sent again (the killed run's removal
    // of its row was lost) found the session gone, answered 404, and was counted as such.
    expect(deletes.handled).toBe(150);
    expect(result.deleted + result.already_gone).toBe(left);
    expect(deletes.received - deletes.handled).toBe(result.already_gone);
    expect(result.already_gone).toBeLessThanOrEqual(4 + 1);
  }, 120_000);
});
