import { describe, expect, test } from 'vitest';
import { stateBackend } from '../../src/state/backend.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { db, sql, stateUrl } from '../helpers/postgres.js';
import { processWorld, sessionctl } from './state-processes.js';
import { skipBecause } from '../helpers/skip.js';

/**
 * kill -9 of `sessionctl apply` with a PostgreSQL state, mid-run (creates slowed by the emulator's
 * latency fault), then a re-run. What the lifecycle guarantees (DESIGN §4, issue 11), and this test
 * holds: the lock outlives the killed run only until its lease lapses (15 s; the re-run, waiting
 * with --lock-timeout, then takes it over), every row is a whole entry, every session recorded before the kill exists and is kept; a create in flight at the kill
 * left its write-ahead intent (an entry with no session yet, `pending_create` in-flight), so every
 * session the service holds is recorded or stands behind an intent; and the re-run stops on each
 * intent (outcome unknown) instead of creating a second session, and creates only the manifests
 * the killed run never started.
 */

const MANIFESTS = 10;
const CONCURRENCY = 2;
const KEY = 'ak_kill_apply_000001';
const world = processWorld('kill', ['.'], MANIFESTS);

async function sessionRows(): Promise<number> {
  const rows = await sql<{ n: number }>(db!, `SELECT count(*)::int AS n FROM "${world.schema}".entries WHERE session_id <> ''`).catch(() => [{ n: 0 }]);
  return rows[0]!.n;
}

type LiveSession = { session_id: string; user_id: string };

/** The emulator's sessions once every create it received has been handled (a killed client's too). */
async function settled(url: string): Promise<LiveSession[]> {
  for (;;) {
    const create = ((await emulatorAdmin(url, 'GET', '/stats')) as { routes: Record<string, { received: number; handled: number }> }).routes['create'];
    if (create === undefined || create.received === create.handled) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return (await emulatorAdmin(url, 'GET', '/sessions')).sessions as LiveSession[];
}

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('kill -9 of apply with a PostgreSQL state', () => {
  test('the re-run takes the lock over once its lease lapsed, loses nothing recorded, stops on the creates in flight at the kill, and creates only what was never started', { timeout: 120_000 }, async () => {
    const { dir, emulator, schema } = world;
    const url = stateUrl(db!, schema);
    const env = { ...db!.env, COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emulator.url };
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'create', latency_ms: 300, times: 1000 });
    const run = sessionctl(['apply', 'm', '--state', url, '--concurrency', String(CONCURRENCY)], { cwd: dir, env });
    while ((await sessionRows()) < 3) await new Promise((r) => setTimeout(r, 20));
    run.child.kill('SIGKILL');
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');

    // Every row is a whole entry (load checks each): a session that exists, or an intent in flight.
    const before = (await stateBackend(url, dir, { env: db!.env }).load()).list();
    const recorded = before.filter((e) => e.session_id !== '');
    const intents = before.filter((e) => e.session_id === '');
    expect(recorded.length).toBeGreaterThanOrEqual(3);
    expect(before.length).toBeLessThan(MANIFESTS);
    expect(intents.length).toBeLessThanOrEqual(CONCURRENCY);
    for (const e of intents) expect([e.name, e.pending_create?.status]).toEqual([e.name, 'in-flight']);
    const liveAtKill = await settled(emulator.url);
    const live = new Set(liveAtKill.map((s) => s.session_id));
    for (const e of recorded) expect([e.name, e.pending_create, live.has(e.session_id)]).toEqual([e.name, undefined, true]);
    // A session nothing recorded is one whose create was in flight: its user has an intent.
    const unrecorded = liveAtKill.filter((s) => !recorded.some((e) => e.session_id === s.session_id));
    const intentUsers = new Set(intents.map((e) => e.user_id));
    for (const s of unrecorded) expect([s.session_id, intentUsers.has(s.user_id)]).toEqual([s.session_id, true]);

    await emulatorAdmin(emulator.url, 'DELETE', '/faults');
    const again = await sessionctl(['apply', 'm', '--state', url, '--concurrency', String(CONCURRENCY), '--format', 'json', '--lock-timeout', '1m'], { cwd: dir, env }).done;
    expect(again.stderr).not.toMatch(/locked/);
    const report = JSON.parse(again.stdout) as { diagnostics: Array<{ code: string; message: string }>; applied: { tally: { created: number; unchanged: number; failed: number; skipped?: number } } };
    expect(again.code).toBe(intents.length === 0 ? 0 : 1);
    // Nothing is sent for a create in doubt: skipped (the count is there only when there are any), not failed.
    expect({ skipped: 0, ...report.applied.tally }).toMatchObject({ created: MANIFESTS - before.length, unchanged: recorded.length, failed: 0, skipped: intents.length });
    expect(report.diagnostics.filter((d) => d.code === 'state/outcome-unknown').map((d) => d.message.split(':')[0])).toEqual(intents.map((e) => e.name));

    const after = (await stateBackend(url, dir, { env: db!.env }).load()).list();
    expect(after).toHaveLength(MANIFESTS);
    for (const e of recorded) expect(after.find((x) => x.name === e.name)?.session_id, `${e.name} kept its session`).toBe(e.session_id);
    for (const e of intents) expect(after.find((x) => x.name === e.name), `${e.name} still stands as an intent`).toEqual(e);
    // Nothing created twice: the sessions of the kill, plus one per manifest never started.
    const sessions = await settled(emulator.url);
    expect(sessions).toHaveLength(liveAtKill.length + MANIFESTS - before.length);
    expect(after.filter((e) => e.session_id !== '').every((e) => sessions.some((s) => s.session_id === e.session_id))).toBe(true);
    console.log(`kill -9 mid-apply: ${recorded.length} recorded before the kill, all kept; ${intents.length} intent(s) of creates in flight, ${unrecorded.length} of which reached the emulator; the re-run stopped on each`);
  });
});
