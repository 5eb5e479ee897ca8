import { readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { db, dropSchema, sql, uniqueSchema } from '../helpers/postgres.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { skipBecause } from '../helpers/skip.js';
import { tempDir } from '../helpers/temp-dir.js';

/*
 * The state lost between a create and its record, for real: the emulator holds the create (a
 * `hold` fault) while the test takes the state away, then lets it answer. For the file backend
 * the state's folder is replaced by a file; for PostgreSQL every connection to the database is
 * cut (through a TCP proxy) and no new one is let through. What the run must say: the session it
 * created, with its id and the `sessionctl import` command that adopts it; exit code 5; nothing
 * started after the loss. What the next runs must do: nothing twice. The state comes back, the
 * next apply refuses to create the manifest again (a create of unknown outcome is on record), the
 * printed import adopts the session, and the apply after that creates only what was never sent.
 */

const KEY = 'state-lost-key-0001';
const MANIFESTS = { 'm/a.yaml': 'name: a\nuser_id: u-a\n', 'm/b.yaml': 'name: b\nuser_id: u-b\n' };

let emulator: RunningEmulator | undefined;
let proxy: Proxy | undefined;
let schema: string | undefined;
afterEach(async () => {
  await emulator?.close();
  await proxy?.close();
  if (schema !== undefined && db !== null) await dropSchema(db, schema);
  emulator = undefined;
  proxy = undefined;
  schema = undefined;
});

async function world(): Promise<{ dir: string; run: (argv: readonly string[]) => Promise<CliResult>; creates: () => Promise<unknown> }> {
  emulator = await startEmulator({ port: 0 });
  const dir = tempDir('state-lost');
  for (const [file, text] of Object.entries(MANIFESTS)) {
    await mkdir(join(dir, 'm'), { recursive: true });
    await writeFile(join(dir, file), text);
  }
  const url = emulator.url;
  return {
    dir,
    run: (argv) => runCli(argv, { cwd: dir, env: { COMPOSIO_BASE_URL: url, COMPOSIO_API_KEY: KEY, ...(db?.env ?? {}) } }),
    creates: async () => (await emulatorAdmin(url, 'GET', '/stats')).routes.create,
  };
}

/**
 * Starts `apply` with the first create held at the service; resolves once that create has arrived,
 * with the run still going (wrapped: an async function that returned the promise would wait for it).
 */
async function applyHeld(w: Awaited<ReturnType<typeof world>>, argv: readonly string[]): Promise<{ running: Promise<CliResult> }> {
  await emulatorAdmin(emulator!.url, 'POST', '/faults', { route: 'create', hold: true, times: 1 });
  const running = w.run(argv);
  // Until the create arrives, or the run ends without sending it (then the next line says so).
  let ended = false;
  void running.finally(() => (ended = true));
  while (!ended && ((await w.creates()) as { received: number } | undefined)?.received !== 1) await new Promise((r) => setTimeout(r, 10));
  expect(await w.creates()).toEqual({ received: 1, handled: 0 });
  return { running };
}

const release = (): Promise<unknown> => emulatorAdmin(emulator!.url, 'POST', '/faults/release');

describe('the file state lost between a create and its record (its folder replaced by a file)', () => {
  test('the session is reported with its id and import command, exit 5; the next runs create nothing twice', { timeout: 90_000 }, async () => {
    const w = await world();
    const st = ['--state', 'st/state.json'];
    const { running } = await applyHeld(w, ['apply', 'm', ...st, '--concurrency', '1', '--format', 'human', '--format', 'json=report.json']);
    await rename(join(w.dir, 'st'), join(w.dir, 'st.lost'));
    await writeFile(join(w.dir, 'st'), 'not a folder');
    await release();
    const r = await running;
    const [created] = await sessions();
    const lock = (JSON.parse(readFileSync(join(w.dir, 'st.lost', 'state.json.lock'), 'utf8')) as { id: string }).id;
    const hint = `once the state can be written again, adopt the session with \`sessionctl import a ${created} m/a.yaml --state st/state.json\`; until then the state holds a create of unknown outcome for a, and apply sends nothing for it`;
    // The run started the state (it says so), then lost it.
    expect([r.exitCode, r.stderr]).toStrictEqual([5, `note: new state at ${join(w.dir, 'st', 'state.json')} (nothing is recorded there yet)\n[1/2] failed a (user u-a) ${created}\n`]);
    expect(r.stdout).toBe(
      [
        `error  the state lock ${lock} could not be released (ENOTDIR: not a directory, open '${w.dir}/st/state.json.lock.break'); if the next run finds it held, release it with \`sessionctl state unlock ${lock}\`  state/write-failed`,
        '',
        `m/a.yaml:1:1  error  a: session ${created} was created, but the state could not be written: the state lock cannot be read (ENOTDIR: not a directory, open '${w.dir}/st/state.json.lock'); nothing was written  state/write-failed`,
        '  > 1 | name: a',
        '      | ^^^^',
        '    2 | user_id: u-a',
        `  hint: ${hint}`,
        '',
        ...B_NOT_STARTED,
        '',
        'Apply:',
        `  failed   a  user u-a  ${created}  ${emulator!.url}/tool_router/v3/${created}/mcp`,
        '  skipped  b  user u-b  -',
        '',
        '0 created, 0 unchanged, 0 drifted, 1 failed, 1 skipped',
        '',
        '✖ 3 problems (3 errors) in 2 files',
        '',
      ].join('\n'),
    );
    expectReport(join(w.dir, 'report.json'), created!);
    // One session was created, and no request was sent for b.
    expect(await w.creates()).toEqual({ received: 1, handled: 1 });
    // What the state holds (in the folder moved aside): a's create as in flight, written before it was sent; nothing of b.
    const kept = JSON.parse(readFileSync(join(w.dir, 'st.lost', 'state.json'), 'utf8')) as { sessions: Array<{ name: string; session_id: string; pending_create?: { status: string } }> };
    expect(kept.sessions.map((e) => [e.name, e.session_id, e.pending_create?.status])).toStrictEqual([['a', '', 'in-flight']]);

    // The folder comes back. Its lock names this (live) process: the next run stops at it, and the
    // way out the lost run printed releases it.
    await rm(join(w.dir, 'st'));
    await rename(join(w.dir, 'st.lost'), join(w.dir, 'st'));
    const locked = await w.run(['apply', 'm', ...st]);
    expect([locked.exitCode, locked.stdout]).toStrictEqual([5, '']);
    expect(locked.stderr).toContain(`if its holder died, release the lock with \`sessionctl state unlock ${lock}\`.`);
    expect((await w.run(['state', 'unlock', lock, ...st])).exitCode).toBe(0);
    await nextRuns(w, hint, created!, st);
  });
});

/** b never started: the run stopped at the state that could not be written. */
const B_NOT_STARTED = ['m/b.yaml:1:1  error  b: not applied: the run was interrupted (the state could not be written) before it started  apply/interrupted', '  > 1 | name: b', '      | ^^^^', '    2 | user_id: u-b'];

/** The JSON report of the lost run: a failed with its session, b skipped, the counts. */
function expectReport(path: string, created: string): void {
  const report = JSON.parse(readFileSync(path, 'utf8')) as { applied: { tally: unknown; items: Array<{ name: string; outcome: string; session_id: string | null; diagnostics: Array<{ code: string }> }> } };
  expect(report.applied.tally).toStrictEqual({ created: 0, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 1, skipped: 1 });
  expect(report.applied.items.map((i) => [i.name, i.outcome, i.session_id, i.diagnostics.map((d) => d.code)])).toStrictEqual([
    ['a', 'failed', created, ['state/write-failed']],
    ['b', 'skipped', null, ['apply/interrupted']],
  ]);
}

/**
 * Once the state answers again: the next apply sends nothing for a (its create is on record as of
 * unknown outcome) and creates b, which was never sent; the import the lost run printed adopts a's
 * session; the apply after that has nothing to do. Two sessions in all, each created once.
 */
async function nextRuns(w: Awaited<ReturnType<typeof world>>, hint: string, created: string, st: string[]): Promise<void> {
  // A PostgreSQL lock whose holder lost the database stays until its lease lapses (15 s): wait for it.
  const next = await w.run(['apply', 'm', ...st, '--lock-timeout', '60s', '--format', 'json']);
  expect(next.exitCode, next.stderr).toBe(1);
  const report = JSON.parse(next.stdout) as { diagnostics: Array<{ code: string; file: string }>; applied: { items: Array<{ name: string; outcome: string }> } };
  expect(report.diagnostics.map((d) => [d.code, d.file])).toStrictEqual([['state/outcome-unknown', 'm/a.yaml']]);
  expect(report.applied.items.map((i) => [i.name, i.outcome])).toStrictEqual([
    ['a', 'skipped'],
    ['b', 'created'],
  ]);
  expect(await w.creates()).toEqual({ received: 2, handled: 2 });

  const printed = /`(sessionctl import [^`]+)`/.exec(hint)![1]!;
  const adopted = await w.run(shellWords(printed).slice(1));
  expect([adopted.exitCode, adopted.stderr]).toStrictEqual([0, `imported ${created} as a (user u-a)\n`]);
  const last = await w.run(['apply', 'm', ...st]);
  expect(last.exitCode).toBe(0);
  expect(last.stdout).toContain('0 created, 2 unchanged, 0 drifted, 0 failed');
  expect(await w.creates()).toEqual({ received: 2, handled: 2 });
  expect((await sessions()).length).toBe(2);
}

/** The words of a command line as a POSIX shell splits it (plain words and single quotes: all the import line uses). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'((?:[^']|'\\'')*)'|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replaceAll("'\\''", "'") : m[2]!));
}

const sessions = async (): Promise<string[]> => ((await emulatorAdmin(emulator!.url, 'GET', '/sessions')) as { sessions: Array<{ session_id: string }> }).sessions.map((x) => x.session_id);

/** A TCP proxy to the database that can lose it: every connection cut, new ones closed at once. */
interface Proxy {
  port: number;
  cut(): Promise<void>;
  restore(): void;
  close(): Promise<void>;
}

async function tcpProxy(host: string, port: number): Promise<Proxy> {
  const open = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(port, host);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut: async () => {
      down = true;
      const closed = [...open].map((s) => new Promise((resolve) => (s.destroyed ? resolve(undefined) : s.once('close', resolve))));
      for (const s of open) s.destroy();
      await Promise.all(closed);
    },
    restore: () => {
      down = false;
    },
    close: async () => {
      for (const s of open) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the PostgreSQL state lost between a create and its record (every connection cut)', () => {
  test('the session is reported with its id and import command, exit 5; the next runs create nothing twice', { timeout: 90_000 }, async () => {
    const w = await world();
    schema = uniqueSchema('lost');
    const server = new URL(db!.base);
    proxy = await tcpProxy(server.hostname, Number(server.port || 5432));
    const url = new URL(db!.base);
    url.host = `127.0.0.1:${proxy.port}`;
    const state = `${url.toString()}?schema=${schema}&workspace=default`;
    const rows = () => sql(db!, `SELECT name, user_id, session_id, pending_create->>'status' AS status FROM "${schema}".entries ORDER BY name`);
    const { running } = await applyHeld(w, ['apply', 'm', '--state', state, '--concurrency', '1', '--format', 'human', '--format', 'json=report.json']);
    // a's create is on record as in flight before it was sent; then the database goes.
    const before = await rows();
    expect(before).toStrictEqual([{ name: 'a', user_id: 'u-a', session_id: '', status: 'in-flight' }]);
    await proxy.cut();
    await release();
    const r = await running;
    const [created] = await sessions();
    const hint = `once the state can be written again, adopt the session with \`sessionctl import a ${created} m/a.yaml --state '${state}'\`; until then the state holds a create of unknown outcome for a, and apply sends nothing for it`;
    expect([r.exitCode, r.stderr]).toStrictEqual([5, `note: new state at ${state} (nothing is recorded there yet)\n[1/2] failed a (user u-a) ${created}\n`]);
    expect(r.stdout).toBe(
      [
        `m/a.yaml:1:1  error  a: session ${created} was created, but the state could not be written: cannot record the service binding in the state: Connection terminated unexpectedly  state/write-failed`,
        '  > 1 | name: a',
        '      | ^^^^',
        '    2 | user_id: u-a',
        `  hint: ${hint}`,
        '',
        ...B_NOT_STARTED,
        '',
        'Apply:',
        `  failed   a  user u-a  ${created}  ${emulator!.url}/tool_router/v3/${created}/mcp`,
        '  skipped  b  user u-b  -',
        '',
        '0 created, 0 unchanged, 0 drifted, 1 failed, 1 skipped',
        '',
        '✖ 2 problems (2 errors) in 2 files',
        '',
      ].join('\n'),
    );
    expectReport(join(w.dir, 'report.json'), created!);
    expect(await w.creates()).toEqual({ received: 1, handled: 1 });
    // Nothing was written after the loss: the rows are what they were.
    expect(await rows()).toStrictEqual(before);

    // The database answers again; the lost run's lease is still there until it lapses.
    proxy.restore();
    await nextRuns(w, hint, created!, ['--state', state]);
  });
});
