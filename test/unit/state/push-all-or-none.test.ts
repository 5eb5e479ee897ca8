import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { postgresBackend, type StateBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { StateLockOptions } from '../../../src/state/lock.js';
import { pushState } from '../../../src/state/operations.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { stateFailure } from '../../helpers/rejection.js';
import { runCli } from '../../helpers/run-cli.js';
import { skipBecause } from '../../helpers/skip.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Issue 29, item 8: `state push` is one transaction. A push of 50,000 entries that fails at any
 * entry (a row the database refuses at the end, in the middle or first; a trigger that raises;
 * the connection killed part-way) writes none of them, and the state keeps what it held. Before,
 * each entry was its own write (batches of up to 500 committed as they went): a failure at the
 * 50,000th left 49,999 rows behind.
 */

const N = 50_000;
const lock: StateLockOptions = { owner: { pid: 4242, hostname: 'host-a' }, isAlive: () => true };

function entry(i: number, over: Partial<StateEntry> = {}): StateEntry {
  return { name: `m${i}`, user_id: `user-${i}`, session_id: `trs_s${i}`, mcp_url: `https://mcp.example/${i}`, tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z', ...over };
}

const many = (poisonAt: number, name = 'poison'): StateEntry[] => Array.from({ length: N }, (_, i) => (i === poisonAt ? entry(i, { name }) : entry(i)));

const schemas: string[] = [];
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

/** A migrated, empty state holding one entry of its own; `arm` adds what will make the push fail. */
async function pgState(arm: (entries: string) => string): Promise<{ backend: StateBackend; entries: string }> {
  const schema = uniqueSchema('pushtx');
  schemas.push(schema);
  const backend = postgresBackend(stateUrl(db!, schema), { env: db!.env });
  const state = await backend.openLocked(lock);
  await state.record(entry(-1, { name: 'kept' }));
  await state.unlock();
  const entries = `"${schema}".entries`;
  await sql(db!, arm(entries));
  return { backend, entries };
}

const trigger = (entries: string, body: string): string => `
  CREATE FUNCTION ${entries.replace('.entries', '.fail_push')}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN ${body} RETURN NEW; END $$;
  CREATE TRIGGER fail_push BEFORE INSERT ON ${entries} FOR EACH ROW EXECUTE FUNCTION ${entries.replace('.entries', '.fail_push')}();`;

const cases: Array<[string, (entries: string) => string, StateEntry[], RegExp]> = [
  ['a row refused by a constraint at the end', (e) => `ALTER TABLE ${e} ADD CONSTRAINT no_poison CHECK (name <> 'poison')`, many(N - 1), /violates check constraint "no_poison" \(SQLSTATE 23514\)/],
  ['a row refused by a constraint in the middle', (e) => `ALTER TABLE ${e} ADD CONSTRAINT no_poison CHECK (name <> 'poison')`, many(N / 2), /violates check constraint "no_poison" \(SQLSTATE 23514\)/],
  ['a row refused by a constraint first', (e) => `ALTER TABLE ${e} ADD CONSTRAINT no_poison CHECK (name <> 'poison')`, many(0), /violates check constraint "no_poison" \(SQLSTATE 23514\)/],
  ['a unique index the last row breaks', (e) => `CREATE UNIQUE INDEX one_per_session ON ${e} (session_id)`, [...many(-1).slice(0, N - 1), entry(N - 1, { session_id: 'trs_s0' })], /duplicate key value violates unique constraint "one_per_session" \(SQLSTATE 23505\)/],
  ['a trigger that raises at the last row', (e) => trigger(e, `IF NEW.name = 'poison' THEN RAISE EXCEPTION 'refused by a trigger'; END IF;`), many(N - 1), /refused by a trigger \(SQLSTATE P0001\)/],
  ['the connection killed at the last row', (e) => trigger(e, `IF NEW.name = 'poison' THEN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); END IF;`), many(N - 1), /cannot record 50000 entries in the state: .*terminat/i],
];

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('state push to PostgreSQL: all 50,000 entries or none', () => {
  test.each(cases)('%s: exit-5 error, no row written, the entry it held kept', { timeout: 120_000 }, async (_name, arm, incoming, says) => {
    const { backend, entries } = await pgState(arm);
    const err = await stateFailure(pushState(backend, lock, incoming, { source: 'big.json' }));
    expect(err.message).toMatch(says);
    expect(await sql(db!, `SELECT name FROM ${entries}`)).toEqual([{ name: 'kept' }]);
    // The lock was released: the state can be used again.
    expect(await backend.lockHolder()).toBeUndefined();
  });

  test('the same push without the fault writes all of them, in one go', { timeout: 120_000 }, async () => {
    const { backend, entries } = await pgState(() => 'SELECT 1');
    const result = await pushState(backend, lock, many(-1), { source: 'big.json' });
    expect(result.written).toBe(true);
    expect(await sql(db!, `SELECT count(*)::int AS n FROM ${entries}`)).toEqual([{ n: N + 1 }]);
  });

  test('through the CLI: `state push` of 50,000 entries refused at the last: exit 5, the reason, nothing written', { timeout: 120_000 }, async () => {
    const { backend, entries } = await pgState((e) => `ALTER TABLE ${e} ADD CONSTRAINT no_poison CHECK (name <> 'poison')`);
    const dir = tempDir('push-cli');
    await writeFile(join(dir, 'big.json'), JSON.stringify({ version: 1, sessions: many(N - 1) }));
    const r = await runCli(['state', 'push', 'big.json', '--state', backend.location], { cwd: dir, env: db!.env });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toMatch(/^error: .*cannot record 50000 entries in the state: new row for relation "entries" violates check constraint "no_poison" \(SQLSTATE 23514\)\n$/);
    expect(r.stdout).toBe('');
    expect(await sql(db!, `SELECT name FROM ${entries}`)).toEqual([{ name: 'kept' }]);
  });
});
