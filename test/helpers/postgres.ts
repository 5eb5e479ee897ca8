import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { TEST_SCHEMA_PREFIX, testClient, type TestDatabase, type TestPooler } from '../setup/postgres.js';

/**
 * The PostgreSQL server of this run (test/setup/postgres.ts found it), or null when there is none:
 * tests that need it are `describe.skipIf(db === null)` (the setup printed why, once).
 */
export const db: TestDatabase | null = inject('postgres');

/**
 * PgBouncer in transaction mode in front of that server (test/setup/postgres.ts found it), or null:
 * the pooler tests are `describe.skipIf(pgbouncer === null)` (the setup printed why, once).
 */
export const pgbouncer: TestPooler | null = inject('pgbouncer');

/**
 * A schema name no other test (or parallel run) uses. It carries the process id, so that the
 * next run on this machine can drop the schemas of a run that was killed before its tests
 * cleaned up (`sweepDeadRunSchemas` in test/setup/postgres.ts).
 */
export function uniqueSchema(prefix = 't'): string {
  return `${TEST_SCHEMA_PREFIX}${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** The `--state` URL of a schema and workspace on the test server (no password: it is in `db.env`). */
export function stateUrl(database: TestDatabase, schema: string, workspace = 'default'): string {
  return `${database.base}?schema=${schema}&workspace=${workspace}`;
}

/** The `--state` URL of a schema and workspace on the test server, reached through `pooler` (as `name` there). */
export function poolerUrl(database: TestDatabase, pooler: TestPooler, schema: string, workspace = 'default', name = database.env['PGDATABASE']!): string {
  const user = encodeURIComponent(database.env['PGUSER']!);
  return `postgres://${user}@${pooler.host.includes(':') ? `[${pooler.host}]` : pooler.host}:${pooler.port}/${encodeURIComponent(name)}?schema=${schema}&workspace=${workspace}`;
}

/** Runs SQL on the test server as the test role. */
export async function sql<R extends pg.QueryResultRow = pg.QueryResultRow>(database: TestDatabase, text: string, params: unknown[] = []): Promise<R[]> {
  const client = testClient(database);
  await client.connect();
  try {
    return (await client.query<R>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** Drops what a test created. */
export async function dropSchema(database: TestDatabase, schema: string): Promise<void> {
  await sql(database, `DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
}

/**
 * How many connections named `app` (their application_name) are still open, once the server has
 * seen the last ones close: polls until none is left, for about 10 s at most.
 */
export async function openConnections(database: TestDatabase, app: string): Promise<number> {
  let n = -1;
  for (let i = 0; i < 500; i++) {
    n = (await sql<{ n: number }>(database, 'SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [app]))[0]!.n;
    if (n === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return n;
}

/**
 * A login role with no privilege on anything a test made, for what a role without grants is told:
 * one made for the caller when the test role may create roles (`drop` removes it), else the run's
 * SESSIONCTL_TEST_APP_ROLE (`.ci/run` makes sessionctl_test_app; `drop` leaves it); null when
 * neither is there. Its password is the test role's, so `db.env` connects as it too.
 */
export async function roleWithoutGrants(database: TestDatabase): Promise<{ role: string; drop: () => Promise<void> } | null> {
  const [can] = await sql<{ create: boolean }>(database, 'SELECT rolcreaterole OR rolsuper AS create FROM pg_roles WHERE rolname = current_user');
  if (can?.create === true) {
    const role = `sctest_role_${process.pid}_${randomBytes(4).toString('hex')}`;
    const password = database.env['PGPASSWORD'];
    await sql(database, `CREATE ROLE ${pg.escapeIdentifier(role)} LOGIN${password === undefined ? '' : ` PASSWORD ${pg.escapeLiteral(password)}`}`);
    return { role, drop: () => sql(database, `DROP ROLE IF EXISTS ${pg.escapeIdentifier(role)}`).then(() => undefined) };
  }
  const appRole = process.env['SESSIONCTL_TEST_APP_ROLE'];
  return appRole === undefined || appRole === '' ? null : { role: appRole, drop: async () => undefined };
}

/** `url` (a stateUrl) with `role` as its user: the same server, database, schema and workspace. */
export function asRole(database: TestDatabase, url: string, role: string): string {
  return url.replace(`//${encodeURIComponent(database.env['PGUSER']!)}@`, `//${encodeURIComponent(role)}@`);
}
