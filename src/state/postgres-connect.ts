import pg from 'pg';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import pgpass from 'pgpass/lib/helper.js';
import { InputError, StateError } from '../diagnostics/errors.js';
import { cancelBackend, type BackendKey } from './postgres-cancel.js';
import { INSUFFICIENT_PRIVILEGE, Needs, privilegeHint, type Privileges } from './postgres-privileges.js';
import type { PostgresConnection, PostgresTarget } from './postgres-url.js';

/** Seconds to connect (and finish the startup), unless the URL or PGCONNECT_TIMEOUT say otherwise. */
export const DEFAULT_CONNECT_S = 10;
/** pg's message when a statement's `query_timeout` passed. */
const QUERY_TIMEOUT = 'Query read timeout';

/** Seconds one statement may go unanswered, unless the URL's `query_timeout` says otherwise. */
export const DEFAULT_QUERY_S = 60;

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
  const timeout = c.connect_timeout ?? Number(env['PGCONNECT_TIMEOUT']);
  return {
    host: c.host,
    port: c.port,
    user: c.user,
    database: c.database,
    ssl: c.ssl,
    application_name: c.application_name,
    password: () => passwordFor(c, env),
    connectionTimeoutMillis: Number.isFinite(timeout) && timeout > 0 ? timeout * 1000 : DEFAULT_CONNECT_S * 1000,
    // A server that answered the startup and then stalls (or a row lock another session holds)
    // must not hang the run: each statement gets an answer in time, or fails.
    query_timeout: (c.query_timeout ?? DEFAULT_QUERY_S) * 1000,
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
    // A statement whose deadline passed is cancelled at the server too (postgres-cancel.ts).
    const query = this.query.bind(this) as (...args: unknown[]) => unknown;
    const onError = (err: unknown): void => {
      if ((err as Error | null)?.message === QUERY_TIMEOUT) cancelBackend(this as unknown as BackendKey);
    };
    this.query = ((...args: unknown[]) => {
      const last = args[args.length - 1];
      if (typeof last === 'function') {
        args[args.length - 1] = (err: unknown, result: unknown) => {
          onError(err);
          (last as (e: unknown, r: unknown) => void)(err, result);
        };
        return query(...args);
      }
      const result = query(...args) as Promise<unknown> | undefined;
      result?.catch(onError);
      return result;
    }) as typeof this.query;
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

/**
 * "cannot DOING: MESSAGE (SQLSTATE XXXXX)", located at the state's URL (which carries no password).
 * A refused privilege also says which role needs what (`needs`: what the statement does) on which
 * table, schema or database.
 */
export function databaseError(err: unknown, target: PostgresTarget, doing: string, needs: Privileges = Needs.read): InputError {
  if (err instanceof InputError) return err;
  const e = err as { message?: unknown; code?: unknown };
  const state = typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? ` (SQLSTATE ${e.code})` : '';
  const message = typeof e.message === 'string' && e.message !== '' ? deadlineMessage(e.message, target) : String(err);
  const hint = e.code === INSUFFICIENT_PRIVILEGE ? `; ${privilegeHint(message, target, needs)}` : '';
  return new StateError(`cannot ${doing}: ${message}${state}${hint}`, target.location, { cause: err });
}

/** pg's words for a deadline that passed, as what happened and the setting that bounds it. */
function deadlineMessage(message: string, target: PostgresTarget): string {
  if (message === QUERY_TIMEOUT) {
    return `the database did not answer within ${target.connection.query_timeout ?? DEFAULT_QUERY_S} s (a server that stopped answering, or a lock another session holds); query_timeout=SECONDS in the state URL sets this deadline`;
  }
  if (/connection timeout|timeout expired/i.test(message)) {
    return `the database did not complete the connection in time (a server that accepts and never answers, or a network that drops it); connect_timeout=SECONDS in the state URL (else PGCONNECT_TIMEOUT, else ${DEFAULT_CONNECT_S}) sets this deadline`;
  }
  return message;
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
