import { describe, expect, test } from 'vitest';
import type { CommandEnv } from '../../../src/cli/command.js';
import { progressLine, rolloutProgress } from '../../../src/cli/rollout-progress.js';
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
    expect(progressLine({ ...p, done: 0, total: 0 }, true)).toMatch(/^\[#{24}\] 100%  0\/0 agent/);
    expect([90, 89.2, Infinity].map((eta) => progressLine({ ...p, eta }, false).split(', ')[1])).toStrictEqual(['2 min left', '90 s left', 'time left unknown']);
  });

  /** What the progress writes to a stderr that is (or is not) a terminal, on a clock the test moves. */
  function written(tty: boolean, steps: Array<[number, number]>): string {
    let out = '';
    let clock = 1_000;
    const env = { io: { stderr: { isTTY: tty, write: (t: string) => ((out += t), true) } }, masker: { text: (t: string) => t.replace('secret-name', '${NAME}') } } as unknown as CommandEnv;
    const report = rolloutProgress(env, () => clock);
    for (const [at, done] of steps) {
      clock = 1_000 + at;
      report({ ...p, name: 'secret-name', done, total: 100 });
    }
    return out;
  }

  test('a CI log gets a line every 5 s and one at the end; a terminal a bar redrawn at most ten times a second', () => {
    expect(written(false, [[100, 1], [4_999, 40], [5_000, 41], [6_000, 60], [6_001, 100]])).toBe(
      'rollout ${NAME}: 41/100 sessions  1,203/s, 5 s left\nrollout ${NAME}: 100/100 sessions  1,203/s, 5 s left\n',
    );
    const bar = written(true, [[50, 1], [100, 2], [150, 3], [260, 4], [300, 100]]);
    expect(bar.split('\r\u001b[K').slice(1).map((l) => l.slice(0, 33))).toStrictEqual(['[------------------------]   2%  ', '[#-----------------------]   4%  ', '[########################] 100%  ']);
    expect(bar.endsWith('\n')).toBe(true);
  });
});

describe('canary size', () => {
  test('a count or a share of the sessions behind, at least one and at most all', () => {
    expect([canarySize({ count: 50 }, 10_000), canarySize({ count: 50 }, 20), canarySize({ percent: 1 }, 48_912), canarySize({ percent: 0.001 }, 100), canarySize({ percent: 100 }, 7)]).toStrictEqual([50, 20, 490, 1, 7]);
  });
});
