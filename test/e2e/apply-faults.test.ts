import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

const manifests: Record<string, string> = Object.fromEntries(
  ['a', 'b', 'c', 'd', 'e'].map((n) => [`m/${n}.yaml`, `name: ${n}\nuser_id: user-${n}\ntoolkits: [gmail]\n`]),
);

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

function names(state: Awaited<ReturnType<ApplyWorld['state']>>): string[] {
  return state.sessions.map((s) => s.name);
}

describe('faults during apply', () => {
  test('a create refused in the middle of a run: the others are recorded, exit 3, and the re-run completes it without duplicates', async () => {
    // The emulator's seeded randomness picks the third create for the fault (concurrency 1 keeps the order).
    const draws = [0.9, 0.9, 0.1];
    world = await applyWorld(manifests, { random: () => draws.shift() ?? 0.9 });
    // A clear refusal (4xx): a 500 may follow a create that happened, and would leave its outcome unknown.
    await world.admin('POST', 'faults', { route: 'create', status: 400, probability: 0.5, times: 1 });

    const first = await world.run(['apply', 'm', '--concurrency', '1', '--format', 'json']);
    expect(first.exitCode).toBe(3);
    const report = JSON.parse(first.stdout);
    expect(report.applied.items.map((i: any) => [i.name, i.outcome])).toEqual([
      ['a', 'created'],
      ['b', 'created'],
      ['c', 'failed'],
      ['d', 'created'],
      ['e', 'created'],
    ]);
    expect(report.applied.tally).toEqual({ created: 4, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 1 });
    expect(report.diagnostics.map((d: any) => [d.code, d.file, d.range.start.line])).toEqual([['apply/create-failed', 'm/c.yaml', 1]]);
    expect(names(await world.state())).toEqual(['a', 'b', 'd', 'e']);

    const second = await world.run(['apply', 'm', '--concurrency', '1']);
    expect(second.exitCode).toBe(0);
    expect(second.stdout).toContain('1 created, 4 unchanged, 0 drifted, 0 failed');
    const state = await world.state();
    expect(names(state)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(new Set(state.sessions.map((s) => s.session_id)).size).toBe(5);
    // Every create the service handled is in the state, once: no duplicates.
    expect(await world.creates()).toBe(5);
  });

  test('a reset after the create reached the service is reported as outcome unknown, not retried', async () => {
    world = await applyWorld({ 'm/a.yaml': manifests['m/a.yaml']!, 'm/b.yaml': manifests['m/b.yaml']! });
    await world.admin('POST', 'faults', { route: 'create', reset: 'after', times: 1 });
    const r = await world.run(['apply', 'm', '--concurrency', '1', '--format', 'json']);
    expect(r.exitCode).toBe(3);
    const report = JSON.parse(r.stdout);
    expect(report.applied.items.map((i: any) => [i.name, i.outcome])).toEqual([
      ['a', 'outcome-unknown'],
      ['b', 'created'],
    ]);
    expect(report.diagnostics.map((d: any) => d.code)).toEqual(['apply/outcome-unknown']);
    // The service did create it; sessionctl sent it once and says so rather than guessing.
    expect(await world.creates()).toBe(2);
    // Recorded as what it is: a create of unknown outcome, no session id.
    const recorded = (await world.state()) as { sessions: Array<{ name: string; session_id: string; pending_create?: { status: string } }> };
    expect(recorded.sessions.map((e) => [e.name, e.session_id === '', e.pending_create?.status ?? null])).toEqual([
      ['a', true, 'unknown'],
      ['b', false, null],
    ]);
    // A re-run never creates it again on its own: it stops that manifest and says how to go on.
    const again = await world.run(['apply', 'm', '--format', 'json']);
    expect(again.exitCode).toBe(1);
    expect(JSON.parse(again.stdout).diagnostics.map((d: any) => d.code)).toEqual(['state/outcome-unknown']);
    expect(await world.creates()).toBe(2);
    // Told to, it creates it.
    const told = await world.run(['apply', 'm', '--recreate-unknown', '--format', 'json']);
    expect(told.exitCode).toBe(0);
    expect(await world.creates()).toBe(3);
    expect(names(await world.state())).toEqual(['a', 'b']);
  });

  test('an unreadable or locked state stops apply before any request, and is left as it was', async () => {
    world = await applyWorld({ 'm/a.yaml': manifests['m/a.yaml']! });
    await mkdir(join(world.dir, '.sessionctl'));
    await writeFile(join(world.dir, '.sessionctl', 'state.json'), '{"version": 1, "sessions": [');
    const corrupt = await world.run(['apply', 'm']);
    expect(corrupt.exitCode).toBe(2);
    expect(corrupt.stderr).toContain('the state is not valid');
    expect(await readFile(join(world.dir, '.sessionctl', 'state.json'), 'utf8')).toBe('{"version": 1, "sessions": [');

    await writeFile(join(world.dir, '.sessionctl', 'state.json'), '{"version": 1, "sessions": []}');
    // A lock held by a live process (this one) on this host.
    const { hostname } = await import('node:os');
    await writeFile(join(world.dir, '.sessionctl', 'state.json.lock'), JSON.stringify({ pid: process.pid, hostname: hostname(), since: 'now' }));
    const locked = await world.run(['apply', 'm']);
    // The state's exit code, not a usage error: wait for the other run, or release its lock.
    expect(locked.exitCode).toBe(5);
    expect(locked.stderr).toMatch(/locked by process \d+ on .*another apply is running/);
    expect((await world.admin('GET', 'stats')).total.received).toBe(0);
  });

  test('with --rate-limit under the emulator limit, a run meets no 429', async () => {
    // Holds however late the timers fire on a loaded machine (no wall-clock margin involved):
    // slots are 1/3 s apart and only two creates are ever in flight, so a request of slot k+2 is
    // acquired after request k arrived. Any one-second window then holds at most three slots that
    // start inside it plus two requests delayed into it: five, under the emulator's six. Unthrottled,
    // the same two workers send a create per round trip, far more than six a second.
    const many = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`m/s${i}.yaml`, `name: s${i}\nuser_id: u${i}\n`]));
    world = await applyWorld(many);
    await world.admin('POST', 'rate-limit', { limit: 6, window_ms: 1000 });
    const r = await world.run(['apply', 'm', '--rate-limit', '3/s', '--concurrency', '2', '--format', 'json']);
    expect(r.exitCode).toBe(0);
    const stats = await world.admin('GET', 'stats');
    // Every create arrived once and was handled: none was turned away and retried.
    expect(stats.routes.create).toEqual({ received: 9, handled: 9 });
    expect(stats.total.received).toBe(9);
  });
});
