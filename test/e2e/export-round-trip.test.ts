import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/**
 * An exported manifest declares what was applied: a sensitive field made of a literal and a
 * variable is written back as that template, so the file validates and plans nothing to do.
 */
const MANIFEST = 'name: hook\nuser_id: ${USER_TOKEN}\ntoolkits: [gmail]\nmanage_connections:\n  callback_url: "https://hooks.example.com/cb?token=${HOOK_TOKEN}"\n';

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('export round-trips a template with a sensitive variable inside', () => {
  test('export -> validate -> plan is a no-op, and no value shows', async () => {
    const w = (world = await applyWorld({ 'm/hook.yaml': MANIFEST }));
    const env = { USER_TOKEN: 'user-8812', HOOK_TOKEN: 'first-secret-value' };
    expect((await w.run(['apply', 'm'], env)).exitCode).toBe(0);

    const exported = await w.run(['export', 'hook', '--out', 'again/hook.yaml'], env);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const text = await readFile(join(w.dir, 'again/hook.yaml'), 'utf8');
    expect(text).toContain('callback_url: https://hooks.example.com/cb?token=${HOOK_TOKEN} # set HOOK_TOKEN: a sensitive value\n');
    expect(text).toContain('user_id: ${USER_TOKEN} # set USER_TOKEN: a sensitive value\n');
    expect(text).toContain('# Set before validating or applying: USER_TOKEN, HOOK_TOKEN.\n');
    for (const value of ['user-8812', 'first-secret-value']) expect(text).not.toContain(value);

    const validated = await w.run(['validate', 'again'], env);
    expect(validated.exitCode, validated.stdout).toBe(0);
    const planned = await w.run(['plan', 'again', '--detailed-exitcode'], env);
    expect(planned.exitCode, planned.stdout).toBe(0);
  });

  test('a value the service holds that is not the applied one is masked whole', async () => {
    const w = (world = await applyWorld({ 'm/hook.yaml': MANIFEST }));
    const env = { USER_TOKEN: 'user-8812', HOOK_TOKEN: 'first-secret-value' };
    expect((await w.run(['apply', 'm'], env)).exitCode).toBe(0);
    // Exported with another value in the variable: which part of the URL it was is unknown.
    const rotated = await w.run(['export', 'hook'], { ...env, HOOK_TOKEN: 'second-secret-value' });
    expect(rotated.exitCode).toBe(0);
    expect(rotated.stdout).toContain('callback_url: ${HOOK_TOKEN} # set HOOK_TOKEN: a sensitive value\n');
    expect(rotated.stdout).not.toContain('first-secret-value');
    // Without the variable: the same.
    const unset = await w.run(['export', 'hook'], { USER_TOKEN: 'user-8812' });
    expect(unset.stdout).toContain('callback_url: ${HOOK_TOKEN} # set HOOK_TOKEN: a sensitive value\n');
    expect(unset.stdout).not.toContain('first-secret-value');
  });
});
