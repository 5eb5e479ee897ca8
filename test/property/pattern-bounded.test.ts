import { describe, expect, it } from 'vitest';
import { patternProblem } from '../../src/validate/policies/safe-pattern.js';
import { fc, runs } from './fast-check.js';
import { attempts, cls, dot, lit, size, source, type Rx } from './pattern-steps.js';

/*
 * Issue 29, item 5: every pattern the guard accepts runs in bounded steps. Patterns are generated
 * from characters that overlap on purpose (`a`, `b`, `[ab]`, `.`, `-`), groups, alternation and
 * every quantifier; those the guard accepts are run by a counting backtracking matcher on the
 * values that hurt (runs of one character, mixes) ending in a newline that nothing matches, so
 * every way is tried. Accepted means: at most one way to each place of the pattern per prefix,
 * so at most (length + 1) x size^2 attempts from one start; the polynomial patterns the guard
 * let through before (`a*b?a*b?a*`: cubic) and the exponential ones are far above.
 */

const atom = fc.constantFrom(lit('a'), lit('b'), lit('-'), cls('ab'), cls('a-'), dot);
const quantified = (inner: fc.Arbitrary<Rx>): fc.Arbitrary<Rx> =>
  fc.tuple(inner, fc.constantFrom([1, 1], [1, 1], [0, Infinity], [1, Infinity], [0, 1], [0, 2], [1, 3], [2, Infinity])).map(([body, [min, max]]) =>
    min === 1 && max === 1 ? body : { kind: 'rep', body, min: min!, max: max! },
  );
/** Flat sequences over two letters: where repetitions split one run among themselves. */
const flat: fc.Arbitrary<Rx> = fc
  .array(fc.tuple(fc.constantFrom(lit('a'), lit('b'), cls('ab')), fc.constantFrom([0, Infinity], [1, Infinity], [0, 1], [1, 1])), { minLength: 2, maxLength: 7 })
  .map((items): Rx => ({ kind: 'seq', items: items.map(([body, [min, max]]): Rx => (min === 1 && max === 1 ? body : { kind: 'rep', body, min: min!, max: max! })) }));
const { rx: nested } = fc.letrec<{ rx: Rx; item: Rx; group: Rx }>((tie) => ({
  rx: fc.array(tie('item'), { minLength: 1, maxLength: 6 }).map((items): Rx => ({ kind: 'seq', items })),
  item: fc.oneof({ depthSize: 'small', withCrossShrink: true }, quantified(atom), quantified(atom), quantified(tie('group'))),
  group: fc.oneof(
    fc.array(tie('item'), { minLength: 1, maxLength: 3 }).map((items): Rx => ({ kind: 'seq', items })),
    fc.array(fc.array(tie('item'), { minLength: 0, maxLength: 2 }).map((items): Rx => ({ kind: 'seq', items })), { minLength: 2, maxLength: 3 }).map((alts): Rx => ({ kind: 'alt', alts })),
  ),
}));

const N = 48;
const hostile = (n: number): string[] => ['a', 'b', '-', 'ab', 'a-', 'aab', 'ba-'].map((unit) => `${unit.repeat(Math.ceil(n / unit.length)).slice(0, n)}\n`);

/** Patterns the guard let through before this fix; each is far over the bound. */
const regressions: Rx[] = [
  { kind: 'seq', items: [{ kind: 'rep', body: lit('a'), min: 0, max: Infinity }, { kind: 'rep', body: lit('b'), min: 0, max: 1 }, { kind: 'rep', body: lit('a'), min: 0, max: Infinity }, { kind: 'rep', body: lit('b'), min: 0, max: 1 }, { kind: 'rep', body: lit('a'), min: 0, max: Infinity }] },
];

describe('policy patterns the guard accepts run in bounded steps', () => {
  it('every accepted pattern: at most (n + 1) x size^2 character attempts from one start, on every hostile value', () => {
    fc.assert(
      fc.property(fc.oneof(flat, nested), (r) => {
        const pattern = `^${source(r)}$`;
        if (patternProblem(pattern) !== undefined) return;
        const s = size(r);
        const bound = (N + 1) * (s + 1) * (s + 1);
        for (const text of hostile(N)) {
          const steps = attempts(r, text, bound * 4);
          if (steps > bound) throw new Error(`${pattern} took ${steps} attempts on ${JSON.stringify(text.slice(0, 6))}... (bound ${bound})`);
        }
      }),
      runs(regressions.map((r): [Rx] => [r])),
    );
  });

  it('the matcher counts what it should: a cubic pattern is over the bound, its accepted rewrite under it', () => {
    const cubic = regressions[0]!;
    const s = size(cubic);
    expect(attempts(cubic, `${'a'.repeat(N)}\n`, 1e9)).toBeGreaterThan((N + 1) * (s + 1) * (s + 1));
    const rewrite: Rx = { kind: 'seq', items: [{ kind: 'rep', body: lit('a'), min: 0, max: Infinity }, { kind: 'rep', body: { kind: 'seq', items: [lit('b'), { kind: 'rep', body: lit('a'), min: 0, max: Infinity }] }, min: 0, max: 1 }] };
    expect(patternProblem(`^${source(rewrite)}$`)).toBeUndefined();
    expect(attempts(rewrite, `${'a'.repeat(N)}\n`, 1e9)).toBeLessThanOrEqual((N + 1) * (size(rewrite) + 1) ** 2);
  });
});
