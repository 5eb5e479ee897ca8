import { describe, expect, test } from 'vitest';
import type { AppliedItem } from '../../../src/apply/apply.js';
import { githubOutputLines, outputKey } from '../../../src/apply/github-output.js';
import { formatTally } from '../../../src/apply/tally.js';
import type { StateEntry } from '../../../src/state/entry.js';
import { bodyHash } from '../../../src/config/request.js';
import { parseManifestText } from '../../../src/manifest/load.js';
import { buildPlan, countActions, hasChanges, manifestsHash } from '../../../src/plan/plan.js';

function docs(text: string, env: Record<string, string> = {}) {
  const parsed = parseManifestText(text, '/w/m.yaml', { env });
  expect(parsed.diagnostics).toEqual([]);
  return parsed.documents;
}

function stateOf(entries: StateEntry[]) {
  return {
    hashAtLoad: entries.length === 0 ? '' : 'h',
    get: (name: string, user: string) => entries.find((e) => e.name === name && e.user_id === user),
  };
}

const TEXT = `name: a
user_id: \${USER_ID}
toolkits: [gmail]
---
name: b
user_id: u2
workbench: { enable: false }
`;

function entry(name: string, user: string, hash: string): StateEntry {
  return { name, user_id: user, session_id: `trs_${name}`, mcp_url: 'http://x', tool_router_tools: [], body_hash: hash, applied_at: 't', config_version: null, body: null };
}

describe('buildPlan', () => {
  test('nothing recorded: every manifest is a create, with the wire body and expected config', () => {
    const plan = buildPlan(docs(TEXT, { USER_ID: 'alice' }), stateOf([]));
    expect(plan.items.map((i) => [i.name, i.user_id, i.action, i.reason])).toEqual([
      ['a', 'alice', 'create', 'not-applied'],
      ['b', 'u2', 'create', 'not-applied'],
    ]);
    expect(plan.items[0]!.body).toEqual({ user_id: 'alice', toolkits: { enable: ['gmail'] } });
    expect(plan.items[0]!.body_hash).toBe(bodyHash({ user_id: 'alice', toolkits: { enable: ['gmail'] } }));
    expect(plan.items[1]!.expected.toolRouterTools).not.toContain('COMPOSIO_REMOTE_WORKBENCH');
    expect(hasChanges(plan)).toBe(true);
  });

  test('state decides per name and resolved user: unchanged, replace, create for another user', () => {
    const first = buildPlan(docs(TEXT, { USER_ID: 'alice' }), stateOf([]));
    const state = stateOf([entry('a', 'alice', first.items[0]!.body_hash), entry('b', 'u2', 'old-hash')]);
    const again = buildPlan(docs(TEXT, { USER_ID: 'alice' }), state);
    expect(again.items.map((i) => [i.name, i.action, i.reason, i.recorded?.session_id])).toEqual([
      ['a', 'unchanged', 'up-to-date', 'trs_a'],
      ['b', 'replace', 'body-changed', 'trs_b'],
    ]);
    expect(countActions(again.items)).toEqual({ create: 0, replace: 1, unchanged: 1 });
    const bob = buildPlan(docs(TEXT, { USER_ID: 'bob' }), state);
    expect(bob.items[0]!.action).toBe('create');
  });

  test('the manifests hash follows names, users and bodies but not document order', () => {
    const ab = buildPlan(docs(TEXT, { USER_ID: 'alice' }), stateOf([]));
    const reordered = manifestsHash([...ab.items].reverse());
    expect(reordered).toBe(ab.manifestsHash);
    expect(buildPlan(docs(TEXT, { USER_ID: 'bob' }), stateOf([])).manifestsHash).not.toBe(ab.manifestsHash);
  });
});

function applied(name: string, user: string, session?: string): AppliedItem {
  return {
    name,
    file: '/m.yaml',
    user_id: user,
    action: 'create',
    outcome: session ? 'created' : 'failed',
    ...(session ? { session_id: session, mcp_url: `https://x/${session}/mcp` } : {}),
    drifted: false,
    drift: [],
    diagnostics: [],
    diff: '',
  };
}

describe('GitHub outputs and the tally', () => {
  test.each([
    ['support-agent', 'support-agent'],
    ['m#2', 'm_2'],
    ['9lives', '_9lives'],
    ['a.b c', 'a_b_c'],
  ])('output key of %s', (name, key) => {
    expect(outputKey(name)).toBe(key);
  });

  test('one pair per session; several users of one manifest get the user appended; failures get none', () => {
    const text = githubOutputLines([applied('support-agent', 'u1', 'trs_1'), applied('p', 'alice', 'trs_2'), applied('p', 'bob', 'trs_3'), applied('q', 'u', undefined)]);
    expect(text).toBe(
      [
        'support-agent_session_id=trs_1',
        'support-agent_mcp_url=https://x/trs_1/mcp',
        'p_alice_session_id=trs_2',
        'p_alice_mcp_url=https://x/trs_2/mcp',
        'p_bob_session_id=trs_3',
        'p_bob_mcp_url=https://x/trs_3/mcp',
        '',
      ].join('\n'),
    );
    expect(githubOutputLines([])).toBe('');
  });

  test.each([
    [{ created: 3, replaced: 0, unchanged: 5, drifted: 1, failed: 0 }, '3 created, 5 unchanged, 1 drifted, 0 failed'],
    [{ created: 1, replaced: 2, unchanged: 0, drifted: 0, failed: 1 }, '3 created (2 replacing an older session), 0 unchanged, 0 drifted, 1 failed'],
  ])('tally %#', (t, line) => {
    expect(formatTally(t)).toBe(line);
  });
});
