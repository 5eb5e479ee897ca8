import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { StateError } from '../../src/diagnostics/errors.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { openSessions } from '../../src/library/open-sessions.js';
import { asRole, db, dropSchema, roleWithoutGrants, sql, stateUrl, uniqueSchema } from '../helpers/postgres.js';
import { runCli } from '../helpers/run-cli.js';
import { skipBecause } from '../helpers/skip.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * A role without the privileges a command needs, against the real server: the database's refusal
 * (SQLSTATE 42501) is a state error, exit 5, that names the role, the privilege and the table or
 * schema, and where the grants are listed; never "unexpected error; this is a bug" with a stack
 * trace, which `state list` and `plan` printed when the role could read every table but `fleet`.
 */
const made = db === null ? null : await roleWithoutGrants(db);
const KEY = 'ak_permissions_0000001';
const WAY_OUT = 'grant it, or run as a role that has it (docs/state.md, "Roles and grants")';

describe.skipIf(
  skipBecause(
    made === null,
    db === null
      ? 'needs a PostgreSQL server (the run printed why there is none)'
      : 'needs a role without grants: the test role may not create roles, and SESSIONCTL_TEST_APP_ROLE is not set (.ci/run creates sessionctl_test_app)',
  ),
)('a role without the privileges a command needs', () => {
  const schema = uniqueSchema('perm');
  let dir: string;
  let emu: RunningEmulator;
  let url: string;
  let role: string;
  const q = (name: string): string => `"${schema}".${name}`;
  const cli = (args: string[]) => runCli([...args, '--state', url], { cwd: dir, env: { ...db!.env, COMPOSIO_API_KEY: KEY } });
  const refused = (what: string) => [5, '', `error: ${url}: ${what}\n`];

  beforeAll(async () => {
    role = made!.role;
    dir = tempDir('permissions');
    mkdirSync(join(dir, 'm'));
    writeFileSync(join(dir, 'm', 'bot.yaml'), 'name: bot\nuser_id: bot-1\ntoolkits: [gmail]\n');
    writeFileSync(join(dir, 'm', 'agent.yaml'), 'name: agent\nuser_id: <end-user>\ntoolkits: [gmail]\n');
    emu = await startEmulator({ port: 0 });
    // The pipeline's role applies: the schema, its tables, a session and a publication.
    const applied = await runCli(['apply', 'm', '--state', stateUrl(db!, schema), '--base-url', emu.url], { cwd: dir, env: { ...db!.env, COMPOSIO_API_KEY: KEY } });
    expect(applied.exitCode, applied.stderr).toBe(0);
    url = asRole(db!, stateUrl(db!, schema), role);
  });

  afterAll(async () => {
    await emu?.close();
    await dropSchema(db!, schema);
    await made?.drop();
  });

  test('no grant at all: state list and plan say that it needs USAGE on the schema', async () => {
    const what = `cannot read the state schema version: permission denied for schema ${schema} (SQLSTATE 42501); role "${role}" needs USAGE on schema ${schema}: ${WAY_OUT}`;
    for (const args of [['state', 'list'], ['plan', 'm']]) {
      const r = await cli(args);
      expect([r.exitCode, r.stdout, r.stderr], args.join(' ')).toStrictEqual(refused(what));
    }
  });

  test('every table but fleet: state list and plan name SELECT on fleet (they failed as a bug, exit 70)', async () => {
    await sql(db!, `GRANT USAGE ON SCHEMA "${schema}" TO "${role}"`);
    await sql(db!, `GRANT SELECT ON ${q('schema_migrations')}, ${q('entries')}, ${q('bindings')}, ${q('published')} TO "${role}"`);
    const what = `cannot count the per-user sessions of workspace "default": permission denied for table fleet (SQLSTATE 42501); role "${role}" needs SELECT on ${schema}.fleet: ${WAY_OUT}`;
    for (const args of [['state', 'list'], ['state', 'list', '--user', 'bot-1'], ['plan', 'm']]) {
      const r = await cli(args);
      expect([r.exitCode, r.stdout, r.stderr], args.join(' ')).toStrictEqual(refused(what));
    }
    // docs/state.md shows this refusal: its words are the tool's, for its example role and schema.
    const shown = /^error: postgres:\/\/app_readonly@.*$/m.exec(readFileSync(new URL('../../docs/state.md', import.meta.url), 'utf8'))![0];
    const docsUrl = 'postgres://app_readonly@db.internal/ops?workspace=production';
    const asHere = shown.replace(docsUrl, url).replace('workspace "production"', 'workspace "default"').replace('role "app_readonly"', `role "${role}"`).replace('sessionctl.fleet', `${schema}.fleet`);
    expect(`${asHere}\n`).toBe(refused(what)[2]);
  });

  test('apply with only the read grants names what the lock needs, and writes nothing', async () => {
    await sql(db!, `GRANT SELECT ON ${q('fleet')} TO "${role}"`);
    expect((await cli(['state', 'list'])).exitCode).toBe(0);
    const r = await cli(['apply', 'm', '--base-url', emu.url]);
    const what = `cannot take the lock of workspace "default": permission denied for table locks (SQLSTATE 42501); role "${role}" needs SELECT, INSERT, UPDATE and DELETE on ${schema}.locks: ${WAY_OUT}`;
    expect([r.exitCode, r.stdout, r.stderr]).toStrictEqual(refused(what));
    expect(await sql(db!, `SELECT count(*)::int AS n FROM ${q('locks')}`)).toStrictEqual([{ n: 0 }]);
  });

  test('the library: openSessions without SELECT on published throws a StateError that names it', async () => {
    await sql(db!, `REVOKE SELECT ON ${q('published')} FROM "${role}"`);
    const opened = openSessions(url, { apiKey: KEY, baseUrl: emu.url, env: db!.env });
    const err = await opened.then(
      async (s) => {
        await s.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StateError);
    expect((err as StateError).message).toBe(
      `cannot read the workspaces with per-user manifests in schema "${schema}": permission denied for table published (SQLSTATE 42501); role "${role}" needs SELECT on ${schema}.published: ${WAY_OUT}`,
    );
  });
});
