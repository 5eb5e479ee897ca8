import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/*
 * `--prune` scoped the way the loader reads the paths: a path that exists is that file or folder,
 * whatever characters its name holds; only a path that does not exist is a glob.
 */

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('apply --prune over a path whose name holds glob characters', () => {
  test('a file named m/[ab].yaml: the run covers that file only, so the session of m/a.yaml is not deleted', async () => {
    world = await applyWorld({ 'm/[ab].yaml': 'name: x\nuser_id: u\n', 'm/a.yaml': 'name: a\nuser_id: u\n' });
    expect((await world.run(['apply', 'm'])).exitCode).toBe(0);
    const r = await world.run(['apply', '--prune', 'm/[ab].yaml']);
    expect(r.exitCode, r.stdout).toBe(0);
    expect(r.stdout).toContain('0 created, 1 unchanged, 0 drifted, 0 failed');
    expect((await world.state()).sessions.map((s) => s.name)).toStrictEqual(['a', 'x']);
    expect(((await world.admin('GET', 'sessions')) as { sessions: unknown[] }).sessions).toHaveLength(2);
  });

  test('a folder named teams[a]: its removed manifest is pruned, the folder teamsa is not touched', async () => {
    world = await applyWorld({ 'teams[a]/one.yaml': 'name: one\nuser_id: u\n', 'teams[a]/two.yaml': 'name: two\nuser_id: u\n', 'teamsa/three.yaml': 'name: three\nuser_id: u\n' });
    expect((await world.run(['apply', 'teams[a]', 'teamsa'])).exitCode).toBe(0);
    await world.write('teams[a]/two.yaml', 'name: one-more\nuser_id: u\n');
    const r = await world.run(['apply', '--prune', 'teams[a]']);
    expect(r.exitCode, r.stdout).toBe(0);
    expect(r.stdout).toContain('1 created, 1 deleted, 1 unchanged, 0 drifted, 0 failed');
    expect((await world.state()).sessions.map((s) => s.name)).toStrictEqual(['one', 'one-more', 'three']);
  });
});
