import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/*
 * Issue 29, item 9: `get` and `export` of a live session mask the values of environment variables
 * named like secrets even when no manifest and no state entry names them (the session holds the
 * value under a field that was never declared sensitive). A variable with an ordinary name, and
 * a secret-named one too short to mask in text, are shown as they are.
 */
const VALUE = 'q7Zr9xKp2mWv4tLs';
const MANIFEST = 'name: hook\nuser_id: "${UID}"\ntoolkits: [gmail]\n';

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('secret-named environment variables in get and export', () => {
  test.each(['PAYMENT_TOKEN', 'STRIPE_SECRET', 'DB_PASSWORD', 'OPENAI_API_KEY', 'SERVICE_CREDENTIALS', 'SECRET_VALUE'])('%s is masked in get and export', async (name) => {
    const w = (world = await applyWorld({ 'm/hook.yaml': MANIFEST }));
    expect((await w.run(['apply', 'm'], { UID: VALUE })).exitCode).toBe(0);
    for (const args of [['get', 'hook'], ['get', 'hook', '--format', 'json'], ['export', 'hook']]) {
      const r = await w.run(args, { [name]: VALUE });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout + r.stderr).not.toContain(VALUE);
      // export writes the variable back in its place, as for a declared sensitive value.
      expect(r.stdout, r.stdout).toContain(args[0] === 'export' ? `user_id: \${${name}}` : `(sensitive: ${name})`);
    }
  });

  test('an ordinary name, or a value too short, is shown', async () => {
    const w = (world = await applyWorld({ 'm/hook.yaml': MANIFEST }));
    expect((await w.run(['apply', 'm'], { UID: VALUE })).exitCode).toBe(0);
    expect((await w.run(['get', 'hook'], { USER_NAME: VALUE })).stdout).toContain(VALUE);
    expect((await w.run(['get', 'hook'], { DEBUG_TOKEN: 'gmail' })).stdout).toContain('gmail');
  });
});
