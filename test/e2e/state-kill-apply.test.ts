import { describe, expect, test } from 'vitest';
import { stateBackend } from '../../src/state/backend.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { db, sql, stateUrl } from '../helpers/postgres.js';
import { processWorld, sessionctl } from './state-processes.js';
import { skipBecause } from '../helpers/skip.js';

/**
 * kill -9 of `sessionctl apply` with a PostgreSQL state, mid-run (creates slowed by the emulator's
 * latency fault), then a re-run. What the state layer guarantees, and this test holds: the lock
 * does not outlive the killed run (the re-run is not blocked), every row is a whole entry, every
 * recorded session exists, and every session recorded before the kill is kept, not created again.
 * The creates in flight at the kill (at most --concurrency) reached the service without being
 * recorded; the write-ahead create intents of apply (issue 11) are what make a re-run stop on
 * those instead of creating them again, so their number is reported here, bounded, not asserted 0.
 */

const MANIFESTS = 10;
const CONCURRENCY = 2;
const KEY = 'ak_kill_apply_000001';
const world = processWorld('kill', ['.'], MANIFESTS);

async function recordedRows(): Promise<number> {
  const rows = await sql<{ n: number }>(db!, `SELECT count(*)::int AS n FROM "${world.schema}".entries`).catch(() => [{ n: 0 }]);
  return rows[0]!.n;
}

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('kill -9 of apply with a PostgreSQL state', () => {
  test('the re-run is not blocked, loses nothing recorded, and creates again only what was never recorded', { timeout: 120_000 }, async () => {
    const { dir, emulator, schema } = world;
    const url = stateUrl(db!, schema);
    const env = { ...db!.env, COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emulator.url };
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'create', latency_ms: 300, times: 1000 });
    const run = sessionctl(['apply', 'm', '--state', url, '--concurrency', String(CONCURRENCY)], { cwd: dir, env });
    while ((await recordedRows()) < 3) await new Promise((r) => setTimeout(r, 20));
    run.child.kill('SIGKILL');
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');

    // Every row is a whole entry (load checks each), and each names a session that exists.
    const before = (await stateBackend(url, dir, { env: db!.env }).load()).list();
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(before.length).toBeLessThan(MANIFESTS);
    const live = new Set(((await emulatorAdmin(emulator.url, 'GET', '/sessions')).sessions as Array<{ session_id: string }>).map((s) => s.session_id));
    for (const e of before) expect(live.has(e.session_id), `${e.name} -> ${e.session_id}`).toBe(true);

    await emulatorAdmin(emulator.url, 'DELETE', '/faults');
    const again = await sessionctl(['apply', 'm', '--state', url, '--concurrency', String(CONCURRENCY)], { cwd: dir, env }).done;
    expect(again.stderr).not.toMatch(/locked/);
    expect([again.code, /(\d+) created, (\d+) unchanged/.exec(again.stdout)?.slice(1)]).toEqual([0, [String(MANIFESTS - before.length), String(before.length)]]);

    const after = (await stateBackend(url, dir, { env: db!.env }).load()).list();
    expect(after).toHaveLength(MANIFESTS);
    for (const e of before) expect(after.find((x) => x.name === e.name)?.session_id, `${e.name} kept its session`).toBe(e.session_id);
    const sessions = (await emulatorAdmin(emulator.url, 'GET', '/sessions')).sessions as Array<{ session_id: string }>;
    const recorded = new Set(after.map((e) => e.session_id));
    const unrecorded = sessions.filter((s) => !recorded.has(s.session_id));
    // Creates in flight when the run was killed: they reached the service, no answer came back.
    expect(unrecorded.length).toBeLessThanOrEqual(CONCURRENCY);
    console.log(`kill -9 mid-apply: ${before.length} recorded before the kill, all kept; ${unrecorded.length} create(s) in flight at the kill reached the emulator unrecorded (write-ahead intents close this)`);
  });
});
