/**
 * Issue 29, item 3: a saved plan runs what was reviewed. The plan pins the config version each
 * session was reviewed at; `apply PLAN.json` refuses with `plan/stale` when a session moved since
 * (another writer's PATCH, drift, a delete), and without a refresh its PATCH carries the pinned
 * version, so the service answers 409, reported as a stale plan. Another writer's change is never
 * PATCHed away. Real emulator over loopback; the other writer is its admin PATCH or drift injection.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

const SUPPORT = 'name: support\nuser_id: support-bot\ntoolkits: [gmail, slack]\nworkbench:\n  enable: false\n';

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

interface Stats {
  routes: Record<string, { handled: number } | undefined>;
}

async function applied(): Promise<{ world: ApplyWorld; id: string }> {
  world = await applyWorld({ 'support.yaml': SUPPORT });
  expect((await world.run(['apply', 'support.yaml'])).exitCode).toBe(0);
  return { world, id: (await world.state()).sessions[0]!.session_id };
}

const handled = async (w: ApplyWorld, route: string): Promise<number> => ((await w.admin('GET', 'stats')) as Stats).routes[route]?.handled ?? 0;
const stored = async (w: ApplyWorld, id: string): Promise<{ config: Record<string, any>; config_version: number }> => w.admin('GET', `sessions/${id}`);

/** What other writers do to a session between the review and the apply. */
const writers: Array<[string, (w: ApplyWorld, id: string) => Promise<unknown>, (s: { config: Record<string, any> } | undefined) => void]> = [
  ['PATCHes it (a concurrent deploy)', (w, id) => w.admin('PATCH', `sessions/${id}`, { workbench: { enable: true } }), (s) => expect(s?.config['workbench']?.enable).toBe(true)],
  ['PATCHes another key', (w, id) => w.admin('PATCH', `sessions/${id}`, { toolkits: { enable: ['gmail', 'slack', 'github'] } }), (s) => expect(s?.config['toolkits']).toEqual({ enabled: ['gmail', 'slack', 'github'] })],
  ['changes it out of band (drift, the version bumped)', (w, id) => w.admin('POST', `sessions/${id}/config`, { config: { toolkits: { enabled: ['gmail'] } } }), (s) => expect(s?.config['toolkits']).toEqual({ enabled: ['gmail'] })],
  [
    'changes it without bumping the version (a service that keeps none)',
    async (w, id) => w.admin('POST', `sessions/${id}/config`, { config: { toolkits: { enabled: ['gmail'] } }, config_version: (await stored(w, id)).config_version }),
    (s) => expect(s?.config['toolkits']).toEqual({ enabled: ['gmail'] }),
  ],
  ['deletes it', (w, id) => w.admin('DELETE', `sessions/${id}`), (s) => expect(s).toBeUndefined()],
];

describe('a plan reviewed as no-op, then another writer', () => {
  test.each(writers.flatMap(([name, write, check]) => [
    [name, 'plan --out', write, check] as const,
    [name, 'plan --refresh --out', write, check] as const,
  ]))('%s after `%s`: apply of the plan is plan/stale (exit 1) and sends nothing', async (_name, planCommand, write, check) => {
    const { world: w, id } = await applied();
    const plan = await w.run([...planCommand.split(' '), 'plan.json', 'support.yaml', '--format', 'json']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout).plan.items.map((i: any) => i.action)).toEqual(['no-op']);
    const saved = JSON.parse(await readFile(join(w.dir, 'plan.json'), 'utf8'));
    expect(saved.items.map((i: any) => [i.name, i.config_version])).toEqual([['support', 1]]);

    await write(w, id);
    const before = { creates: await handled(w, 'create'), updates: await handled(w, 'update'), state: await w.state() };
    const r = await w.run(['apply', 'plan.json', '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.diagnostics.map((d: any) => [d.code, d.file])).toEqual([['plan/stale', 'plan.json']]);
    expect(report.diagnostics[0].message).toMatch(/^the saved plan is stale: support: .*; nothing was applied$/);
    expect(report.applied).toBeUndefined();
    // Nothing sent, nothing recorded: the other writer's change stands.
    expect(await handled(w, 'update')).toBe(before.updates);
    expect(await handled(w, 'create')).toBe(before.creates);
    expect(await w.state()).toEqual(before.state);
    check(await stored(w, id).catch(() => undefined));
  });
});

describe('a plan reviewed as an update, then another writer', () => {
  test.each(writers.slice(0, 3))('%s: with a refresh, plan/stale before the PATCH', async (_name, write, check) => {
    const { world: w, id } = await applied();
    await w.write('support.yaml', SUPPORT.replace('[gmail, slack]', '[gmail, slack, notion]'));
    expect((await w.run(['plan', 'support.yaml', '--out', 'plan.json'])).exitCode).toBe(0);
    await write(w, id);
    const updates = await handled(w, 'update');
    const r = await w.run(['apply', 'plan.json', '--format', 'json']);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout).diagnostics.map((d: any) => d.code)).toEqual(['plan/stale']);
    expect(await handled(w, 'update')).toBe(updates);
    check(await stored(w, id));
  });

  test.each(writers.slice(0, 3))('%s: without a refresh, the PATCH carries the reviewed version, the 409 is plan/stale and nothing is overwritten', async (_name, write, check) => {
    const { world: w, id } = await applied();
    await w.write('support.yaml', SUPPORT.replace('[gmail, slack]', '[gmail, slack, notion]'));
    expect((await w.run(['plan', 'support.yaml', '--out', 'plan.json'])).exitCode).toBe(0);
    await write(w, id);
    const r = await w.run(['apply', 'plan.json', '--refresh=false', '--format', 'json']);
    const report = JSON.parse(r.stdout);
    expect(report.applied.items.map((i: any) => [i.name, i.outcome, i.diagnostics.map((d: any) => d.code)])).toEqual([['support', 'failed', ['plan/stale']]]);
    expect(report.applied.items[0].diagnostics[0].message).toMatch(/^the saved plan is stale: support: session trs_\S+ is at config version 2 now; the plan was reviewed with it at version 1; nothing was overwritten$/);
    expect(r.exitCode).toBe(1);
    check(await stored(w, id));
    expect((await stored(w, id)).config['toolkits']?.enabled ?? []).not.toContain('notion');
  });
});

describe('what was reviewed still holds', () => {
  test('nothing moved: the reviewed update is applied, with the version it was reviewed at', async () => {
    const { world: w, id } = await applied();
    await w.write('support.yaml', SUPPORT.replace('[gmail, slack]', '[gmail, slack, notion]'));
    expect((await w.run(['plan', 'support.yaml', '--refresh', '--out', 'plan.json'])).exitCode).toBe(0);
    const r = await w.run(['apply', 'plan.json']);
    expect(r.exitCode, r.stdout).toBe(0);
    expect(r.stdout).toContain('0 created, 1 updated');
    expect((await stored(w, id)).config_version).toBe(2);
  });

  test.each([
    ['a pinned version that is not a whole number', 1.5],
    ['a negative pinned version', -1],
    ['a pinned version as text', '1'],
  ])('a plan file with %s is damaged (exit 2), nothing sent', async (_name, version) => {
    const { world: w } = await applied();
    expect((await w.run(['plan', 'support.yaml', '--out', 'plan.json'])).exitCode).toBe(0);
    const saved = JSON.parse(await readFile(join(w.dir, 'plan.json'), 'utf8'));
    saved.items[0].config_version = version;
    await w.write('plan.json', JSON.stringify(saved));
    const updates = await handled(w, 'update');
    const r = await w.run(['apply', 'plan.json']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^error: \S*\/plan\.json: the plan file is damaged \(an item is not a manifest, user and config version\)/);
    expect(await handled(w, 'update')).toBe(updates);
  });
});
