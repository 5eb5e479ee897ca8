import { writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { InputError } from '../../../src/diagnostics/errors.js';
import { clientConfig, connectClient, databaseError, openPool, readOnly, sqlState, table } from '../../../src/state/postgres-connect.js';
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
const saved = { PGPASSFILE: process.env['PGPASSFILE'], PGPASSWORD: process.env['PGPASSWORD'], PGOPTIONS: process.env['PGOPTIONS'] };
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('clientConfig', () => {
  test('every setting explicit, and no startup parameter a pooler refuses (`options`)', () => {
    const { password, ...rest } = clientConfig(target, {});
    expect(rest).toStrictEqual({
      host: 'db.invalid',
      port: 6543,
      user: 'alice',
      database: 'app',
      ssl: { rejectUnauthorized: false },
      application_name: 'ci',
      connectionTimeoutMillis: 10_000,
      query_timeout: 60_000,
      keepAlive: true,
    });
    expect(typeof password).toBe('function');
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
    const pool = openPool(target, {}, 3);
    const options = (pool as unknown as { options: Record<string, unknown> }).options;
    expect([options['max'], options['idleTimeoutMillis'], options['host'], 'options' in options]).toEqual([3, 10_000, 'db.invalid', false]);
    await pool.end();
  });
});

/**
 * The parameters of the startup message a connection sends, read by a server on loopback that
 * then refuses it (an ErrorResponse, as a server refusing a login answers).
 */
async function startupParameters(connect: (port: number) => Promise<unknown>): Promise<{ parameters: Record<string, string>; error: unknown }> {
  let message: Buffer | undefined;
  const server = createServer((socket) => {
    let got = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (message !== undefined || got.length < 4 || got.length < got.readInt32BE(0)) return;
      message = got.subarray(0, got.readInt32BE(0));
      const fields = Buffer.from('SFATAL\0C28000\0Mnot today\0\0');
      const reply = Buffer.alloc(5 + fields.length);
      reply.write('E');
      reply.writeInt32BE(4 + fields.length, 1);
      fields.copy(reply, 5);
      socket.end(reply);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const error = await connect((server.address() as AddressInfo).port).then(() => undefined, (e: unknown) => e);
  await new Promise((done) => server.close(done));
  // Length, protocol 3.0, then name and value pairs, each ended by a zero byte, and one more.
  expect(message!.readInt32BE(4)).toBe(196608);
  const words = message!.subarray(8, message!.length - 2).toString('utf8').split('\0');
  const parameters: Record<string, string> = {};
  for (let i = 0; i < words.length; i += 2) parameters[words[i]!] = words[i + 1]!;
  return { parameters, error };
}

describe('what a connection sends at startup', () => {
  test('user, database, application_name and client_encoding (all of which PgBouncer keeps per client), nothing else: no `options` (a stock PgBouncer refuses it), not even from the process PGOPTIONS', async () => {
    process.env['PGOPTIONS'] = '-c synchronous_commit=off';
    const at = (port: number) => parsePostgresUrl(`postgres://alice@127.0.0.1:${port}/app?application_name=ci`, {});
    const direct = await startupParameters((port) => connectClient(at(port), { PGPASSWORD: 'x' }));
    expect(direct.parameters).toStrictEqual({ user: 'alice', database: 'app', application_name: 'ci', client_encoding: 'UTF8' });
    expect((direct.error as InputError).message).toBe('cannot connect to the state database: not today (SQLSTATE 28000)');
    const pooled = await startupParameters(async (port) => {
      const pool = openPool(at(port), { PGPASSWORD: 'x' }, 1);
      try {
        await pool.query('SELECT 1');
      } finally {
        await pool.end();
      }
    });
    expect(pooled.parameters).toStrictEqual({ user: 'alice', database: 'app', application_name: 'ci', client_encoding: 'UTF8' });
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

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('readOnly, the runner of the application\'s lookups', () => {
  test('values travel as literals, whatever they hold: quotes, backslashes, a $2, NULL', async () => {
    const pool = openPool(parsePostgresUrl(stateUrl(db!, uniqueSchema('connect')), db!.env), db!.env, 1);
    const values = ["it's", 'back\\slash \\\' E\'', '$2', null, 'é ✓'];
    const r = await readOnly(pool).query('SELECT $1::text AS a, $2::text AS b, $3::text AS c, $4::text AS d, $5::text AS e, $10::text AS j', [...values, 0, 0, 0, 0, 'ten']);
    expect(r.rows).toEqual([{ a: values[0], b: values[1], c: '$2', d: null, e: 'é ✓', j: 'ten' }]);
    await pool.end();
  });

  test('each query is one read-only transaction, and leaves its connection as it was', async () => {
    const pool = openPool(parsePostgresUrl(stateUrl(db!, uniqueSchema('connect')), db!.env), db!.env, 1);
    const setting = 'SELECT current_setting($1) AS v';
    expect((await readOnly(pool).query<{ v: string }>(setting, ['transaction_read_only'])).rows).toEqual([{ v: 'on' }]);
    await expect(readOnly(pool).query('CREATE TEMP TABLE t (x int)')).rejects.toThrow('cannot execute CREATE TABLE in a read-only transaction');
    // The pool's one connection: neither read-only nor inside a transaction after either.
    expect((await pool.query<{ v: string }>(setting, ['transaction_read_only'])).rows).toEqual([{ v: 'off' }]);
    await pool.query('CREATE TEMP TABLE t (x int)');
    await pool.end();
  });
});
