import { afterAll, describe, expect, test } from 'vitest';
import { postgresBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { StateLockOptions } from '../../../src/state/lock.js';
import { openPool } from '../../../src/state/postgres-connect.js';
import type { PostgresStateStore } from '../../../src/state/postgres-store.js';
import { parsePostgresUrl } from '../../../src/state/postgres-url.js';
import { LockGone, PostgresWriter } from '../../../src/state/postgres-writer.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';

/**
 * The writer's batches on the real server of this run: the writes that queue behind a commit in
 * flight share the next one, where a key written twice keeps its last write, and a batch that
 * finds the lock gone writes nothing at all.
 */

const schemas: string[] = [];
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

const lock: StateLockOptions = { owner: { pid: 4242, hostname: 'host-a' }, isAlive: () => true };

function entry(name: string, version = 1): StateEntry {
  return { name, user_id: 'u1', session_id: `trs_${name}`, mcp_url: 'm', tool_router_tools: [], config_version: version, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z' };
}

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the PostgreSQL writer', () => {
  /** A locked state with entries `names`, and a writer of one connection on its lock. */
  async function writer(...names: string[]) {
    const schema = uniqueSchema('writer');
    schemas.push(schema);
    const url = stateUrl(db!, schema);
    const state = (await postgresBackend(url, { env: db!.env }).openLocked(lock)) as PostgresStateStore;
    for (const n of names) await state.record(entry(n));
    const target = parsePostgresUrl(url, db!.env);
    const pool = openPool(target, db!.env, 1);
    const rows = () => sql<{ name: string; config_version: string }>(db!, `SELECT name, config_version FROM "${schema}".entries ORDER BY name`);
    const close = async () => {
      await pool.end();
      await state.unlock();
    };
    return { schema, w: new PostgresWriter(pool, target, state.lockId!, 1), rows, close };
  }

  test('writes queued behind a commit share the next one; a key written twice there keeps its last write', async () => {
    const { w, rows, close } = await writer('c', 'd');
    const first = w.upsert(entry('x')); // takes the connection
    const queued = [w.upsert(entry('a', 1)), w.upsert(entry('a', 2)), w.delete('b', 'u1'), w.upsert(entry('b')), w.upsert(entry('c', 5)), w.delete('c', 'u1'), w.delete('d', 'u1')];
    expect(await Promise.allSettled([first, ...queued])).toEqual(Array.from({ length: 8 }, () => ({ status: 'fulfilled', value: undefined })));
    expect(await rows()).toEqual([
      { name: 'a', config_version: '2' },
      { name: 'b', config_version: '1' },
      { name: 'x', config_version: '1' },
    ]);
    await close();
  });

  test('a batch that finds the lock gone: every write of it refused as LockGone, none written', async () => {
    const { schema, w, rows, close } = await writer('keep');
    await sql(db!, `DELETE FROM "${schema}".locks`);
    const results = await Promise.allSettled([w.upsert(entry('x')), w.upsert(entry('y')), w.delete('keep', 'u1')]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(LockGone);
    }
    expect(((results[0] as PromiseRejectedResult).reason as Error).message).toMatch(/^the state lock [0-9a-f-]{36} is no longer held$/);
    expect(await rows()).toEqual([{ name: 'keep', config_version: '1' }]);
    await close();
  });
});
