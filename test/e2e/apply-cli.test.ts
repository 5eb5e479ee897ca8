import { rm, writeFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { allCommands } from '../../src/cli/commands/index.js';
import { memoryIo } from '../../src/cli/io.js';
import { runCli as runWith } from '../../src/cli/run.js';
import { runCli } from '../helpers/run-cli.js';
import { applyWorld, KEY, type ApplyWorld } from './apply-helpers.js';
import { tempDir } from '../helpers/temp-dir.js';

let world: ApplyWorld | undefined;
let dir: string | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('apply on the command line', () => {
  test('progress goes to stderr: on a terminal one line rewritten in place, elsewhere a line per manifest; stdout keeps the report', async () => {
    world = await applyWorld({ 'a.yaml': 'name: a\nuser_id: u1\n', 'b.yaml': 'name: b\nuser_id: u2\n' });
    const tty = await runCli(['apply', '.', '--concurrency', '1'], { cwd: world.dir, tty: true, env: { COMPOSIO_BASE_URL: world.emulator.url, COMPOSIO_API_KEY: KEY } });
    expect(tty.exitCode).toBe(0);
    const ids = [...new Set([...tty.stdout.matchAll(/trs_[A-Za-z0-9_-]+/g)].map((m) => m[0]))];
    // The first apply starts the state, and says so once, before the progress.
    expect(tty.stderr).toBe(`note: new state at ${join(world.dir, '.sessionctl', 'state.json')} (nothing is recorded there yet)\n\r\u001b[K[1/2] created a (user u1) ${ids[0]}\r\u001b[K[2/2] created b (user u2) ${ids[1]}\n`);
    expect(tty.stdout).toContain('2 created, 0 unchanged, 0 drifted, 0 failed');
    // Not a terminal (a CI log): one line per manifest as it finishes.
    await world.write('c.yaml', 'name: c\nuser_id: u3\n');
    const log = (await world.run(['apply', '.', '--concurrency', '1'])).stderr;
    expect(log.replace(/trs_[A-Za-z0-9_-]+/g, 'trs_X')).toBe('[1/3] unchanged a (user u1) trs_X\n[2/3] unchanged b (user u2) trs_X\n[3/3] created c (user u3) trs_X\n');
  });

  test('--emulator: no key needed, the URL on stderr, sessions kept beside the state so diff and plan --refresh see them', async () => {
    dir = tempDir('emu');
    await writeFile(join(dir, 'a.yaml'), 'name: a\nuser_id: u1\nworkbench: { enable: false }\n');
    const state = ['--state', 'st/state.json'];
    const applied = await runCli(['apply', 'a.yaml', '--emulator', ...state], { cwd: dir });
    expect(applied.exitCode).toBe(0);
    expect(applied.stderr).toMatch(/^note: new state at .*st\/state\.json \(nothing is recorded there yet\)\nemulator: http:\/\/127\.0\.0\.1:\d+ \(sessions kept in .*st\/emulator\)\n\[1\/1\] created a \(user u1\) trs_\S+\n$/);
    await stat(join(dir, 'st', 'emulator'));
    const diff = await runCli(['diff', 'a.yaml', '--emulator', ...state], { cwd: dir });
    expect(diff.exitCode).toBe(0);
    expect(diff.stdout).toContain('1 of 1 in sync');
    const plan = await runCli(['plan', 'a.yaml', '--refresh', '--emulator', '--detailed-exitcode', ...state], { cwd: dir });
    expect(plan.exitCode).toBe(0);
    expect(plan.stdout).toContain('Plan: 0 to create, 0 to update, 0 to replace, 0 to delete, 1 no-op');
  });

  test('no API key: exit 2 before any request, and the state lock is released', async () => {
    dir = tempDir('nokey');
    await writeFile(join(dir, 'a.yaml'), 'name: a\nuser_id: u1\n');
    const r = await runCli(['apply', 'a.yaml'], { cwd: dir, env: { COMPOSIO_BASE_URL: 'http://127.0.0.1:9' } });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('no API key');
    await expect(stat(join(dir, '.sessionctl', 'state.json.lock'))).rejects.toThrow(/ENOENT/);
    await expect(stat(join(dir, '.sessionctl', 'state.json'))).rejects.toThrow(/ENOENT/);
  });

  test.each([
    [['apply', 'x.yaml', '--concurrency', '0'], /--concurrency/],
    [['apply', 'x.yaml', '--rate-limit', 'fast'], /--rate-limit/],
    [['diff', 'x.yaml', '--session', 'not-an-id'], /--session expects a session id/],
  ])('bad flags are usage errors: %j', async (argv, message) => {
    const r = await runCli(argv, { cwd: tmpdir() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
  });
  test('SIGTERM past the wait: the report is the last thing written, and the create given up on has no progress line of its own', async () => {
    world = await applyWorld({ 'a.yaml': 'name: a\nuser_id: u1\n' });
    expect((await world.run(['apply', '.'])).exitCode).toBe(0);
    await world.write('b.yaml', 'name: b\nuser_id: u2\n');
    // b's create reaches the service, which answers it long after the wait (0 s) is over: 5 s is
    // the margin for the signal to come after the create arrived and before it is answered.
    await world.admin('POST', 'faults', { route: 'create', latency_ms: 5000, times: 1 });
    // stdout and stderr in the one order they were written.
    const written: string[] = [];
    let signal: ((s: 'SIGINT' | 'SIGTERM') => void) | undefined;
    const io = {
      ...memoryIo({ cwd: world.dir, env: { NO_COLOR: '1', COMPOSIO_BASE_URL: world.emulator.url, COMPOSIO_API_KEY: KEY, SESSIONCTL_INTERRUPT_GRACE_MS: '0' } }),
      stdout: { write: (s: string) => void written.push(`out: ${s}`), isTTY: false },
      stderr: { write: (s: string) => void written.push(`err: ${s}`), isTTY: false },
      onSignal: (h: (s: 'SIGINT' | 'SIGTERM') => void) => ((signal = h), () => undefined),
    };
    const done = runWith(['apply', '.', '--concurrency', '1'], io, allCommands);
    const received = async (): Promise<number> => ((await world!.admin('GET', 'stats')) as { routes: { create?: { received: number } } }).routes.create?.received ?? 0;
    for (let i = 0; i < 400 && (await received()) < 2; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await received()).toBe(2);
    signal!('SIGTERM');
    expect(await done).toBe(143);
    const lines = written.join('').replace(/trs_[A-Za-z0-9_-]+/g, 'trs_X').split('\n');
    expect(lines.slice(0, 2)).toStrictEqual(['err: [1/2] unchanged a (user u1) trs_X', 'err: apply: SIGTERM received: no new requests; waiting up to 0 s for 1 in flight (the state already records every create\'s intent)']);
    // Everything after is the report, on stdout, which ends the output.
    expect(written.length).toBeGreaterThan(2);
    expect(written.slice(2).filter((w) => !w.startsWith('out: '))).toStrictEqual([]);
    expect(written.join('')).toContain('0 created, 1 unchanged, 0 drifted, 1 failed');
  });
});
