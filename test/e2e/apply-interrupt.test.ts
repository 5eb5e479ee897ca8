import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliBundle, spawnEmulator, type SpawnedEmulator } from '../conformance/cli-bundle.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/*
 * An apply stopped while creates are in flight (slowed by the emulator's latency fault): SIGINT
 * and SIGTERM stop it cleanly (no new request, a bounded wait, every session recorded, unanswered
 * creates recorded as outcome unknown, the lock released, 130 / 143); kill -9 leaves the
 * write-ahead intents. Either way the next apply creates no second session for any manifest.
 */

const KEY = 'interrupt-key-0001';
const MANIFESTS = 8;

interface Entry {
  name: string;
  session_id: string;
  pending_create?: { status: string; reason?: string };
}

let emu: SpawnedEmulator | undefined;
afterEach(async () => {
  await emu?.stop();
  emu = undefined;
});

async function world(): Promise<{ dir: string; env: Record<string, string> }> {
  emu = await spawnEmulator(['--port', '0', '--api-key', KEY]);
  const dir = tempDir('interrupt');
  mkdirSync(join(dir, 'm'));
  for (let i = 0; i < MANIFESTS; i++) writeFileSync(join(dir, 'm', `s${i}.yaml`), `name: s${i}\nuser_id: user-${i}\n`);
  return { dir, env: { COMPOSIO_BASE_URL: emu.url, COMPOSIO_API_KEY: KEY } };
}

async function admin(path: string, init: RequestInit = {}): Promise<unknown> {
  const res = await fetch(`${emu!.url}/_emulator/${path}`, { ...init, headers: { 'content-type': 'application/json', 'x-api-key': KEY } });
  return res.json();
}

const creates = async (): Promise<number> => ((await admin('stats')) as { routes: Record<string, { received: number }> }).routes['create']?.received ?? 0;
const live = async (): Promise<number> => ((await admin('sessions')) as { sessions: unknown[] }).sessions.length;
const stateOf = (dir: string): Entry[] => (JSON.parse(readFileSync(join(dir, '.sessionctl', 'state.json'), 'utf8')) as { sessions: Entry[] }).sessions;

/** Starts `sessionctl apply m` as its own process, and resolves once `n` creates reached the service. */
async function applyUntil(dir: string, env: Record<string, string>, n: number) {
  const main = await cliBundle();
  const child = spawn(process.execPath, [main, 'apply', 'm', '--concurrency', '4'], { cwd: dir, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env } });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal === 'SIGKILL' ? -9 : null))));
  for (let i = 0; i < 400 && (await creates()) < n; i++) await new Promise((r) => setTimeout(r, 25));
  expect(await creates()).toBe(n);
  return { child, exited, stderr: () => stderr };
}

describe('apply interrupted with creates in flight', () => {
  it('SIGINT: waits for the creates in flight, records them, starts no more, releases the lock, exits 130; the re-run creates the rest once', { timeout: 60_000 }, async () => {
    const { dir, env } = await world();
    await admin('faults', { method: 'POST', body: JSON.stringify({ route: 'create', latency_ms: 1500, times: MANIFESTS }) });
    const run = await applyUntil(dir, env, 4);
    run.child.kill('SIGINT');
    expect(await run.exited).toBe(130);
    expect(run.stderr()).toContain('apply: SIGINT received: no new requests; waiting up to 10 s for 4 in flight');
    expect(run.stderr()).toMatch(/skipped|\[\d\/8\] created/);
    expect(existsSync(join(dir, '.sessionctl', 'state.json.lock'))).toBe(false);
    expect(stateOf(dir).filter((e) => e.session_id !== '')).toHaveLength(4);
    expect(stateOf(dir).filter((e) => e.pending_create !== undefined)).toEqual([]);
    expect([await creates(), await live()]).toEqual([4, 4]);

    const again = await runCli(['apply', 'm'], { cwd: dir, env });
    expect(again.exitCode, again.stdout).toBe(0);
    expect(again.stdout).toContain('4 created, 4 unchanged, 0 drifted, 0 failed');
    expect([await creates(), await live()]).toEqual([MANIFESTS, MANIFESTS]);
  });

  it('SIGTERM past the wait: the unanswered creates are recorded as outcome unknown, exit 143; the re-run never creates them again', { timeout: 60_000 }, async () => {
    const { dir, env } = await world();
    await admin('faults', { method: 'POST', body: JSON.stringify({ route: 'create', latency_ms: 4000, times: 4 }) });
    const run = await applyUntil(dir, { ...env, SESSIONCTL_INTERRUPT_GRACE_MS: '300' }, 4);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(143);
    expect(run.stderr()).toContain('apply: SIGTERM received: no new requests; waiting up to 0 s for 4 in flight');
    expect(existsSync(join(dir, '.sessionctl', 'state.json.lock'))).toBe(false);
    const unknown = stateOf(dir).filter((e) => e.pending_create?.status === 'unknown');
    expect(unknown).toHaveLength(4);
    expect(unknown[0]!.pending_create!.reason).toContain('interrupted (SIGTERM)');
    // The service finishes the four creates on its own.
    for (let i = 0; i < 400 && (await live()) < 4; i++) await new Promise((r) => setTimeout(r, 25));
    expect(await live()).toBe(4);

    const again = await runCli(['apply', 'm', '--format', 'json'], { cwd: dir, env });
    expect(again.exitCode).toBe(1);
    const report = JSON.parse(again.stdout) as { diagnostics: Array<{ code: string; message: string; hint: string }>; applied: { tally: { created: number } } };
    expect(report.diagnostics.map((d) => d.code)).toEqual(Array(4).fill('state/outcome-unknown'));
    expect(report.diagnostics[0]!.hint).toContain('sessionctl import');
    expect(report.applied.tally.created).toBe(4);
    // 4 from the interrupted run (outcome unknown), 4 created now: none twice.
    expect([await creates(), await live()]).toEqual([MANIFESTS, MANIFESTS]);
  });

  it('kill -9: the write-ahead intents stand for the creates in flight; the stale lock is taken over; nothing is created twice', { timeout: 60_000 }, async () => {
    const { dir, env } = await world();
    await admin('faults', { method: 'POST', body: JSON.stringify({ route: 'create', latency_ms: 1500, times: 4 }) });
    const run = await applyUntil(dir, env, 4);
    run.child.kill('SIGKILL');
    expect(await run.exited).toBe(-9);
    expect(existsSync(join(dir, '.sessionctl', 'state.json.lock'))).toBe(true);
    expect(stateOf(dir).map((e) => e.pending_create?.status)).toEqual(Array(4).fill('in-flight'));
    for (let i = 0; i < 400 && (await live()) < 4; i++) await new Promise((r) => setTimeout(r, 25));

    const again = await runCli(['apply', 'm', '--format', 'json'], { cwd: dir, env });
    expect(again.exitCode, again.stderr).toBe(1);
    const report = JSON.parse(again.stdout) as { diagnostics: Array<{ code: string }>; applied: { tally: { created: number; failed: number } } };
    expect(report.diagnostics.map((d) => d.code)).toEqual(Array(4).fill('state/outcome-unknown'));
    expect(report.applied.tally).toMatchObject({ created: 4, failed: 0, skipped: 4 });
    expect([await creates(), await live()]).toEqual([MANIFESTS, MANIFESTS]);
  });
});

describe('answers that leave a create in doubt, and a conflict', () => {
  it('a malformed 201 is an outcome unknown, never retried nor repeated', { timeout: 30_000 }, async () => {
    const { dir, env } = await world();
    await admin('faults', { method: 'POST', body: JSON.stringify({ route: 'create', malformed: true, times: 1 }) });
    const first = await runCli(['apply', 'm/s0.yaml', '--format', 'json'], { cwd: dir, env });
    expect(first.exitCode).toBe(3);
    expect((JSON.parse(first.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code)).toEqual(['apply/outcome-unknown']);
    expect(stateOf(dir).map((e) => [e.name, e.session_id, e.pending_create?.status])).toEqual([['s0', '', 'unknown']]);
    const again = await runCli(['apply', 'm/s0.yaml'], { cwd: dir, env });
    expect(again.exitCode).toBe(1);
    expect([await creates(), await live()]).toEqual([1, 1]);
  });

  it('a PATCH against a session someone else changed is a 409: nothing overwritten, both versions named', { timeout: 30_000 }, async () => {
    const { dir, env } = await world();
    expect((await runCli(['apply', 'm/s0.yaml'], { cwd: dir, env })).exitCode).toBe(0);
    const id = stateOf(dir)[0]!.session_id;
    await admin(`sessions/${id}`, { method: 'PATCH', body: JSON.stringify({ workbench: { enable: false } }) });
    writeFileSync(join(dir, 'm', 's0.yaml'), 'name: s0\nuser_id: user-0\ntoolkits: [gmail]\n');
    // Without a refresh apply PATCHes with the version it recorded (1); the session is at 2.
    const r = await runCli(['apply', 'm/s0.yaml', '--refresh=false', '--format', 'json'], { cwd: dir, env });
    expect(r.exitCode).toBe(3);
    const d = (JSON.parse(r.stdout) as { diagnostics: Array<{ code: string; message: string; range: { start: { line: number } } }> }).diagnostics;
    expect(d.map((x) => [x.code, x.range.start.line])).toEqual([['apply/conflict', 1]]);
    expect(d[0]!.message).toContain('it is at config version 2, sessionctl read version 1; nothing was overwritten');
    const session = (await admin(`sessions/${id}`)) as { config: { workbench: { enable: boolean }; toolkits?: unknown }; config_version: number };
    expect([session.config.workbench.enable, session.config.toolkits ?? null, session.config_version]).toEqual([false, null, 2]);
    // With the refresh (the default) apply reads version 2 first, and the update lands.
    const retried = await runCli(['apply', 'm/s0.yaml'], { cwd: dir, env });
    expect(retried.exitCode, retried.stdout).toBe(0);
  });
});
