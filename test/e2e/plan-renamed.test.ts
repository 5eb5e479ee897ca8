import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/** A renamed manifest: plan suggests `state mv` instead of deleting a session and creating its twin. */
let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const body = 'user_id: u1\ntoolkits: [gmail]\n';

describe('a delete and a create of the same user and body', () => {
  test('plan suggests state mv, with and without --prune; after it the plan is a no-op', async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': `name: support\n${body}` }));
    expect((await w.run(['apply', 'm'])).exitCode).toBe(0);
    const [old] = (await w.state()).sessions;
    await w.write('m/a.yaml', `name: support-agent\n${body}`);

    for (const prune of [[], ['--prune']]) {
      const r = await w.run(['plan', 'm', ...prune, '--format', 'json']);
      expect(r.exitCode, r.stdout).toBe(0);
      const found = (JSON.parse(r.stdout) as { diagnostics: Array<{ code: string; severity: string; range: { start: unknown }; hint: string }> }).diagnostics.filter((d) => d.code === 'plan/renamed');
      expect(found.map((d) => [d.severity, d.range.start, d.hint])).toStrictEqual([
        ['info', { line: 1, col: 1 }, 'if support was renamed to support-agent, keep its session: `sessionctl state mv support support-agent`, then plan again'],
      ]);
    }
    const human = await w.run(['plan', 'm', '--prune']);
    expect(human.stdout).toContain(`support-agent: the same user and body as support's session ${old!.session_id}, whose manifest is gone; this plan deletes it and creates another`);

    expect((await w.run(['state', 'mv', 'support', 'support-agent'])).exitCode).toBe(0);
    const after = await w.run(['plan', 'm', '--prune', '--detailed-exitcode', '--format', 'json']);
    expect(after.exitCode).toBe(0);
    expect(JSON.parse(after.stdout).diagnostics).toStrictEqual([]);
  });

  test('another body is no rename: nothing suggested', async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': `name: support\n${body}` }));
    expect((await w.run(['apply', 'm'])).exitCode).toBe(0);
    await w.write('m/a.yaml', `name: support-agent\n${body.replace('gmail', 'slack')}`);
    const r = await w.run(['plan', 'm', '--prune', '--format', 'json']);
    expect((JSON.parse(r.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code)).toStrictEqual([]);
  });
});
