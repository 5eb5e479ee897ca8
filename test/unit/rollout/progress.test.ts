import { describe, expect, test } from 'vitest';
import { progressLine } from '../../../src/cli/rollout-progress.js';
import { canarySize } from '../../../src/rollout/canary-size.js';

describe('rollout progress', () => {
  const p = { name: 'agent', done: 4_812, total: 10_000, failed: 0, rate: 1_203.4, eta: 4.3, phase: 'rollout' as const };
  test('a bar on a terminal; a plain line in a CI log', () => {
    expect(progressLine(p, true)).toBe('[############------------]  48%  4,812/10,000 agent  1,203/s, 5 s left');
    expect(progressLine(p, false)).toBe('rollout agent: 4,812/10,000 sessions  1,203/s, 5 s left');
  });
  test('failures, the phase, minutes left, an unknown rate, a name that would move the cursor', () => {
    expect(progressLine({ ...p, failed: 3, phase: 'canary', eta: 600 }, false)).toBe('rollout agent: 4,812/10,000 sessions (canary), 3 failed  1,203/s, 10 min left');
    expect(progressLine({ ...p, done: 0, rate: 0, eta: undefined, phase: 'race' }, false)).toBe('rollout agent: 0/10,000 sessions (creates that raced the publish)  0/s, time left unknown');
    expect(progressLine({ ...p, name: 'a\u001b[2Jb' }, false)).not.toContain('\u001b');
    expect(progressLine({ ...p, done: 12_000 }, true)).toMatch(/^\[#{24}\] 100%/);
  });
});

describe('canary size', () => {
  test('a count or a share of the sessions behind, at least one and at most all', () => {
    expect([canarySize({ count: 50 }, 10_000), canarySize({ count: 50 }, 20), canarySize({ percent: 1 }, 48_912), canarySize({ percent: 0.001 }, 100), canarySize({ percent: 100 }, 7)]).toStrictEqual([50, 20, 490, 1, 7]);
  });
});
