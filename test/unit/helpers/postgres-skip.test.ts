import { describe, expect, it } from 'vitest';
import { db } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';
import { findDatabase } from '../../setup/postgres.js';

/**
 * `npm test` without the server's password: the PostgreSQL tests are skipped with one line that
 * says "no password", since the server did answer (issue 30). Against this run's server, asked
 * again with the same settings minus the password.
 */
describe.skipIf(skipBecause(db === null || (db.env['PGPASSWORD'] ?? '') === '', 'needs a PostgreSQL server that asks for a password (the run printed why there is none)'))('the skip line of a run without a password', () => {
  it('is one line that says "no password" and how to give one', async () => {
    const { PGPASSWORD: _, ...withoutPassword } = db!.env;
    const lines: string[] = [];
    expect(await findDatabase(withoutPassword, (line) => lines.push(line))).toBeNull();
    expect(lines).toStrictEqual([
      `postgres: skipped the PostgreSQL half of test/unit/state/backend-behaviour, test/unit/state/postgres-*, test/e2e/state-*: no password: the server at ${db!.base} answered and asks for one; set PGPASSWORD (or SESSIONCTL_TEST_DATABASE_URL with the password in it)`,
    ]);
  });

  it('under CI=true, fails the run with the same words', async () => {
    const { PGPASSWORD: _, ...withoutPassword } = db!.env;
    await expect(findDatabase({ ...withoutPassword, CI: 'true' }, () => undefined)).rejects.toThrow(
      `CI=true and no password: the server at ${db!.base} answered and asks for one; set PGPASSWORD (or SESSIONCTL_TEST_DATABASE_URL with the password in it): the PostgreSQL state tests cannot run`,
    );
  });

  it('with a wrong password, says that the server refused it', async () => {
    const lines: string[] = [];
    expect(await findDatabase({ ...db!.env, PGPASSWORD: 'not-the-password' }, (line) => lines.push(line))).toBeNull();
    expect(lines).toStrictEqual([
      `postgres: skipped the PostgreSQL half of test/unit/state/backend-behaviour, test/unit/state/postgres-*, test/e2e/state-*: the server at ${db!.base} refused the password of PGPASSWORD (password authentication failed for user "${db!.env['PGUSER']}")`,
    ]);
  });

  it('with the password, finds the server and prints nothing', async () => {
    const lines: string[] = [];
    expect(await findDatabase(db!.env, (line) => lines.push(line))).toStrictEqual(db);
    expect(lines).toStrictEqual([]);
  });
});
