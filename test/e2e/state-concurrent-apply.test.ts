import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { stateBackend } from '../../src/state/backend.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { db, stateUrl } from '../helpers/postgres.js';
import { processWorld, sessionctl, type Finished } from './state-processes.js';
import { skipBecause } from '../helpers/skip.js';

/**
 * Two `sessionctl apply` processes, on two working copies of the same manifests that share a
 * state (PostgreSQL; and one state file both name), started together against one `sessionctl
 * emulator` (a child process): exactly the expected sessions exist afterwards (counted through the
 * emulator's admin listing), and the second run reports the lock or finds nothing to do. Creates
 * are slowed so the runs overlap.
 */

const MANIFESTS = 12;
const ROUNDS = 3;
const KEY = 'ak_concurrent_apply_0001';
const world = processWorld('concurrent', ['a', 'b'], MANIFESTS);

function summary(r: Finished): string {
  return /(\d+) created, (\d+) unchanged/.exec(r.stdout)?.[0] ?? `exit ${r.code}: ${r.stderr.split('\n')[0]}`;
}

const cases = [
  ['--lock-timeout 0 (the default): the second reports the lock, or comes after and finds nothing to do', []],
  ['--lock-timeout 2m: the second waits, then finds nothing to do', ['--lock-timeout', '2m']],
] as const;

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('two applies at once on one PostgreSQL state', () => {
  test.each(cases)('%s', { timeout: 120_000 }, (_name, extra) => race('postgres', extra));
});

describe('two applies at once on one state file', () => {
  test.each(cases)('%s', { timeout: 120_000 }, (_name, extra) => race('file', extra));
});

async function race(kind: 'postgres' | 'file', extra: readonly string[]): Promise<void> {
  const { dir, emulator, schema } = world;
  for (let round = 0; round < ROUNDS; round++) {
    await emulatorAdmin(emulator.url, 'POST', '/reset');
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'create', latency_ms: 40, times: 1000 });
    const id = `r${round}${extra.length > 0 ? 'w' : ''}`;
    const url = kind === 'postgres' ? stateUrl(db!, schema, id) : join(dir, 'shared', id, 'state.json');
    const env = { ...(db?.env ?? {}), COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emulator.url };
    const args = ['apply', 'm', '--state', url, '--concurrency', '4', ...extra];
    const runs = [sessionctl(args, { cwd: join(dir, 'a'), env }), sessionctl(args, { cwd: join(dir, 'b'), env })];
    const [a, b] = await Promise.all(runs.map((r) => r.done));
    await emulatorAdmin(emulator.url, 'DELETE', '/faults');

    const sessions = (await emulatorAdmin(emulator.url, 'GET', '/sessions')).sessions as Array<{ session_id: string; user_id: string }>;
    expect(sessions, `round ${round}: ${summary(a!)} / ${summary(b!)}`).toHaveLength(MANIFESTS);
    expect(new Set(sessions.map((s) => s.user_id)).size).toBe(MANIFESTS);
    const recorded = (await stateBackend(url, dir, { env: db?.env ?? {} }).load()).list();
    expect(recorded.map((e) => e.session_id).sort()).toEqual(sessions.map((s) => s.session_id).sort());

    // One run created every session; the other either waited for it (--lock-timeout) or ran
    // after it and found nothing to do, or met its lock and said who held it.
    const created = `${MANIFESTS} created, 0 unchanged`;
    const [first, second] = summary(a!) === created ? [a!, b!] : [b!, a!];
    expect([first.code, summary(first)]).toEqual([0, created]);
    const idle = [0, `0 created, ${MANIFESTS} unchanged`];
    if (extra.length > 0) expect([second.code, summary(second)]).toEqual(idle);
    else if (second.code !== 0) expect([second.code, second.stderr]).toEqual([5, expect.stringMatching(/the state is locked by process \d+ on \S+( \(role \w+\))? since \S+ \(lock [0-9a-f-]{36}\): another apply is running/)]);
    else expect([second.code, summary(second)]).toEqual(idle);
  }
}
