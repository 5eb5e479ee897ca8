import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/** `history --diff` between two versions that differ in a sensitive value: named, never shown. */
const MANIFEST = 'name: hook\nuser_id: u1\ntoolkits: [gmail]\nmanage_connections:\n  callback_url: "https://hooks.example.com/cb?token=${HOOK_TOKEN}"\n';

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('history --diff and sensitive values', () => {
  test('a rotated secret is a change, in human and JSON reports', async () => {
    const w = (world = await applyWorld({ 'm/hook.yaml': MANIFEST }));
    expect((await w.run(['apply', 'm'], { HOOK_TOKEN: 'first-secret-value' })).exitCode).toBe(0);
    const env = { HOOK_TOKEN: 'second-secret-value' };
    expect((await w.run(['apply', 'm'], env)).exitCode).toBe(0);

    const human = await w.run(['history', 'hook', '--diff', '1', '2'], env);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout).toBe('versions 1 and 2 differ only in sensitive values:\n  ~ manage_connections.callback_url: changed (sensitive: HOOK_TOKEN)\n');

    const json = await w.run(['history', 'hook', '--diff', '1', '2', '--format', 'json'], env);
    expect(json.exitCode, json.stderr).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed.changes).toEqual([{ field: 'manage_connections.callback_url', op: 'change', old: '(sensitive: HOOK_TOKEN)', new: '(sensitive: HOOK_TOKEN)' }]);
    expect([parsed.from.version, parsed.to.version]).toEqual([1, 2]);
    for (const out of [human.stdout, json.stdout]) for (const value of ['first-secret-value', 'second-secret-value', 'sha256:']) expect(out).not.toContain(value);

    // The same version on both sides: nothing changed.
    expect((await w.run(['history', 'hook', '--diff', '2', '2'], env)).stdout).toBe('versions 2 and 2 hold the same config\n');
  });

  test('a change a reader may see is in the unified diff, a secret listed after it', async () => {
    const w = (world = await applyWorld({ 'm/hook.yaml': MANIFEST }));
    expect((await w.run(['apply', 'm'], { HOOK_TOKEN: 'first-secret-value' })).exitCode).toBe(0);
    await w.write('m/hook.yaml', MANIFEST.replace('[gmail]', '[gmail, slack]'));
    const env = { HOOK_TOKEN: 'second-secret-value' };
    expect((await w.run(['apply', 'm'], env)).exitCode).toBe(0);
    const human = await w.run(['history', 'hook', '--diff', '1', '2'], env);
    expect(human.stdout).toContain('+      "slack"\n');
    expect(human.stdout).toMatch(/\nsensitive values that changed:\n {2}~ manage_connections\.callback_url: changed \(sensitive: HOOK_TOKEN\)\n$/);
    const json = JSON.parse((await w.run(['history', 'hook', '--diff', '1', '2', '--format', 'json'], env)).stdout);
    expect(json.changes.map((c: { field: string }) => c.field)).toEqual(['manage_connections.callback_url', 'toolkits.enabled']);
  });
});
