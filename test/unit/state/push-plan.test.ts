import { describe, expect, test } from 'vitest';
import { InvalidArgumentError } from 'commander';
import { parseLockTimeout } from '../../../src/cli/run-options.js';
import type { StateEntry } from '../../../src/state/entry.js';
import { formatWait } from '../../../src/state/lock.js';
import { newerBecause, pickEntries, pickEntry, planPush } from '../../../src/state/operations.js';

function entry(name: string, over: Partial<StateEntry> = {}): StateEntry {
  return { name, user_id: 'u1', session_id: `trs_${name}`, mcp_url: 'm', tool_router_tools: [], config_version: 2, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z', ...over };
}

describe('newerBecause: is the state\'s entry newer than the pushed one?', () => {
  test.each([
    ['the same session, a higher config_version in the state', entry('a', { config_version: 3 }), entry('a', { config_version: 2, applied_at: '2026-04-01T00:00:00.000Z' }), 'config_version 3 in the state, 2 in the file'],
    ['the same session, a lower config_version in the state (later applied_at does not matter)', entry('a', { config_version: 2, applied_at: '2026-04-01T00:00:00.000Z' }), entry('a', { config_version: 3 }), undefined],
    ['another session, applied later in the state', entry('a', { session_id: 'trs_new', applied_at: '2026-03-02T00:00:00.000Z' }), entry('a'), 'applied at 2026-03-02T00:00:00.000Z in the state, at 2026-03-01T10:00:00.000Z in the file'],
    ['another session, applied earlier in the state', entry('a', { session_id: 'trs_old', applied_at: '2026-02-01T00:00:00.000Z' }), entry('a'), undefined],
    ['no versions: applied_at decides', entry('a', { config_version: null, applied_at: '2026-03-02T00:00:00.000Z' }), entry('a', { config_version: 9 }), 'applied at 2026-03-02T00:00:00.000Z in the state, at 2026-03-01T10:00:00.000Z in the file'],
    ['the same instant, different contents', entry('a', { mcp_url: 'x' }), entry('a', { mcp_url: 'y' }), 'applied at the same time (2026-03-01T10:00:00.000Z) with different contents'],
    ['another session with a higher config_version, applied earlier: applied_at decides', entry('a', { session_id: 'trs_other', config_version: 5, applied_at: '2026-02-01T00:00:00.000Z' }), entry('a', { config_version: 3 }), undefined],
    ['the same session and config_version, applied later in the state: applied_at decides', entry('a', { applied_at: '2026-03-02T00:00:00.000Z', mcp_url: 'x' }), entry('a'), 'applied at 2026-03-02T00:00:00.000Z in the state, at 2026-03-01T10:00:00.000Z in the file'],
  ])('%s', (_name, current, incoming, why) => {
    expect(newerBecause(current, incoming)).toBe(why);
  });
});

describe('planPush', () => {
  test('add, update, unchanged (times compared as instants), conflict, and the entries only the state has are kept', () => {
    const current = [entry('same', { applied_at: '2026-03-01T10:00:00.000Z' }), entry('older'), entry('newer', { config_version: 5 }), entry('only-here')];
    const incoming = [entry('same', { applied_at: '2026-03-01T10:00:00Z' }), entry('older', { config_version: 3 }), entry('newer', { config_version: 4 }), entry('new')];
    const plan = planPush(current, incoming, 'in.json');
    expect(plan.changes.map((c) => [c.entry.name, c.action])).toEqual([
      ['same', 'unchanged'],
      ['older', 'update'],
      ['newer', 'conflict'],
      ['new', 'add'],
    ]);
    expect(plan.kept.map((e) => e.name)).toEqual(['only-here']);
  });

  test('a document that records an entry twice, or a time that is not one, is refused', () => {
    expect(() => planPush([], [entry('a'), entry('a')], 'in.json')).toThrow('the document records "a" for user "u1" twice');
    expect(() => planPush([], [entry('a', { applied_at: 'yesterday' })], 'in.json')).toThrow('has applied_at "yesterday", which is not an ISO 8601 time');
  });
});

describe('pickEntry', () => {
  const entries = [entry('solo'), entry('multi', { user_id: 'alice' }), entry('multi', { user_id: 'bob' })];
  test('by name, by name and user, and every user of a name', () => {
    expect(pickEntry(entries, 'solo', undefined, 'loc').user_id).toBe('u1');
    expect(pickEntry(entries, 'multi', 'bob', 'loc').user_id).toBe('bob');
    expect(pickEntries(entries, 'multi', undefined, 'loc').map((e) => e.user_id)).toEqual(['alice', 'bob']);
  });
  test.each([
    ['an unknown name lists what the state has', () => pickEntry(entries, 'nope', undefined, 'loc'), 'the state (loc) has no entry named "nope"'],
    ['an unknown user lists the users', () => pickEntry(entries, 'multi', 'carol', 'loc'), '"multi" is not recorded for the user id given with --user-id'],
    ['several users need --user-id', () => pickEntry(entries, 'multi', undefined, 'loc'), '"multi" is recorded for 2 users (alice, bob)'],
    ['an empty state says so', () => pickEntry([], 'x', undefined, 'loc'), 'the state (loc) has no entry named "x"'],
  ])('%s', (_name, call, message) => {
    expect(call).toThrow(message);
  });
});

describe('--lock-timeout', () => {
  test.each([
    ['0', 0],
    ['90', 90_000],
    ['500ms', 500],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['24h', 86_400_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseLockTimeout(text)).toBe(ms);
  });
  test.each(['-1', '5 m', '1.5s', '25h', 'soon', '', '1d'])('%j is refused', (text) => {
    expect(() => parseLockTimeout(text)).toThrow(InvalidArgumentError);
  });
  test('waits are said as people say them', () => {
    expect([formatWait(300), formatWait(1500), formatWait(30_000), formatWait(120_000)]).toEqual(['0.3s', '1.5s', '30s', '2m']);
  });
});
