import { createHash } from 'node:crypto';
import { afterAll, describe, expect, test } from 'vitest';
import { InputError } from '../../../src/diagnostics/errors.js';
import { postgresBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { StateLockOptions } from '../../../src/state/lock.js';
import { connectClient } from '../../../src/state/postgres-connect.js';
import { entriesDigest, entryValues, readEntries, readEntry } from '../../../src/state/postgres-rows.js';
import { parsePostgresUrl } from '../../../src/state/postgres-url.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';

/**
 * Entries as rows: the values written for each column (exact), the rows read back as entries
 * (a NULL column is a missing field, not a null one), the digest, and what a failed read says.
 */

const schemas: string[] = [];
afterAll(async () => {
  if (db !== null) for (const s of schemas) await dropSchema(db, s);
});

const lock: StateLockOptions = { owner: { pid: 4242, hostname: 'host-a' }, isAlive: () => true };

const bare: StateEntry = { name: 'bare', user_id: 'u1', session_id: '', mcp_url: '', tool_router_tools: [], config_version: null, body_hash: 'h0', body: null, applied_at: '2026-03-01T10:00:00.000Z' };
const full: StateEntry = {
  name: 'full',
  user_id: 'u2',
  session_id: 'trs_1',
  mcp_url: 'https://mcp.example/1',
  tool_router_tools: ['A', 'B'],
  config_version: 7,
  body_hash: 'h1',
  body: { z: 1, a: [true, null] },
  applied_at: '2026-03-01T10:00:00.123Z',
  file: 'manifests/full.yaml',
  pending_create: { since: '2026-03-01T09:00:00.000Z', body_hash: 'h2', status: 'in-flight' },
  superseded: ['trs_0'],
};

describe('entry values', () => {
  test('each column, in ENTRY_COLUMNS order: JSON as text, what is missing as NULL', () => {
    expect(entryValues(full)).toEqual([
      'full',
      'u2',
      'trs_1',
      'https://mcp.example/1',
      '["A","B"]',
      7,
      'h1',
      '{"z":1,"a":[true,null]}',
      '2026-03-01T10:00:00.123Z',
      '{"since":"2026-03-01T09:00:00.000Z","body_hash":"h2","status":"in-flight"}',
      '["trs_0"]',
      'manifests/full.yaml',
    ]);
    expect(entryValues(bare)).toEqual(['bare', 'u1', '', '', '[]', null, 'h0', null, '2026-03-01T10:00:00.000Z', null, null, null]);
    expect(entryValues({ ...bare, superseded: [] })[10]).toBeNull();
  });

  test('an applied_at that is not a time is refused before anything is sent', () => {
    expect(() => entryValues({ ...bare, applied_at: 'yesterday' })).toThrow(/^entry "bare" has applied_at "yesterday", which is not an ISO 8601 time$/);
  });

  test('the digest: empty for no entries, else the SHA-256 of the entries as JSON', () => {
    expect(entriesDigest([])).toBe('');
    expect(entriesDigest([bare, full])).toBe(createHash('sha256').update(JSON.stringify([bare, full])).digest('hex'));
  });
});

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('entries read from PostgreSQL', () => {
  function fresh() {
    const schema = uniqueSchema('rows');
    schemas.push(schema);
    const url = stateUrl(db!, schema);
    return { schema, backend: postgresBackend(url, { env: db!.env }), target: parsePostgresUrl(url, db!.env) };
  }

  test('read back exactly: NULL columns are missing fields, a bigint a number; one entry or all, in order', async () => {
    const { backend, target } = fresh();
    const state = await backend.openLocked(lock);
    await state.record(full);
    await state.record(bare);
    await state.unlock();
    const client = await connectClient(target, db!.env);
    try {
      // A scan in the order the rows were written (full, then bare): the order read is the entries' own.
      await client.query('SET enable_indexscan = off; SET enable_bitmapscan = off');
      expect(await readEntries(client, target)).toStrictEqual([bare, full]);
      expect(await readEntry(client, target, 'full', 'u2')).toStrictEqual(full);
      expect(await readEntry(client, target, 'full', 'u1')).toBeUndefined();
    } finally {
      await client.end();
    }
  });

  test('a row that is not an entry is an InputError that names the workspace, the row and what to do', async () => {
    const { backend, schema } = fresh();
    const state = await backend.openLocked(lock);
    await state.record(full);
    await state.unlock();
    await sql(db!, `UPDATE "${schema}".entries SET body = '[1]'`);
    // Not `rejects.toThrow`: it passes on a rejection with no value at all.
    const err = await backend.load().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toBe(
      'a row of the state (workspace "default") is not valid (entries["full", "u2"].body is not an object); it was left untouched. Fix it, or remove it with `sessionctl state rm`.',
    );
  });

  test('a read that fails says so, with the SQLSTATE', async () => {
    const { backend, target, schema } = fresh();
    await (await backend.openLocked(lock)).unlock();
    await sql(db!, `DROP TABLE "${schema}".entries`);
    const message = `cannot read the state: relation "${schema}.entries" does not exist (SQLSTATE 42P01)`;
    await expect(backend.load()).rejects.toThrow(message);
    const client = await connectClient(target, db!.env);
    try {
      await expect(readEntry(client, target, 'a', 'u1')).rejects.toThrow(message);
    } finally {
      await client.end();
    }
  });

  test('a reader refuses a state never applied; opened after, it reads what later applies write, the manifest file included', async () => {
    const { backend } = fresh();
    await expect(backend.openReader()).rejects.toThrow('no state is in this database for that schema and workspace: nothing was ever applied there, or the URL is mistyped');
    const first = await backend.openLocked(lock);
    await first.bind({ service: 'https://backend.composio.dev', bound_at: '2026-11-28T10:00:00.000Z' });
    await first.unlock();
    const reader = await backend.openReader();
    expect([await reader.list(), await reader.get('full', 'u2')]).toEqual([[], undefined]);
    const state = await backend.openLocked(lock);
    await state.record(full);
    await state.unlock();
    expect(await reader.list()).toStrictEqual([full]);
    expect(await reader.get('full', 'u2')).toStrictEqual(full);
    await reader.close();
    await expect(reader.list()).rejects.toThrow(/^the state reader is closed$/);
    await expect(reader.get('full', 'u2')).rejects.toThrow(/^the state reader is closed$/);
  });
});
