import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
// Only the package's public entry, as an application imports it (package.json "exports" -> dist).
import { InputError, openState, StateError, startEmulator, type RunningEmulator } from 'sessionctl';
import { stateBackend } from '../../src/state/backend.js';
import { lockOwner } from '../../src/state/lock.js';
import { db, dropSchema, stateUrl, uniqueSchema } from '../helpers/postgres.js';
import { runCli } from '../helpers/run-cli.js';
import { writeManifests } from './state-processes.js';
import { skipBecause } from '../helpers/skip.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The application's lookup: `openState(url).lookup(name, userId)` reads the state the pipeline's
 * `sessionctl apply` wrote (PostgreSQL on the real server of this run, and a state file), with
 * no lock: it answers while an apply holds the lock.
 */

const KEY = 'ak_open_state_000001';
const schema = uniqueSchema('lookup');
let dir: string;
let emu: RunningEmulator;

beforeAll(async () => {
  dir = tempDir('open-state');
  await writeManifests(dir, 3);
  emu = await startEmulator({ port: 0, apiKeys: [KEY] });
});
afterAll(async () => {
  await emu.close();
  await rm(dir, { recursive: true, force: true });
  if (db !== null) await dropSchema(db, schema);
});

const kinds = [
  { name: 'postgres', skip: db === null, state: () => stateUrl(db!, schema, 'production'), env: db?.env ?? {} },
  { name: 'file', skip: false, state: () => join(dir, 'deployed', 'state.json'), env: {} as Record<string, string> },
];

describe.each(kinds)('openState on $name', (kind) => {
  test.skipIf(skipBecause(kind.skip, 'needs a PostgreSQL server (the run printed why there is none)'))('before any apply: refused (a mistyped state is not an empty one); after it: every manifest for its user, while an apply holds the lock too', async () => {
    const before = await openState(kind.state(), { env: kind.env, cwd: dir }).then(() => undefined, (e: unknown) => e);
    expect((before as Error).message).toBe(
      kind.name === 'file'
        ? 'no state file is there: nothing was ever applied with this state, or the path is mistyped (a pipeline must restore or share its state: see PostgreSQL in docs/state.md)'
        : 'no state is in this database for that schema and workspace: nothing was ever applied there, or the URL is mistyped',
    );
    const applied = await runCli(['apply', 'm', '--state', kind.state(), '--base-url', emu.url, '--format', 'json'], { cwd: dir, env: { ...kind.env, COMPOSIO_API_KEY: KEY } });
    expect(applied.exitCode, applied.stderr).toBe(0);
    const state = await openState(kind.state(), { env: kind.env, cwd: dir });
    try {
      expect(state.location).toBe(kind.state());
      const items = (JSON.parse(applied.stdout) as { applied: { items: Array<{ name: string; user_id: string; session_id: string; mcp_url: string }> } }).applied.items;

      const holder = await stateBackend(kind.state(), dir, { env: kind.env }).openLocked({ owner: lockOwner(process.pid), isAlive: () => true });
      try {
        for (const i of items) {
          const found = await state.lookup(i.name, i.user_id);
          expect(found).toEqual({
            sessionId: i.session_id,
            mcpUrl: i.mcp_url,
            configVersion: 1,
            toolRouterTools: ['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_GET_TOOL_SCHEMAS', 'COMPOSIO_MULTI_EXECUTE_TOOL', 'COMPOSIO_MANAGE_CONNECTIONS'],
            appliedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          });
        }
        expect(await state.lookup('svc-00', 'someone-else')).toBeUndefined();
        expect(await state.lookup('svc-99', 'user-00')).toBeUndefined();
        expect((await state.list()).map((s) => [s.name, s.userId, s.sessionId])).toEqual(items.map((i) => [i.name, i.user_id, i.session_id]).sort());

        // A create whose outcome is unknown names no session: the lookup has nothing to give.
        await holder.record({ ...(await holder.get('svc-01', 'user-01'))!, session_id: '', mcp_url: '', pending_create: { since: '2026-03-01T00:00:00.000Z', body_hash: 'h', status: 'unknown' } });
        expect(await state.lookup('svc-01', 'user-01')).toBeUndefined();
        expect((await state.list()).map((s) => s.name)).toEqual(['svc-00', 'svc-02']);
      } finally {
        await holder.unlock();
      }
    } finally {
      await state.close();
    }
    await expect(state.lookup('svc-00', 'user-00')).rejects.toThrow('the state reader is closed');
  });
});

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('openState failures', () => {
  test('a wrong password fails at open, with a message that names the state and not the password', async () => {
    const err = (await openState(stateUrl(db!, schema), { env: { ...db!.env, PGPASSWORD: 'sentinel-open-state-PW' } }).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toBe('cannot connect to the state database: password authentication failed for user "' + db!.env['PGUSER'] + '" (SQLSTATE 28P01)');
    expect(String(err) + JSON.stringify(err) + (err.stack ?? '')).not.toContain('sentinel-open-state-PW');
  });

  test('no env passed: the message says to pass { env: process.env }, not that no password is set; a StateError', async () => {
    const err = (await openState(stateUrl(db!, schema)).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(err).toBeInstanceOf(StateError);
    expect(err).toBeInstanceOf(InputError);
    expect(err.message).toBe(
      `cannot connect to the state database: the database asks for a password for user "${db!.env['PGUSER']}" and openState was given no env to read PGPASSWORD from: pass the process environment as { env }, or add a line for it to the password file (PGPASSFILE, default ~/.pgpass)`,
    );
  });

  test('a password in the URL is refused before anything connects', async () => {
    await expect(openState(`postgres://u:secret-in-url-9@127.0.0.1/db`)).rejects.toThrow('the state URL carries a password (postgres://u:****@127.0.0.1/db)');
  });
});
