import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { InputError } from '../../../src/diagnostics/errors.js';
import { clientConfig, connectClient, databaseError, openPool, sqlState, table } from '../../../src/state/postgres-connect.js';
import { parsePostgresUrl } from '../../../src/state/postgres-url.js';
import { db, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The connection settings of a PostgreSQL state (every one explicit, the password asked for only
 * when wanted), the errors as the user reads them, and a connection that fails (a closed port on
 * loopback: no server needed).
 */

const target = parsePostgresUrl('postgres://alice@db.invalid:6543/app?schema=s_1&workspace=prod&sslmode=require&application_name=ci', {});
const saved = { PGPASSFILE: process.env['PGPASSFILE'], PGPASSWORD: process.env['PGPASSWORD'] };
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('clientConfig', () => {
  test('every setting explicit; a commit waits for the disk; read-only when asked', () => {
    const { password, ...rest } = clientConfig(target, {});
    expect(rest).toStrictEqual({
      host: 'db.invalid',
      port: 6543,
      user: 'alice',
      database: 'app',
      ssl: { rejectUnauthorized: false },
      application_name: 'ci',
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      options: '-c synchronous_commit=on',
    });
    expect(typeof password).toBe('function');
    expect(clientConfig(target, {}, { readOnly: true }).options).toBe('-c default_transaction_read_only=on');
    expect(clientConfig(target, {}, { readOnly: false }).options).toBe('-c synchronous_commit=on');
  });

  test.each([
    ['5', 5000],
    ['0.5', 500],
    ['0', 10_000],
    ['-3', 10_000],
    ['soon', 10_000],
    ['Infinity', 10_000],
  ])('PGCONNECT_TIMEOUT=%s: %d ms', (value, ms) => {
    expect(clientConfig(target, { PGCONNECT_TIMEOUT: value }).connectionTimeoutMillis).toBe(ms);
  });

  test('the password: PGPASSWORD (even empty), else the password file, else an error that says where to put it', async () => {
    const ask = (env: Record<string, string>) => (clientConfig(target, env).password as () => Promise<string>)();
    expect(await ask({ PGPASSWORD: 'from-env' })).toBe('from-env');
    expect(await ask({ PGPASSWORD: '' })).toBe('');
    // The pgpass module ignores the file while the process has PGPASSWORD (as libpq would).
    delete process.env['PGPASSWORD'];
    const home = tempDir('pgpass');
    const file = join(home, 'pgpass');
    writeFileSync(file, 'db.invalid:6543:app:alice:from-file\n', { mode: 0o600 });
    expect(await ask({ PGPASSFILE: file })).toBe('from-file');
    writeFileSync(file, 'db.invalid:6543:app:bob:not-alice\n', { mode: 0o600 });
    await expect(ask({ PGPASSFILE: file })).rejects.toThrow(
      /^the database asks for a password for user "alice" and none is set: set PGPASSWORD, or add a line for it to the password file \(PGPASSFILE, default ~\/\.pgpass\)$/,
    );
    // Without PGPASSFILE, .pgpass in the run's HOME; a file others can read is ignored.
    writeFileSync(join(home, '.pgpass'), '*:*:*:alice:from-home\n', { mode: 0o600 });
    expect(await ask({ HOME: home })).toBe('from-home');
    writeFileSync(join(home, 'open'), '*:*:*:alice:too-open\n', { mode: 0o644 });
    await expect(ask({ PGPASSFILE: join(home, 'open') })).rejects.toThrow(/^the database asks for a password/);
  });

  test("the password file is the run's: the process's PGPASSFILE is not read", async () => {
    const ask = (env: Record<string, string>) => (clientConfig(target, env).password as () => Promise<string>)();
    delete process.env['PGPASSWORD'];
    const dir = tempDir('pgpass-process');
    writeFileSync(join(dir, 'process'), 'db.invalid:6543:app:alice:from-process\n', { mode: 0o600 });
    writeFileSync(join(dir, 'run'), 'db.invalid:6543:app:alice:from-run\n', { mode: 0o600 });
    process.env['PGPASSFILE'] = join(dir, 'process');
    expect(await ask({ PGPASSFILE: join(dir, 'run') })).toBe('from-run');
    await expect(ask({ HOME: dir })).rejects.toThrow(/^the database asks for a password/);
  });

  test('a pool of `max` connections with the same settings', async () => {
    const pool = openPool(target, {}, 3, { readOnly: true });
    const options = (pool as unknown as { options: Record<string, unknown> }).options;
    expect([options['max'], options['idleTimeoutMillis'], options['host'], options['options']]).toEqual([3, 10_000, 'db.invalid', '-c default_transaction_read_only=on']);
    await pool.end();
  });
});

describe('errors as the user reads them', () => {
  test('what was being done, the message, the SQLSTATE when there is one; located at the state', () => {
    const e = databaseError(Object.assign(new Error('relation "x" does not exist'), { code: '42P01' }), target, 'read the state');
    expect([e.message, e.file, e.cause instanceof Error]).toEqual(['cannot read the state: relation "x" does not exist (SQLSTATE 42P01)', target.location, true]);
    expect(databaseError(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }), target, 'connect').message).toBe('cannot connect: refused');
    expect(databaseError(Object.assign(new Error('odd'), { code: '4201' }), target, 'x').message).toBe('cannot x: odd');
    expect(databaseError(Object.assign(new Error('odd'), { code: 42601 }), target, 'x').message).toBe('cannot x: odd');
    expect(databaseError(new Error(''), target, 'x').message).toBe('cannot x: Error');
    expect(databaseError('a string', target, 'x').message).toBe('cannot x: a string');
    expect(databaseError({ message: 7 }, target, 'x').message).toBe('cannot x: [object Object]');
    const already = new InputError('said already', 'f');
    expect(databaseError(already, target, 'x')).toBe(already);
  });

  test('sqlState: the code when it is a string', () => {
    expect([sqlState({ code: '55P03' }), sqlState({ code: 1 }), sqlState(null), sqlState(undefined), sqlState(new Error('x'))]).toEqual(['55P03', undefined, undefined, undefined, undefined]);
  });

  test('table names are schema-qualified and quoted', () => {
    expect(table(target, 'entries')).toBe('"s_1"."entries"');
  });

  test('a server that does not answer: an InputError that names the state and what failed', async () => {
    const closed = parsePostgresUrl('postgres://alice@127.0.0.1:1/app', {});
    const err = await connectClient(closed, { PGPASSWORD: 'x' }).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect([(err as InputError).message, (err as InputError).file]).toEqual(['cannot connect to the state database: connect ECONNREFUSED 127.0.0.1:1', closed.location]);
  });
});

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('an idle connection the server ends', () => {
  test('does not end the process (an error event with no listener would): the next query on it fails', async () => {
    const live = parsePostgresUrl(stateUrl(db!, uniqueSchema('connect')), db!.env);
    const client = await connectClient(live, db!.env);
    const pool = openPool(live, db!.env, 1);
    const pooled = await pool.connect();
    const [a, b] = [(await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid, (await pooled.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid];
    pooled.release();
    const closed = Promise.all([new Promise((r) => client.once('end', r)), new Promise((r) => pool.once('remove', r))]);
    await sql(db!, 'SELECT pg_terminate_backend($1, 5000), pg_terminate_backend($2, 5000)', [a, b]);
    await closed;
    await expect(client.query('SELECT 1')).rejects.toThrow(/Connection terminated|not queryable/);
    await client.end().catch(() => undefined);
    await pool.end();
  });
});
