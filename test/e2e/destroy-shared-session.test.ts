import { afterEach, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/*
 * One session recorded under two names (`import` adopted the session of `a` for `b` as well):
 * destroy plans one deletion for it, sends one DELETE (a second would answer 404 and count as a
 * second session deleted), counts one, and forgets both entries.
 */

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

test('destroy of two manifests recording one session: one DELETE, 1 deleted, both entries forgotten', async () => {
  const w = (world = await applyWorld({ 'a.yaml': 'name: a\nuser_id: u1\n', 'b.yaml': 'name: b\nuser_id: u1\n' }));
  expect((await w.run(['apply', 'a.yaml'])).exitCode).toBe(0);
  const id = (await w.state()).sessions[0]!.session_id;
  const imported = await w.run(['import', 'b', id, 'b.yaml']);
  expect(imported.exitCode, imported.stderr).toBe(0);
  expect((await w.state()).sessions.map((s) => [s.name, s.session_id])).toStrictEqual([
    ['a', id],
    ['b', id],
  ]);

  const dry = await w.run(['destroy', 'a.yaml', 'b.yaml', '--dry-run']);
  expect(dry.stdout).toContain('Plan: 0 to create, 0 to update, 0 to replace, 1 to delete, 0 no-op');
  expect(dry.stdout).toContain(`${id}: would be deleted by destroy; also recorded for b (user u1)`);

  const r = await w.run(['destroy', 'a.yaml', 'b.yaml', '--auto-approve', '--format', 'json']);
  expect(r.exitCode, r.stdout).toBe(0);
  const report = JSON.parse(r.stdout) as { applied: { items: Array<{ name: string; outcome: string; session_id: string }>; tally: Record<string, number> } };
  expect(report.applied.items.map((i) => [i.name, i.outcome, i.session_id])).toStrictEqual([['a', 'deleted', id]]);
  expect(report.applied.tally).toMatchObject({ deleted: 1, failed: 0 });
  expect(r.stderr).toContain('destroy will delete 1 session:\n');
  const stats = (await w.admin('GET', 'stats')) as { routes: { delete?: { received: number } } };
  expect(stats.routes.delete?.received).toBe(1);
  expect((await w.state()).sessions).toStrictEqual([]);
  expect((await w.admin('GET', 'sessions')).sessions).toStrictEqual([]);
});
