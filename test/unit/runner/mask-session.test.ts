import { describe, expect, test } from 'vitest';
import { maskRecordedConfig, maskRecordedSession, registerRecordedSensitive } from '../../../src/runner/mask-session.js';
import type { StateEntry } from '../../../src/state/entry.js';
import { storedForm, ValueMasker } from '../../../src/util/sensitive.js';
import type { Session } from '../../../src/wire/session.js';

// What `get` and `history` show of a session that apply recorded with sensitive fields: the
// recorded fields masked whole, and the current values of their variables masked everywhere.

const TOKEN = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789';
const HOOK = `https://h.example/cb?t=${TOKEN}`;
const USER = 'user-secret-42';

function entry(body: StateEntry['body']): StateEntry {
  return { name: 'a', user_id: 'u', session_id: 'trs_1', mcp_url: '', tool_router_tools: [], config_version: 1, body_hash: '', body, applied_at: '1970-01-01T00:00:00.000Z' };
}

const recorded = entry({
  user_id: storedForm(USER, ['USER_TOKEN']),
  manage_connections: { callback_url: storedForm(HOOK, ['HOOK_URL', 'HOOK_TOKEN']), enable: true },
  tags: ['plain', storedForm('x', ['LISTED_TOKEN'])],
});

describe('registerRecordedSensitive', () => {
  test('the current values of every variable the entry names, with a known secret inside them', () => {
    const masker = new ValueMasker();
    registerRecordedSensitive(recorded, masker, { USER_TOKEN: USER, HOOK_URL: HOOK, HOOK_TOKEN: 'hook-token-value', OTHER_TOKEN: 'not-named-here' });
    expect(masker.entries()).toEqual([
      { value: USER, labels: ['USER_TOKEN'] },
      { value: 'hook-token-value', labels: ['HOOK_TOKEN'] },
      { value: HOOK, labels: ['HOOK_URL'] },
      { value: TOKEN, labels: ['HOOK_URL'] },
      // Named like a secret: masked though the entry does not name it (issue 29).
      { value: 'not-named-here', labels: ['OTHER_TOKEN'] },
    ]);
  });

  test('no entry, no body, or no stored form: nothing of the entry is added, only variables named like secrets', () => {
    const masker = new ValueMasker();
    registerRecordedSensitive(undefined, masker, { USER_VALUE: USER });
    registerRecordedSensitive(entry(null), masker, { USER_VALUE: USER });
    registerRecordedSensitive(entry({ user_id: USER, n: null, list: [1, 'x'] }), masker, { USER_VALUE: USER });
    expect(masker.size).toBe(0);
    registerRecordedSensitive(undefined, masker, { USER_TOKEN: USER, SHORT_TOKEN: '1' });
    expect(masker.entries()).toEqual([{ value: USER, labels: ['USER_TOKEN'] }]);
  });
});

describe('maskRecordedSession and maskRecordedConfig', () => {
  const body = entry({ name: 'a', user_id: storedForm(USER, ['USER_TOKEN']), manage_connections: { callback_url: storedForm(HOOK, ['HOOK_TOKEN']) } });

  test('recorded fields are masked whole whatever the service holds; known values anywhere', () => {
    const masker = new ValueMasker();
    masker.add(TOKEN, 'HOOK_TOKEN');
    const session = {
      session_id: 'trs_1',
      mcp: { url: `https://mcp.example/?k=${TOKEN}` },
      config: { user_id: 'changed-by-someone', manage_connections: { enabled: true, callback_url: 'https://other.example/' }, note: TOKEN },
    } as unknown as Session;
    expect(maskRecordedSession(session, body, masker)).toEqual({
      session_id: 'trs_1',
      mcp: { url: 'https://mcp.example/?k=(sensitive: HOOK_TOKEN)' },
      config: { user_id: '(sensitive: USER_TOKEN)', manage_connections: { enabled: true, callback_url: '(sensitive: HOOK_TOKEN)' }, note: '(sensitive: HOOK_TOKEN)' },
    });
  });

  test('without a recorded body only the masker applies', () => {
    const masker = new ValueMasker();
    masker.add(USER, 'USER_TOKEN');
    const config = { user_id: USER, other: 'x' };
    expect(maskRecordedConfig(config, entry(null), masker)).toEqual({ user_id: '(sensitive: USER_TOKEN)', other: 'x' });
    expect(maskRecordedConfig(config, undefined, masker)).toEqual({ user_id: '(sensitive: USER_TOKEN)', other: 'x' });
    expect(maskRecordedConfig({ user_id: 'changed' }, undefined, masker)).toEqual({ user_id: 'changed' });
    expect(maskRecordedConfig({ user_id: 'changed' }, body, masker)).toEqual({ user_id: '(sensitive: USER_TOKEN)' });
  });
});
