import { describe, expect, test } from 'vitest';
import type { AppliedItem } from '../../../src/apply/apply.js';
import { githubOutputLines, outputKey } from '../../../src/apply/github-output.js';
import { formatTally } from '../../../src/apply/tally.js';
import { storedForm } from '../../../src/util/sensitive.js';

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

  test('sensitive user ids of one manifest: told apart by the start of their digests, never by their values', () => {
    const [a, b] = [storedForm('user-alice-secret', ['USER_TOKEN']), storedForm('user-bob-secret', ['USER_TOKEN'])];
    const text = githubOutputLines([applied('p', a, 'trs_2'), applied('p', b, 'trs_3')]);
    const keys = text.trimEnd().split('\n').map((l) => l.slice(0, l.indexOf('=')));
    expect(keys).toEqual([`p_sensitive_${a.slice(-64, -52)}_session_id`, `p_sensitive_${a.slice(-64, -52)}_mcp_url`, `p_sensitive_${b.slice(-64, -52)}_session_id`, `p_sensitive_${b.slice(-64, -52)}_mcp_url`]);
    expect(text).not.toContain('alice');
  });

  test.each([
    [{ created: 3, updated: 0, replaced: 0, deleted: 0, unchanged: 5, drifted: 1, failed: 0 }, '3 created, 5 unchanged, 1 drifted, 0 failed'],
    [{ created: 1, updated: 2, replaced: 3, deleted: 4, unchanged: 0, drifted: 0, failed: 1 }, '1 created, 2 updated, 3 replaced, 4 deleted, 0 unchanged, 0 drifted, 1 failed'],
    [{ created: 0, updated: 0, replaced: 1, deleted: 0, unchanged: 0, drifted: 0, failed: 0 }, '0 created, 1 replaced, 0 unchanged, 0 drifted, 0 failed'],
  ])('tally %#', (t, line) => {
    expect(formatTally(t)).toBe(line);
  });
});
