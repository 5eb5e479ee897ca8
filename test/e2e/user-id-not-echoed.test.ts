import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

/*
 * Issue 29, item 9: a user id given on the command line that the state does not record is not
 * repeated in the error (`state show`, `state rm`, `get`): one pasted by mistake may be a secret,
 * and the error goes to CI logs. The recorded ids (the state's own) are still listed.
 */
const MANIFEST = 'name: hook\nuser_id: alice\ntoolkits: [gmail]\n';

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('a user id from the command line is not echoed', () => {
  test.each([
    'ghp_0123456789abcdefghijklmnopqrstuvwxyz',
    'sk_live_51HxYz0123456789abcdef',
    'AKIAIOSFODNN7EXAMPLE',
    'xoxb-1234-5678-abcdefghijkl',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
    'correct-horse-battery-staple',
  ])('%s', async (secret) => {
    const w = (world = await applyWorld({ 'm/hook.yaml': MANIFEST }));
    expect((await w.run(['apply', 'm'], {})).exitCode).toBe(0);
    for (const args of [['state', 'show', 'hook', '--user-id', secret], ['state', 'show', 'hook', '--user-id', secret, '--format', 'json'], ['state', 'rm', 'hook', '--user-id', secret], ['get', 'hook', '--user-id', secret]]) {
      const r = await w.run(args, {});
      expect(r.exitCode, args.join(' ')).toBe(2);
      expect(r.stdout + r.stderr).not.toContain(secret);
      expect(r.stderr).toContain('the user id given with --user-id');
      expect(r.stderr).toContain('alice');
    }
  });
});
