import { describe, expect, test } from 'vitest';
import { expectedConfig } from '../../../src/config/expected.js';
import type { ManifestData } from '../../../src/config/types.js';
import { verifySession } from '../../../src/config/verify.js';
import { parseManifestText } from '../../../src/manifest/load.js';
import { describeChange } from '../../../src/plan/field-changes.js';
import { buildPlan } from '../../../src/plan/plan.js';
import { staleness, type SavedPlan } from '../../../src/runner/saved-plan.js';
import type { StateEntry } from '../../../src/state/entry.js';
import { sensitiveDigest } from '../../../src/util/sensitive.js';

const TEXT = 'name: a\nuser_id: ${USER_TOKEN}\ntoolkits: [gmail]\nmanage_connections:\n  callback_url: "https://h.example/cb?t=${HOOK_TOKEN}"\n';
const ENV = { USER_TOKEN: 'user-4242', HOOK_TOKEN: 'hook-secret-1' };

function doc(env: Record<string, string> = ENV) {
  const parsed = parseManifestText(TEXT, '/w/a.yaml', { env });
  expect(parsed.diagnostics).toEqual([]);
  return parsed.documents[0]!;
}

function stateOf(entries: StateEntry[]) {
  return { hashAtLoad: 'h', get: (name: string, user: string) => entries.find((e) => e.name === name && e.user_id === user), list: () => entries };
}

/** The entry apply writes for the first plan's item. */
function recorded(env: Record<string, string> = ENV): StateEntry {
  const item = buildPlan([doc(env)], stateOf([])).items[0]!;
  return { name: item.name, user_id: item.user_id, session_id: 'trs_a', mcp_url: 'http://x/mcp', tool_router_tools: [], config_version: 1, body_hash: item.body_hash, body: item.stored, applied_at: 't' };
}

describe('the plan compares and records sensitive values by digest', () => {
  test('what the state would keep holds no value, and the user id is recorded in its stored form', () => {
    const entry = recorded();
    expect(JSON.stringify(entry)).not.toContain('hook-secret-1');
    expect(JSON.stringify(entry)).not.toContain('user-4242');
    expect(entry.user_id).toMatch(/^\(sensitive: USER_TOKEN\) sha256:[0-9a-f]{64}$/);
    expect((entry.body!['manage_connections'] as Record<string, string>)['callback_url']).toMatch(/^\(sensitive: HOOK_TOKEN\) sha256:/);
  });

  test('the same secret again: no-op; the create body still sends the values themselves', () => {
    const plan = buildPlan([doc()], stateOf([recorded()]));
    expect(plan.items[0]!.action).toBe('no-op');
    expect(plan.items[0]!.body.user_id).toBe('user-4242');
  });

  test('a rotated secret: an update of that field, shown as `changed (sensitive: VAR)`, the PATCH sending the new value', () => {
    const plan = buildPlan([doc({ ...ENV, HOOK_TOKEN: 'hook-secret-2' })], stateOf([recorded()]));
    const item = plan.items[0]!;
    expect(item.action).toBe('update');
    expect(item.changes.map((c) => [c.field, c.op])).toEqual([['manage_connections.callback_url', 'change']]);
    expect(item.patch).toEqual({ manage_connections: { callback_url: 'https://h.example/cb?t=hook-secret-2' } });
    const shown = { ...item.changes[0]!, old: '(sensitive: HOOK_TOKEN)', new: '(sensitive: HOOK_TOKEN)' };
    expect(describeChange(shown)).toBe('changed (sensitive: HOOK_TOKEN)');
  });

  test('a saved plan names the variable whose value changed, never a value', () => {
    const plan = buildPlan([doc()], stateOf([]));
    const saved = { planVersion: 1, created_at: 't', files: [], state: 's', manifests_hash: plan.manifestsHash, state_hash: plan.stateHash, items: [], sensitive: { HOOK_TOKEN: sensitiveDigest('hook-secret-1') } } as SavedPlan;
    expect(staleness(plan, { path: '/w/plan.json', plan: saved }, new Map([['HOOK_TOKEN', 'hook-secret-1']]))).toBeUndefined();
    const stale = staleness(plan, { path: '/w/plan.json', plan: saved }, new Map([['HOOK_TOKEN', 'hook-secret-2']]))!;
    expect(stale.code).toBe('plan/stale');
    expect(stale.message).toContain('HOOK_TOKEN has another value than the plan was made with (the digest no longer matches)');
    expect(JSON.stringify(stale)).not.toContain('hook-secret');
  });
});

describe('drift of a sensitive field', () => {
  const live = (callback: string) => ({
    session_id: 'trs_a',
    config: { ...(expectedConfig(doc().data as ManifestData).config as Record<string, unknown>), manage_connections: { enabled: true, callback_url: callback, enable_wait_for_connections: false, enable_connection_removal: true } },
    tool_router_tools: expectedConfig(doc().data as ManifestData).toolRouterTools,
  });

  test('masked on both sides, in the differences, the finding and the diff', () => {
    const d = doc();
    const check = verifySession(d, expectedConfig(d.data as ManifestData), live('https://evil.example/?stolen=hook-secret-1'));
    expect(check.status).toBe('drifted');
    expect(check.differences.filter((x) => x.kind === 'changed')).toEqual([
      { kind: 'changed', path: '/config/manage_connections/callback_url', pointer: '/manage_connections/callback_url', expected: '(sensitive: HOOK_TOKEN)', actual: '(sensitive: HOOK_TOKEN)', sensitive: ['HOOK_TOKEN'] },
    ]);
    expect(check.diagnostics.map((x) => x.message)).toEqual(['a: config.manage_connections.callback_url changed (sensitive: HOOK_TOKEN): the service holds another value than the one declared']);
    expect(check.diff).toContain('+      "callback_url": "(sensitive: HOOK_TOKEN) (changed)"');
    for (const text of [JSON.stringify(check), check.diff]) {
      expect(text).not.toContain('hook-secret-1');
      expect(text).not.toContain('user-4242');
      expect(text).not.toContain('evil.example');
    }
  });

  test('revealed on request (--show-sensitive)', () => {
    const d = doc();
    const check = verifySession(d, expectedConfig(d.data as ManifestData), live('https://evil.example/'), { revealSensitive: true });
    expect(check.diff).toContain('https://evil.example/');
    expect(check.diagnostics[0]!.message).toContain('"https://h.example/cb?t=hook-secret-1"');
  });
});
