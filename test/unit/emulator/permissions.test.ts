import { describe, expect, test } from 'vitest';
import { permissionFor } from '../../../src/emulator/permissions.js';
import type { ExperimentalSettings } from '../../../src/emulator/store.js';

const settings = (permissions: ExperimentalSettings['permissions']): ExperimentalSettings => ({ permissions });

describe('permissionFor: the tool and account override, then the account wildcard, then the default', () => {
  test.each([
    ['no permissions: runs', undefined, 'GITHUB_X', 'ca_1', true],
    ['allow_all default: runs', settings({ default: 'allow_all' }), 'GITHUB_X', 'ca_1', true],
    ['ask default: does not run', settings({ default: 'ask_once_per_session' }), 'GITHUB_X', 'ca_1', false],
    ['tool override beats the wildcard', settings({ default: 'ask_every_call', overrides: { 'GITHUB_X:ca_1': 'always_allow', '*:ca_1': 'always_deny' } }), 'GITHUB_X', 'ca_1', true],
    ['wildcard for the account', settings({ default: 'allow_all', overrides: { '*:ca_1': 'always_deny' } }), 'GITHUB_Y', 'ca_1', false],
    ['an override for another account does not apply', settings({ default: 'allow_all', overrides: { 'GITHUB_X:ca_2': 'always_deny' } }), 'GITHUB_X', 'ca_1', true],
    ['no account is __none__', settings({ default: 'allow_all', overrides: { 'HACKERNEWS_GET_FRONTPAGE:__none__': 'ask_always' } }), 'HACKERNEWS_GET_FRONTPAGE', null, false],
  ] as const)('%s', (_name, s, tool, account, runs) => {
    expect(permissionFor(s, tool, account).run).toBe(runs);
  });

  test('the error names the rule that stopped the call', () => {
    expect(permissionFor(settings({ default: 'allow_all', overrides: { '*:ca_1': 'always_deny' } }), 'GITHUB_Y', 'ca_1')).toEqual({
      run: false,
      error: "Tool 'GITHUB_Y' is denied by the session's permissions.overrides['*:ca_1'] 'always_deny'",
    });
  });
});
