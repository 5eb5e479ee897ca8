import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { stateBackend } from '../../src/state/backend.js';
import { lockOwner } from '../../src/state/lock.js';
import type { LockedState } from '../../src/state/store.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../helpers/postgres.js';
import { runCli } from '../helpers/run-cli.js';
import { writeManifests } from './state-processes.js';
import { skipBecause } from '../helpers/skip.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Sentinels: the database password (the test role's real one, and wrong ones) and the API key
 * appear in no output, error or log of any state command or of plan/apply/diff on a PostgreSQL
 * state, in no file they write (saved plan, report) and in no row of the database. And nothing
 * needed masking: no output holds the redactor's `****` (except the refusal of a password in the
 * URL, which masks it by design), so the password never reached a message in the first place.
 */

const KEY = 'ak_sentinel_KEY_7c1f0e9d2b';
const WRONG = 'sentinel-wrong-PW-5e8a1c';
const IN_URL = 'sentinel-url-PW-3d9b7f';
const schema = uniqueSchema('secrets');
let dir: string;
let emu: RunningEmulator;

beforeAll(async () => {
  if (db === null) return;
  dir = tempDir('secrets');
  await writeManifests(dir, 3);
  emu = await startEmulator({ port: 0, apiKeys: [KEY] });
});
afterAll(async () => {
  if (db === null) return;
  await emu.close();
  await rm(dir, { recursive: true, force: true });
  await dropSchema(db, schema);
});

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the database password and the API key never show', () => {
  test('in any output, error, written file or database row', { timeout: 60_000 }, async () => {
    const password = db!.env['PGPASSWORD'];
    expect(password, 'the test role has a password (.ci/run sets one)').toBeDefined();
    const url = stateUrl(db!, schema);
    const env = { ...db!.env, COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: emu.url };
    const secrets = [password!, KEY, WRONG, IN_URL];
    const outputs: string[] = [];
    const run = async (argv: string[], extraEnv: Record<string, string> = {}, expected: number | undefined = undefined) => {
      const r = await runCli(argv, { cwd: dir, env: { ...env, ...extraEnv } });
      // The command line is the test's own, not output: a password given in it is the case under test.
      const text = `$ ${argv.join(' ').split(IN_URL).join('<in-url>')} (exit ${r.exitCode})\n${r.stdout}${r.stderr}`;
      outputs.push(text);
      if (expected !== undefined) expect(r.exitCode, text).toBe(expected);
      expect(r.stderr, text).not.toMatch(/\n\s+at /);
      return r;
    };

    // A name looked up in a workspace nothing was applied to: said so, in the state's words.
    const never = await run(['get', 'svc-00', '--state', stateUrl(db!, schema, 'never-applied')], {}, 2);
    expect(never.stderr).toContain('"svc-00" is not a session id (trs_...), and nothing has been applied to the state postgres://');
    expect(never.stderr).toContain('point --state at the state apply wrote');
    await run(['apply', 'm', '--state', url, '--verbose'], {}, 0);
    await run(['plan', 'm', '--state', url, '--out', 'plan.json', '--format', 'human', '--format', 'json=report.json'], {}, 0);
    // A plan never chooses the state: the run names it (issue 29).
    await run(['apply', 'plan.json', '--state', url, '--format', 'json=apply.json'], {}, 0);
    await run(['diff', 'm', '--state', url], {}, 0);
    await run(['get', 'svc-00', '--state', url], {}, 0);
    for (const argv of [['list'], ['show', 'svc-01'], ['pull'], ['mv', 'svc-02', 'svc-two'], ['rm', 'svc-two'], ['list', '--format', 'json']]) {
      await run(['state', ...argv, '--state', url], {}, 0);
    }
    const pulled = await run(['state', 'pull', '--state', url], {}, 0);
    await writeFile(join(dir, 'pulled.json'), pulled.stdout);
    await run(['state', 'push', 'pulled.json', '--state', url], {}, 0);
    await run(['state', 'unlock', 'no-such-lock', '--state', url], {}, 2);

    // A run holds the lock: apply and the state commands that write report it (exit code 5, the state's).
    const holder: LockedState = await stateBackend(url, dir, { env: db!.env }).openLocked({ owner: lockOwner(4242), isAlive: () => true });
    try {
      await run(['apply', 'm', '--state', url], {}, 5);
      await run(['state', 'rm', 'svc-00', '--state', url, '--lock-timeout', '200ms'], {}, 5);
    } finally {
      await holder.unlock();
    }

    // A wrong password and no server (the state's exit code), a password in the URL (a usage
    // error), and the key where the service refuses it.
    await run(['state', 'list', '--state', url], { PGPASSWORD: WRONG }, 5);
    await run(['apply', 'm', '--state', url], { PGPASSWORD: WRONG }, 5);
    await run(['state', 'list', '--state', url.replace('//', `//${db!.env['PGUSER']}:${IN_URL}@`).replace(`${db!.env['PGUSER']}@`, '')], {}, 2);
    await run(['state', 'pull', '--state', `postgres://${db!.env['PGUSER']}@127.0.0.1:1/${db!.env['PGDATABASE']}`], {}, 5);
    await run(['apply', 'm', '--state', stateUrl(db!, schema, 'other'), '--verbose'], { COMPOSIO_API_KEY: 'ak_wrong_0000000000' }, 3);

    const files = await readdir(dir);
    for (const f of files.filter((f) => f.endsWith('.json'))) outputs.push(`file ${f}\n${await readFile(join(dir, f), 'utf8')}`);
    for (const t of ['entries', 'locks', 'schema_migrations']) outputs.push(JSON.stringify(await sql(db!, `SELECT * FROM "${schema}".${t}`)));

    const all = outputs.join('\n');
    for (const secret of secrets) expect(all.includes(secret), `a secret appears:\n${all.slice(Math.max(0, all.indexOf(secret) - 300), all.indexOf(secret) + 100)}`).toBe(false);
    const masked = outputs.filter((o) => o.includes('****') && !o.includes('the state URL carries a password'));
    expect(masked, 'the redactor had to mask something').toEqual([]);
    expect(all).toContain('the state URL carries a password (postgres://'); // the refusal ran
    expect(all).toContain('password authentication failed'); // the wrong password ran
    expect(files).toEqual(expect.arrayContaining(['plan.json', 'report.json', 'apply.json']));
  });
});
