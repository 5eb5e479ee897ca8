import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { stateBackend } from '../../../src/state/backend.js';
import type { FleetSession, FleetStore } from '../../../src/state/fleet.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { runCli } from '../../helpers/run-cli.js';
import { skipBecause } from '../../helpers/skip.js';
import { removeAllTempDirs, tempDir } from '../../helpers/temp-dir.js';

// ensure's statements on PostgreSQL carry many users at once when calls arrive together: each
// answer must still be the one for its own user, whatever else shares the statement.

const KEY = 'key-of-project-a';
const users = Array.from({ length: 20 }, (_, i) => `user-${i}`);

afterAll(() => removeAllTempDirs());

describe.skipIf(skipBecause(db === null, 'the fleet store on PostgreSQL needs a server (the run printed why there is none)'))('the fleet store on PostgreSQL, calls that share a statement', () => {
  let emulator: RunningEmulator;
  let schema: string;
  let dir: string;
  let store: FleetStore;
  const apply = async (toolkits: string) => {
    writeFileSync(join(dir, 'a.yaml'), `name: agent\nuser_id: <end-user>\ntoolkits: [${toolkits}]\n`);
    const r = await runCli(['apply', 'a.yaml', '--base-url', emulator.url, '--state', stateUrl(db!, schema)], { cwd: dir, env: { ...db!.env, COMPOSIO_API_KEY: KEY } });
    expect(r.exitCode, r.stderr).toBe(0);
  };
  beforeEach(async () => {
    emulator = await startEmulator({ port: 0 });
    schema = uniqueSchema('batch');
    dir = tempDir('batches');
    await apply('gmail');
    store = (await stateBackend(stateUrl(db!, schema), dir, { env: db!.env }).openFleet({ maxConnections: 4 })).fleet;
  });
  afterEach(async () => {
    await store.close();
    await emulator.close();
    await dropSchema(db!, schema);
  });

  const session = (userId: string, claim: string): FleetSession => ({
    name: 'agent',
    user_id: userId,
    session_id: `trs_${claim}`,
    mcp_url: `https://mcp.example/${claim}`,
    tool_router_tools: ['a', claim],
    config_version: 3,
    version: 1,
    body_hash: 'h',
    created_at: null,
  });

  test('claims made together: one per user, a user twice in one batch is claimed once, each caller learns its own outcome and the publication', async () => {
    const calls = [...users, ...users].map((u, i) => store.claim('agent', u, `c${i}`, 10_000));
    const answers = await Promise.all(calls);
    expect(answers.slice(0, 20).map((a) => a.claimed)).toEqual(users.map(() => true));
    expect(answers.slice(20).map((a) => a.claimed)).toEqual(users.map(() => false));
    expect(new Set(answers.map((a) => a.publication?.version))).toEqual(new Set([1]));
    expect(answers[0]!.publication!.body).toEqual({ toolkits: { enable: ['gmail'] }, user_id: '<end-user>' });
    const rows = await sql<{ user_id: string; claim_id: string }>(db!, `SELECT user_id, claim_id FROM "${schema}".fleet ORDER BY user_id`);
    expect(rows.length).toBe(20);
    for (const row of rows) expect(row.claim_id).toBe(`c${users.indexOf(row.user_id)}`);
  });

  test('marks and records made together change only the rows whose claim the caller holds', async () => {
    await Promise.all(users.map((u, i) => store.claim('agent', u, `c${i}`, 10_000)));
    // Every other caller names a claim it does not hold: those rows stay as they are.
    const marks = await Promise.all(users.map((u, i) => store.markSent('agent', u, i % 2 === 0 ? `c${i}` : 'stolen', 60_000)));
    expect(marks).toEqual(users.map((_, i) => i % 2 === 0));
    const done = await Promise.all(users.map((u, i) => store.complete(session(u, `c${i}`), i % 3 === 0 ? 'stolen' : `c${i}`)));
    expect(done).toEqual(users.map((_, i) => i % 3 !== 0));
    const rows = await sql<{ user_id: string; session_id: string; claim_state: string | null; tool_router_tools: string[]; config_version: string }>(
      db!,
      `SELECT user_id, session_id, claim_state, tool_router_tools, config_version FROM "${schema}".fleet ORDER BY user_id`,
    );
    for (const row of rows) {
      const i = users.indexOf(row.user_id);
      if (i % 3 === 0) expect([row.session_id, row.claim_state]).toEqual(['', i % 2 === 0 ? 'sent' : 'claimed']);
      else expect([row.session_id, row.claim_state, row.tool_router_tools, row.config_version]).toEqual([`trs_c${i}`, null, ['a', `c${i}`], '3']);
    }
  });

  test('reads made together answer each user its own row, and nothing for a user without one', async () => {
    await Promise.all(users.map((u, i) => store.claim('agent', u, `c${i}`, 10_000)));
    await Promise.all(users.map((u, i) => store.complete(session(u, `c${i}`), `c${i}`)));
    const read = await Promise.all([...users, 'nobody', 'user-1'].map((u) => store.session('agent', u)));
    expect(read.map((r) => r?.session_id)).toEqual([...users.map((_, i) => `trs_c${i}`), undefined, 'trs_c1']);
    expect(read[5]!.tool_router_tools).toEqual(['a', 'c5']);
    expect(await store.session('other-manifest', 'user-1')).toBeUndefined();
  });

  test('a new publish reaches the next claims: the body is read again when the version moves on', async () => {
    expect((await store.claim('agent', 'early', 'e', 10_000)).publication?.version).toBe(1);
    await apply('gmail, github');
    const after = await Promise.all(['late-1', 'late-2'].map((u) => store.claim('agent', u, u, 10_000)));
    expect(after.map((a) => [a.publication?.version, a.publication?.body['toolkits']])).toEqual([
      [2, { enable: ['gmail', 'github'] }],
      [2, { enable: ['gmail', 'github'] }],
    ]);
  });

  test('a manifest not published takes no claim, in a batch with one that is', async () => {
    const [known, unknown] = await Promise.all([store.claim('agent', 'u', 'a', 10_000), store.claim('not-published', 'u', 'b', 10_000)]);
    expect([known.claimed, known.publication?.name]).toEqual([true, 'agent']);
    expect([unknown.claimed, unknown.publication]).toEqual([false, undefined]);
    expect((await sql(db!, `SELECT name FROM "${schema}".fleet`)).map((r) => r['name'])).toEqual(['agent']);
  });
});
