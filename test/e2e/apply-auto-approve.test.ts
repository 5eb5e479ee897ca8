import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/** `apply --auto-approve`, a terraform habit: apply never asks, so it runs, with a hint that says so. */
let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('apply --auto-approve', () => {
  test('applies as without it, and says once on stderr that apply never asks', async () => {
    const w = (world = await applyWorld({ 'm/a.yaml': 'name: a\nuser_id: u1\ntoolkits: [gmail]\n' }));
    const r = await w.run(['apply', 'm', '--auto-approve']);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('hint:'))).toStrictEqual([
      'hint: apply never asks for confirmation, so --auto-approve changes nothing; review what it will do with `sessionctl plan` (or save it with `plan --out FILE` and apply that file). Only destroy asks.',
    ]);
    expect(r.stdout).not.toContain('--auto-approve');
    expect((await w.state()).sessions.map((s) => s.name)).toStrictEqual(['a']);
    // Without it: no hint.
    expect((await w.run(['apply', 'm'])).stderr).not.toContain('--auto-approve');
    // Not offered in the help: it is not apply's flag.
    expect((await w.run(['apply', '--help'])).stdout).not.toContain('--auto-approve');
  });
});
