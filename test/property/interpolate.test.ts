import { describe, expect, it } from 'vitest';
import { interpolate } from '../../src/manifest/interpolate.js';
import { fc, runs, textOf } from './fast-check.js';

/*
 * `${VAR}` expansion on any text and environment: it never throws; the output is bounded by the
 * input plus one value per reference; a text without `${` comes back unchanged; the expansion is
 * idempotent once no `${` is left; each variable read is named once, and an unset one is a
 * problem that names it, its reference left as written.
 */

const NAMES = ['A', 'B', '_x', 'LONG_NAME_1'];
const PIECES = ['${', '$${', '$', '}', ':-', ':', '-', 'A', 'B', '_x', 'LONG_NAME_1', '1', ' ', 'text', '{', '${A}', '${B:-d}', '${_x:-}', '${9}', '${A-b}', '${ A}', '😀'];

const env = fc.dictionary(fc.constantFrom(...NAMES), fc.oneof(fc.constant(''), fc.string({ maxLength: 12 }), textOf(PIECES, 4)), { maxKeys: NAMES.length });
const text = fc.oneof(textOf(PIECES, 30), fc.string({ maxLength: 40 }));

const count = (s: string, what: string): number => s.split(what).length - 1;

const regressions: Array<[string, Record<string, string>]> = [
  ['$${A}', { A: 'x' }],
  ['${A', {}],
  ['${A:-${B}}', { B: 'b' }],
  ['${A}', { A: '${B}' }],
];

describe('interpolate on any text and environment', () => {
  it('is bounded: at most the text plus the longest value once per `${`', () => {
    fc.assert(
      fc.property(text, env, (t, e) => {
        const r = interpolate(t, e);
        const longest = Math.max(0, ...Object.values(e).map((v) => v.length));
        expect(r.value.length).toBeLessThanOrEqual(t.length + count(t, '${') * longest);
      }),
      runs(regressions),
    );
  });

  it('leaves a text without `${` as it is', () => {
    fc.assert(
      fc.property(text.filter((t) => !t.includes('${')), env, (t, e) => {
        expect(interpolate(t, e)).toEqual({ value: t, problems: [], variables: [], used: [] });
      }),
      runs(regressions.filter(([t]) => !t.includes('${'))),
    );
  });

  it('is idempotent once no `${` is left', () => {
    fc.assert(
      fc.property(text, env, (t, e) => {
        const once = interpolate(t, e).value;
        fc.pre(!once.includes('${'));
        expect(interpolate(once, e)).toEqual({ value: once, problems: [], variables: [], used: [] });
      }),
      runs(regressions),
    );
  });

  it('accounts for every variable it read, once; problems name unset ones and keep the reference', () => {
    fc.assert(
      fc.property(text, env, (t, e) => {
        const r = interpolate(t, e);
        expect(new Set(r.variables).size).toBe(r.variables.length);
        // The values that went into the result (what sensitivity is judged on) are the environment's.
        for (const u of r.used) {
          expect(r.variables).toContain(u.name);
          expect(u.value).toBe(e[u.name]);
        }
        for (const name of r.variables) expect(t).toContain(name);
        for (const p of r.problems) {
          expect(['env/unset-variable', 'env/bad-reference']).toContain(p.code);
          if (p.code === 'env/unset-variable') {
            expect(e[p.variable!]).toBeUndefined();
            expect(r.value).toContain(`\${${p.variable!}}`);
          }
        }
      }),
      runs(regressions),
    );
  });
});
