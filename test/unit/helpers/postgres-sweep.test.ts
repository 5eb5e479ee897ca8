import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { db, dropSchema, sql, uniqueSchema } from '../../helpers/postgres.js';
import { skipBecause } from '../../helpers/skip.js';
import { sweepDeadRunSchemas, testClient } from '../../setup/postgres.js';

/** The run's start drops the test schemas of runs that were killed, and nothing else. */
describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('sweeping test schemas', () => {
  // A process id that is certainly gone: a child that has exited.
  const dead = spawnSync(process.execPath, ['-e', '0']).pid;
  const left = `sctest_killed_${dead}_0badc0de`;
  const live = uniqueSchema('live');
  const foreign = `app_${dead}_0badc0de`;

  afterAll(async () => {
    for (const s of [left, live, foreign]) await dropSchema(db!, s);
  });

  it("drops a killed run's schema; keeps a live run's and one that is not a test schema", async () => {
    const present = async (): Promise<string[]> =>
      (await sql<{ nspname: string }>(db!, 'SELECT nspname FROM pg_namespace WHERE nspname = ANY($1) ORDER BY nspname', [[left, live, foreign]])).map((r) => r.nspname);
    for (const s of [left, live, foreign]) await sql(db!, `CREATE SCHEMA "${s}"`);
    const client = testClient(db!);
    await client.connect();
    try {
      expect(await sweepDeadRunSchemas(client, db!.env['PGHOST'] ?? '')).toBeGreaterThanOrEqual(1);
      expect(await present()).toEqual([foreign, live].sort());
      // A server elsewhere: process ids in names are another machine's, nothing is swept.
      await sql(db!, `CREATE SCHEMA "${left}"`);
      expect(await sweepDeadRunSchemas(client, 'db.example.com')).toBe(0);
      expect(await present()).toEqual([foreign, left, live].sort());
    } finally {
      await client.end();
    }
  });
});
