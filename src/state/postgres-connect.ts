import pg from 'pg';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import pgpass from 'pgpass/lib/helper.js';
import { InputError, StateError } from '../diagnostics/errors.js';
import type { PostgresConnection, PostgresTarget } from './postgres-url.js';

/** The environment the connection reads PGPASSWORD and PGCONNECT_TIMEOUT from. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * pg's settings for a target: everything explicit (pg would otherwise fill gaps from
 * `process.env` itself), the password asked for only when the server wants one, and TCP
 * keep-alive so a dead peer is noticed. No `options` startup parameter and nothing else a pooler
 * may refuse or pass to another client's connection (PgBouncer refuses `options` unless told to
 * ignore it): what a transaction needs (`synchronous_commit`, read-only) it sets for itself.
 */
export function clientConfig(target: PostgresTarget, env: Env): pg.ClientConfig {
  const c = target.connection;
  const timeout = Number(env['PGCONNECT_TIMEOUT']);
  return {
    host: c.host,
    port: c.port,
    user: c.user,
    database: c.database,
    ssl: c.ssl,
    application_name: c.application_name,
    password: () => passwordFor(c, env),
    connectionTimeoutMillis: Number.isFinite(timeout) && timeout > 0 ? timeout * 1000 : 10_000,
    keepAlive: true,
  };
}

/**
 * pg's Client, sending no `options` at all: pg fills a setting left empty from the process's own
 * environment, and a PGOPTIONS there (not the run's, and refused by a transaction-mode pooler)
 * would go out with every connection.
 */
class Client extends pg.Client {
  constructor(config?: pg.ClientConfig) {
    super(config);
    (this as unknown as { connectionParameters: { options?: string } }).connectionParameters.options = undefined;
  }
}

/**
 * PGPASSWORD, else the password file (PGPASSFILE, default ~/.pgpass, read by the `pgpass` module as
 * libpq reads it). Never from the URL, never printed.
 */
async function passwordFor(c: PostgresConnection, env: Env): Promise<string> {
  const fromEnv = env['PGPASSWORD'];
  if (fromEnv !== undefined) return fromEnv;
  const fromFile = await passwordFromFile(c, env);
  if (fromFile !== undefined) return fromFile;
  throw new Error(`the database asks for a password for user "${c.user}" and none is set: set PGPASSWORD, or add a line for it to the password file (PGPASSFILE, default ~/.pgpass)`);
}

/**
 * The password file's line for the connection, read by the `pgpass` module's own helpers (its
 * entry point reads PGPASSFILE and HOME from `process.env`; the run's environment is injected).
 * The module ignores a file that others can read, as libpq does, and says so on standard error.
 */
async function passwordFromFile(c: PostgresConnection, env: Env): Promise<string | undefined> {
  const file = pgpass.getFileName({ ...env, HOME: env['HOME'] ?? homedir() });
  let info;
  try {
    info = await stat(file);
  } catch {
    return undefined;
  }
  if (!pgpass.usePgPass(info, file)) return undefined;
  return new Promise<string | undefined>((done) => pgpass.getPassword({ host: c.host, port: c.port, database: c.database, user: c.user }, createReadStream(file), done));
}

/** A connected client; every failure is an InputError that names the state and what was being done. */
export async function connectClient(target: PostgresTarget, env: Env): Promise<pg.Client> {
  const client = new Client(clientConfig(target, env));
  // An error on an idle connection is an event, not a rejection: without a listener it would end
  // the process. The next query on the client fails and reports it.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw databaseError(err, target, 'connect to the state database');
  }
  return client;
}

/** A pool of `max` connections for concurrent writes or lookups. */
export function openPool(target: PostgresTarget, env: Env, max: number): pg.Pool {
  const pool = new pg.Pool({ ...clientConfig(target, env), max, idleTimeoutMillis: 10_000, Client });
  pool.on('error', () => undefined);
  return pool;
}

/** What runs one statement: a client, a pool, or the lookups' read-only runner (`readOnly`). */
export interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/**
 * The runner of the application's lookups, which must never write: each query goes as one
 * simple-protocol message, `SET TRANSACTION READ ONLY; <query>`, its values inlined as literals
 * (`escapeLiteral`; extended-protocol parameters cannot travel with a second statement). That is
 * one implicit transaction, read-only (a view or function that would write is refused), in one
 * round trip, leaving nothing on the connection: it holds through any pooler, statement pooling
 * too, which refuses an explicit BEGIN.
 */
export function readOnly(db: Pick<pg.Pool, 'query'>): Queryable {
  return {
    query: async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
      const inlined = text.replace(/\$(\d+)\b/g, (_, n: string) => literal(values[Number(n) - 1]));
      const results = (await db.query(`SET TRANSACTION READ ONLY; ${inlined}`)) as unknown as Array<pg.QueryResult<R>>;
      return results[results.length - 1]!;
    },
  };
}

function literal(value: unknown): string {
  return value === null || value === undefined ? 'NULL' : pg.escapeLiteral(String(value));
}

/** "cannot DOING: MESSAGE (SQLSTATE XXXXX)", located at the state's URL (which carries no password). */
export function databaseError(err: unknown, target: PostgresTarget, doing: string): InputError {
  if (err instanceof InputError) return err;
  const e = err as { message?: unknown; code?: unknown };
  const state = typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? ` (SQLSTATE ${e.code})` : '';
  const message = typeof e.message === 'string' && e.message !== '' ? e.message : String(err);
  return new StateError(`cannot ${doing}: ${message}${state}`, target.location, { cause: err });
}

/** The SQLSTATE of a database error, or undefined. */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A schema-qualified, quoted table name. */
export function table(target: PostgresTarget, name: string): string {
  return `${pg.escapeIdentifier(target.schema)}.${pg.escapeIdentifier(name)}`;
}
