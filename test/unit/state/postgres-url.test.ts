import { describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/diagnostics/errors.js';
import { isPostgresUrl, parsePostgresUrl } from '../../../src/state/postgres-url.js';

describe('parsePostgresUrl', () => {
  test('a full URL: every part, and the location is the URL as given', () => {
    const t = parsePostgresUrl('postgres://deploy@db.internal:6543/ops?schema=state_prod&workspace=production&sslmode=verify-full', {});
    expect(t).toEqual({
      location: 'postgres://deploy@db.internal:6543/ops?schema=state_prod&workspace=production&sslmode=verify-full',
      schema: 'state_prod',
      workspace: 'production',
      connection: { host: 'db.internal', port: 6543, user: 'deploy', database: 'ops', ssl: { rejectUnauthorized: true }, application_name: 'sessionctl' },
    });
  });

  test('what the URL leaves out comes from the PG* variables, then the defaults', () => {
    const env = { PGHOST: 'pg.local', PGPORT: '5433', PGUSER: 'ci', PGDATABASE: 'sessions', PGSSLMODE: 'require' };
    expect(parsePostgresUrl('postgresql://', env)).toMatchObject({
      schema: 'sessionctl',
      workspace: 'default',
      connection: { host: 'pg.local', port: 5433, user: 'ci', database: 'sessions', ssl: { rejectUnauthorized: false } },
    });
    expect(parsePostgresUrl('postgres:///mydb', { USER: 'alice' }).connection).toEqual({
      host: 'localhost',
      port: 5432,
      user: 'alice',
      database: 'mydb',
      ssl: false,
      application_name: 'sessionctl',
    });
    expect(parsePostgresUrl('postgres://bob@[::1]/x?host=/ignored', {}).connection.host).toBe('::1');
    expect(parsePostgresUrl('postgres:///x?host=/var/run/postgresql', { PGUSER: 'bob' }).connection.host).toBe('/var/run/postgresql');
    expect(parsePostgresUrl('postgres://b%40corp@h/d%20b', {}).connection).toMatchObject({ user: 'b@corp', database: 'd b' });
  });

  test('a password in the URL is refused, and the message masks it', () => {
    const err = (() => {
      try {
        parsePostgresUrl('postgres://deploy:s3cr3t-Pa55@db/ops', {});
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe('the state URL carries a password (postgres://deploy:****@db/ops); a URL shows in process lists, CI logs and saved plans, so sessionctl refuses it');
    expect((err as UsageError).hint).toMatch(/PGPASSWORD.*PGPASSFILE, default ~\/\.pgpass/);
    expect(JSON.stringify(err) + String(err) + (err as Error).stack).not.toContain('s3cr3t-Pa55');
  });

  test.each([
    ['not a URL', 'postgres://[bad', /is not a valid URL/],
    ['an unknown parameter', 'postgres://u@h/d?search_path=x', /unknown parameter "search_path"/],
    ['a parameter twice', 'postgres://u@h/d?workspace=a&workspace=b', /gives "workspace" more than once/],
    ['a schema that is not a plain name', 'postgres://u@h/d?schema=Public', /schema "Public" is not a plain lower-case SQL name/],
    ['a schema with a quote', 'postgres://u@h/d?schema=a%22b', /is not a plain lower-case SQL name/],
    ['a workspace with a slash', 'postgres://u@h/d?workspace=prod%2Feu', /workspace "prod\/eu" is not a valid name/],
    ['an unsupported sslmode', 'postgres://u@h/d?sslmode=prefer', /sslmode "prefer" is not supported/],
    ['no user anywhere', 'postgres://h/d', /names no database user/],
  ])('%s is a usage error', (_name, url, message) => {
    expect(() => parsePostgresUrl(url, {})).toThrow(message);
  });

  test.each([
    ['an @ in the password', 'postgres://u:p@ss-w0rd@h/d', 'postgres://u:****@h/d', 'p@ss-w0rd'],
    ['a percent-encoded password', 'postgres://u:p%2Fss-w0rd@h/d', 'postgres://u:****@h/d', 'p%2Fss-w0rd'],
  ])('the password is masked whole: %s', (_name, url, shown, secret) => {
    expect(() => parsePostgresUrl(url, {})).toThrow(`(${shown})`);
    expect(() => parsePostgresUrl(url, {})).not.toThrow(secret);
  });

  test('a URL that does not parse is not echoed (it may hold a password)', () => {
    expect(() => parsePostgresUrl('postgres://u:pa/ss-w0rd@h/d', {})).toThrow(/^the state URL is not a valid URL$/);
  });

  /** The UsageError a URL gets, as message and hint. */
  function refusal(url: string, env: Record<string, string> = {}): [string, string | undefined] {
    let caught: unknown;
    try {
      parsePostgresUrl(url, env);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(UsageError);
    return [(caught as UsageError).message, (caught as UsageError).hint];
  }

  test.each<[string, string, Record<string, string>, string, string | undefined]>([
    ['not a URL', 'postgres://[bad', {}, 'the state URL is not a valid URL', 'write it as postgres://USER@HOST:5432/DATABASE?schema=sessionctl&workspace=production (special characters percent-encoded)'],
    ['an unknown parameter', 'postgres://u@h/d?search_path=x', {}, 'the state URL has an unknown parameter "search_path"', 'the parameters it takes: schema, workspace, sslmode, host, application_name, connect_timeout, query_timeout'],
    ['a parameter twice', 'postgres://u@h/d?workspace=a&workspace=b', {}, 'the state URL gives "workspace" more than once', undefined],
    ['a schema that is not a plain name', 'postgres://u@h/d?schema=Public', {}, 'the state schema "Public" is not a plain lower-case SQL name', 'use letters a-z, digits and _, starting with a letter or _ (at most 63)'],
    ['a workspace with a slash', 'postgres://u@h/d?workspace=prod%2Feu', {}, 'the state workspace "prod/eu" is not a valid name', 'use letters, digits, ".", "_" and "-", starting with a letter or digit (at most 63), such as staging or production'],
    ['no user anywhere', 'postgres://h/d', {}, 'the state URL names no database user', 'write it as postgres://USER@HOST/DATABASE, or set PGUSER'],
    ['an empty user from the environment', 'postgres://h/d', { LOGNAME: '' }, 'the state URL names no database user', 'write it as postgres://USER@HOST/DATABASE, or set PGUSER'],
    ['port 0 from PGPORT', 'postgres://u@h/d', { PGPORT: '0' }, 'the database port "0" is not a port number', undefined],
    ['port 65536 from PGPORT', 'postgres://u@h/d', { PGPORT: '65536' }, 'the database port "65536" is not a port number', undefined],
    ['a port that starts with a letter', 'postgres://u@h/d', { PGPORT: 'x5432' }, 'the database port "x5432" is not a port number', undefined],
    ['a port that ends with a letter', 'postgres://u@h/d', { PGPORT: '5432x' }, 'the database port "5432x" is not a port number', undefined],
    ['an unsupported sslmode', 'postgres://u@h/d?sslmode=prefer', {}, 'sslmode "prefer" is not supported', 'use one of: disable, require, verify-full'],
  ])('%s: the message and the hint, exactly', (_name, url, env, message, hint) => {
    expect(refusal(url, env)).toStrictEqual([message, hint]);
  });

  test('the port range ends at 1 and 65535; an empty parameter is the default', () => {
    expect(parsePostgresUrl('postgres://u@h/d', { PGPORT: '65535' }).connection.port).toBe(65535);
    expect(parsePostgresUrl('postgres://u@h/d', { PGPORT: '1' }).connection.port).toBe(1);
    expect(parsePostgresUrl('postgres://u@h:7/d', { PGPORT: 'x' }).connection.port).toBe(7);
    expect(parsePostgresUrl('postgres://h/d', { LOGNAME: 'carol' }).connection.user).toBe('carol');
    expect(parsePostgresUrl('postgres://h/d', { USER: 'dave', LOGNAME: 'carol' }).connection.user).toBe('dave');
    const t = parsePostgresUrl('postgres://u@h/d?schema=&workspace=&sslmode=&application_name=', { PGSSLMODE: 'require' });
    expect([t.schema, t.workspace, t.connection.ssl, t.connection.application_name]).toStrictEqual(['sessionctl', 'default', { rejectUnauthorized: false }, 'sessionctl']);
  });

  test('isPostgresUrl', () => {
    expect(['postgres://x', 'POSTGRESQL://x', 'state.json', './postgres://x', 'postgres:x'].map(isPostgresUrl)).toEqual([true, true, false, false, false]);
  });
});
