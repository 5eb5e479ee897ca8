import { UsageError } from '../diagnostics/errors.js';

/** How to reach the database, without the password (that comes from PGPASSWORD or a password file). */
export interface PostgresConnection {
  host: string;
  port: number;
  user: string;
  database: string;
  /** false, or TLS options: `require` encrypts without checking the certificate, `verify-full` checks it. */
  ssl: false | { rejectUnauthorized: boolean };
  application_name: string;
  /** `connect_timeout` in the URL, seconds: the connection and its startup (else PGCONNECT_TIMEOUT, else 10). */
  connect_timeout?: number;
  /** `query_timeout` in the URL, seconds: how long one statement may go unanswered (default 60). */
  query_timeout?: number;
}

/** A `postgres://` state: where the database is, and which schema and workspace in it. */
export interface PostgresTarget {
  /** The URL as given (it carries no password): the backend's location in messages and saved plans. */
  location: string;
  schema: string;
  workspace: string;
  connection: PostgresConnection;
}

export const DEFAULT_SCHEMA = 'sessionctl';
export const DEFAULT_WORKSPACE = 'default';

const PARAMS = ['schema', 'workspace', 'sslmode', 'host', 'application_name', 'connect_timeout', 'query_timeout'] as const;
const SSL_MODES = ['disable', 'require', 'verify-full'] as const;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const WORKSPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Whether a `--state` value names a PostgreSQL state rather than a file. */
export function isPostgresUrl(spec: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(spec);
}

/**
 * Reads a `postgres://[user@]host[:port]/database?schema=...&workspace=...` state URL. What the URL
 * leaves out comes from the libpq variables in `env` (PGHOST, PGPORT, PGUSER, PGDATABASE,
 * PGSSLMODE), then libpq's defaults. A password in the URL is refused: the URL shows in process
 * lists, CI logs, shell history and saved plans, so the password goes in PGPASSWORD or a password
 * file (PGPASSFILE, default ~/.pgpass) instead.
 */
export function parsePostgresUrl(spec: string, env: Readonly<Record<string, string | undefined>>): PostgresTarget {
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    // Not echoed: a URL that does not parse cannot be told apart from a password safely.
    throw new UsageError('the state URL is not a valid URL', 'write it as postgres://USER@HOST:5432/DATABASE?schema=sessionctl&workspace=production (special characters percent-encoded)');
  }
  if (url.password !== '') {
    const masked = new URL(url.href);
    masked.password = '****';
    throw new UsageError(
      `the state URL carries a password (${masked.href}); a URL shows in process lists, CI logs and saved plans, so sessionctl refuses it`,
      'remove the password from the URL and set PGPASSWORD (from a CI secret), or put it in a password file (PGPASSFILE, default ~/.pgpass)',
    );
  }
  for (const key of new Set(url.searchParams.keys())) {
    if (!(PARAMS as readonly string[]).includes(key)) {
      throw new UsageError(`the state URL has an unknown parameter "${key}"`, `the parameters it takes: ${PARAMS.join(', ')}`);
    }
    if (url.searchParams.getAll(key).length > 1) throw new UsageError(`the state URL gives "${key}" more than once`);
  }
  const param = (key: (typeof PARAMS)[number]): string | undefined => {
    const v = url.searchParams.get(key);
    return v === null || v === '' ? undefined : v;
  };
  const schema = param('schema') ?? DEFAULT_SCHEMA;
  if (!SCHEMA_NAME.test(schema)) throw new UsageError(`the state schema "${schema}" is not a plain lower-case SQL name`, 'use letters a-z, digits and _, starting with a letter or _ (at most 63)');
  const workspace = param('workspace') ?? DEFAULT_WORKSPACE;
  if (!WORKSPACE_NAME.test(workspace)) throw new UsageError(`the state workspace "${workspace}" is not a valid name`, 'use letters, digits, ".", "_" and "-", starting with a letter or digit (at most 63), such as staging or production');
  const user = decodedPart(url.username, 'user') || env['PGUSER'] || env['USER'] || env['LOGNAME'];
  if (user === undefined || user === '') throw new UsageError('the state URL names no database user', 'write it as postgres://USER@HOST/DATABASE, or set PGUSER');
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const portText = url.port || env['PGPORT'] || '5432';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port < 1 || port > 65535) throw new UsageError(`the database port "${portText}" is not a port number`);
  const database = decodedPart(url.pathname.replace(/^\//, ''), 'database name') || env['PGDATABASE'] || user;
  const sslmode = param('sslmode') ?? env['PGSSLMODE'] ?? 'disable';
  if (!(SSL_MODES as readonly string[]).includes(sslmode)) throw new UsageError(`sslmode "${sslmode}" is not supported`, `use one of: ${SSL_MODES.join(', ')}`);
  return {
    location: url.toString(),
    schema,
    workspace,
    connection: {
      host: hostname || param('host') || env['PGHOST'] || 'localhost',
      port,
      user,
      database,
      ssl: sslmode === 'disable' ? false : { rejectUnauthorized: sslmode === 'verify-full' },
      application_name: param('application_name') ?? 'sessionctl',
      ...seconds('connect_timeout', param('connect_timeout')),
      ...seconds('query_timeout', param('query_timeout')),
    },
  };
}

/**
 * A percent-encoded part of the state URL, decoded. A malformed escape (`%zz`, a `%` at the end,
 * bytes that are not UTF-8) or a control character once decoded is a usage error naming the part,
 * never an exception: the part itself is not shown, as it sits beside where a password would be.
 */
function decodedPart(part: string, what: string): string {
  let value: string;
  try {
    value = decodeURIComponent(part);
  } catch {
    throw new UsageError(`the state URL's ${what} has a malformed percent-escape (a % not followed by two hex digits of UTF-8)`, 'percent-encode special characters in it: % as %25, @ as %40, / as %2F, : as %3A');
  }
  if (/[\u0000-\u001f\u007f]/.test(value)) throw new UsageError(`the state URL's ${what} holds a control character once decoded`, 'write the name without control characters (%00 to %1F, %7F)');
  return value;
}

/**
 * A deadline of the URL, in whole seconds from 1 to 3600. Never 0: libpq reads a connect_timeout
 * of 0 as "wait for ever", and a database that stops answering must not hang a run.
 */
function seconds(key: 'connect_timeout' | 'query_timeout', value: string | undefined): { connect_timeout?: number; query_timeout?: number } {
  if (value === undefined) return {};
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 3600) throw new UsageError(`the state URL's ${key} "${value}" is not a whole number of seconds from 1 to 3600`, `such as ${key}=${key === 'connect_timeout' ? 10 : 60}`);
  return { [key]: n };
}
