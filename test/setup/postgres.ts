import pg from 'pg';
import type { TestProject } from 'vitest/node';

/**
 * Finds the PostgreSQL server the state tests use, once per run, from SESSIONCTL_TEST_DATABASE_URL
 * or the libpq variables (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE; `.ci/run` sets them after
 * starting the local server), and hands it to the test files (`inject('postgres')`). Without a
 * server the PostgreSQL tests are skipped and one line says which and why; with CI=true a missing
 * server fails the run instead. The same for PgBouncer in transaction mode in front of that server
 * (SESSIONCTL_TEST_PGBOUNCER=host:port, which `.ci/run` and `.ci/pgbouncer` set), for the pooler
 * tests (`inject('pgbouncer')`).
 */

export interface TestDatabase {
  /** postgres://user@host:port/database, without a password. */
  base: string;
  /** The libpq variables the tests (and the CLI runs they start) connect with, password included. */
  env: Record<string, string>;
}

/** A pooler in front of the test server, for the same database, role and password. */
export interface TestPooler {
  host: string;
  port: number;
  /** The name the pooler serves the same database under in statement mode, if it does (`.ci/pgbouncer`: DATABASE_statement). */
  statementDatabase: string | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestDatabase | null;
    pgbouncer: TestPooler | null;
  }
}

const SKIPPED = 'the PostgreSQL half of test/unit/state/backend-behaviour, test/unit/state/postgres-*, test/e2e/state-*';
const SKIPPED_POOLER = 'test/e2e/state-pooler (PgBouncer in transaction mode)';

function settings(env: NodeJS.ProcessEnv): TestDatabase {
  const fromUrl = env['SESSIONCTL_TEST_DATABASE_URL'];
  if (fromUrl !== undefined && fromUrl !== '') {
    const url = new URL(fromUrl);
    const password = decodeURIComponent(url.password);
    url.password = '';
    const pick = (k: string, v: string) => (v === '' ? {} : { [k]: v });
    return {
      base: `${url.protocol}//${url.username}@${url.host}${url.pathname}`,
      env: { ...pick('PGUSER', decodeURIComponent(url.username)), ...pick('PGHOST', url.hostname), ...pick('PGPORT', url.port), ...pick('PGDATABASE', url.pathname.slice(1)), ...pick('PGPASSWORD', password) },
    };
  }
  const host = env['PGHOST'] || '127.0.0.1';
  const port = env['PGPORT'] || '5432';
  const user = env['PGUSER'] || 'sessionctl_test';
  const database = env['PGDATABASE'] || 'sessionctl_test';
  return {
    base: `postgres://${encodeURIComponent(user)}@${host.includes(':') ? `[${host}]` : host}:${port}/${encodeURIComponent(database)}`,
    env: { PGHOST: host, PGPORT: port, PGUSER: user, PGDATABASE: database, ...(env['PGPASSWORD'] !== undefined ? { PGPASSWORD: env['PGPASSWORD'] } : {}) },
  };
}

/** A pg client (not yet connected) for the test server (or a pooler in front of it), as the test role. */
export function testClient(db: TestDatabase, connectionTimeoutMillis = 10_000, via?: Pick<TestPooler, 'host' | 'port'>, database = db.env['PGDATABASE']): pg.Client {
  const client = new pg.Client({
    host: via?.host ?? db.env['PGHOST'],
    port: via?.port ?? Number(db.env['PGPORT'] ?? 5432),
    user: db.env['PGUSER'],
    database,
    // A function: pg would fill an empty password from this process's own PGPASSWORD or ~/.pgpass.
    // Its undefined is "no password" to pg (Client#_getPassword), which its types leave out.
    password: (() => db.env['PGPASSWORD']) as () => string,
    connectionTimeoutMillis,
  });
  client.on('error', () => undefined);
  return client;
}

/** What every test schema's name starts with (`uniqueSchema`): `sctest_<what>_<pid>_<random>`. */
export const TEST_SCHEMA_PREFIX = 'sctest_';
const TEST_SCHEMA = /^sctest_[a-z]+_([0-9]+)_[0-9a-f]{8}$/;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user has that id, alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Drops the test schemas of runs whose process is gone: a run killed mid-test (a mutation
 * runner past its timeout, Ctrl-C) leaves its schemas behind. Only on a server on this machine,
 * where a process id in a name is one of this machine's; a live run's schemas are never touched.
 */
export async function sweepDeadRunSchemas(client: pg.Client, host: string): Promise<number> {
  if (!/^(localhost|127\.\d+\.\d+\.\d+|::1|\[::1\])$/.test(host)) return 0;
  const { rows } = await client.query<{ nspname: string }>("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'sctest\\_%'");
  let dropped = 0;
  for (const { nspname } of rows) {
    const pid = TEST_SCHEMA.exec(nspname)?.[1];
    if (pid === undefined || alive(Number(pid))) continue;
    await client.query(`DROP SCHEMA IF EXISTS "${nspname}" CASCADE`);
    dropped++;
  }
  return dropped;
}

export default async function setup(project: TestProject): Promise<void> {
  const db = await findDatabase(process.env, (line) => console.log(line));
  project.provide('postgres', db);
  project.provide('pgbouncer', db !== null ? await findPooler(db, process.env) : null);
}

/**
 * The test server of `env`, once a query answers (after dropping the schemas of killed runs); else
 * null, with one line through `log` saying which tests are skipped and why (under CI=true, a
 * failure instead).
 */
export async function findDatabase(env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<TestDatabase | null> {
  const db = settings(env);
  const client = testClient(db, 3000);
  try {
    await client.connect();
    await client.query('SELECT 1');
    const dropped = await sweepDeadRunSchemas(client, db.env['PGHOST'] ?? '');
    if (dropped > 0) log(`postgres: dropped ${dropped} test schema(s) left by runs that were killed`);
    return db;
  } catch (err) {
    const why = unavailable(err, db);
    if (env['CI'] === 'true') throw new Error(`CI=true and ${why}: the PostgreSQL state tests cannot run; .ci/run starts the local server, or set SESSIONCTL_TEST_DATABASE_URL`);
    log(`postgres: skipped ${SKIPPED}: ${why}`);
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** invalid_password: the server answered, and refused the password it was given (or an empty one). */
const INVALID_PASSWORD = '28P01';

/**
 * Why the server of `db` cannot be used, with what to do, for the one skip line. A server that
 * answered and asked for a password when none was given is "no password", the usual slip (an
 * environment without PGPASSWORD), not "no server": pg's "client password must be a string"
 * comes after the server asked for one.
 */
export function unavailable(err: unknown, db: TestDatabase): string {
  const message = (err as Error).message;
  const refused = (err as { code?: unknown }).code === INVALID_PASSWORD;
  if ((db.env['PGPASSWORD'] ?? '') === '' && (refused || /password must be a string/.test(message))) {
    return `no password: the server at ${db.base} answered and asks for one; set PGPASSWORD (or SESSIONCTL_TEST_DATABASE_URL with the password in it)`;
  }
  if (refused) return `the server at ${db.base} refused the password of PGPASSWORD (${message})`;
  return `no PostgreSQL server answered at ${db.base} (${message}); set SESSIONCTL_TEST_DATABASE_URL or PGHOST/PGUSER/PGPASSWORD/PGDATABASE (.ci/run starts the local server)`;
}

/** `database` when the pooler serves it (a query answers), else null. */
async function answers(db: TestDatabase, pooler: Pick<TestPooler, 'host' | 'port'>, database: string): Promise<string | null> {
  const client = testClient(db, 3000, pooler, database);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return database;
  } catch {
    return null;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The PgBouncer of SESSIONCTL_TEST_PGBOUNCER, once it answers a query for the test role; else null (or, under CI, a failure). */
async function findPooler(db: TestDatabase, env: NodeJS.ProcessEnv): Promise<TestPooler | null> {
  const spec = env['SESSIONCTL_TEST_PGBOUNCER'] ?? '';
  const m = /^(.+):(\d+)$/.exec(spec);
  let why: string;
  if (m === null) {
    why = spec === '' ? 'SESSIONCTL_TEST_PGBOUNCER is not set' : `SESSIONCTL_TEST_PGBOUNCER=${spec} is not host:port`;
  } else {
    const pooler = { host: m[1]!, port: Number(m[2]) };
    const client = testClient(db, 3000, pooler);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return { ...pooler, statementDatabase: await answers(db, pooler, `${db.env['PGDATABASE']}_statement`) };
    } catch (err) {
      why = `no PgBouncer answered at ${spec} (${(err as Error).message})`;
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  if (env['CI'] === 'true') throw new Error(`CI=true and ${why}: the pooler tests cannot run; .ci/run starts PgBouncer beside PostgreSQL`);
  console.log(`pgbouncer: skipped ${SKIPPED_POOLER}: ${why}; \`eval "$(bash .ci/pgbouncer)"\` starts one in front of the server of the PG* variables`);
  return null;
}
