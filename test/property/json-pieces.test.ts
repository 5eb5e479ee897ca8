import { describe, expect, it } from 'vitest';
import { jsonPieces, LazyList } from '../../src/report/json-pieces.js';
import { fc, runs } from './fast-check.js';

/*
 * The JSON report in pieces (report/json-pieces): joined, the pieces are `JSON.stringify(object,
 * null, 2)` byte for byte, and every piece ends at a line end (redaction works piece by piece).
 */

/** Strings dense in what JSON escapes: line breaks, quotes, backslashes, controls, U+2028. */
const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', '\n', '\r\n', '"', '\\', '\u0000', '\u2028', '##[', '😀', '  ', '{}', '[]'));
const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null), fc.constant(undefined), tie('list'), tie('object')),
  list: fc.array(tie('any'), { maxLength: 4 }),
  object: fc.dictionary(text, tie('any'), { maxKeys: 4 }),
})).any;
/**
 * A top-level list is cut every 1,000 items: lengths around the cut (their items plain, with a
 * drawn value at the start and the end), and short lists of any values.
 */
const longList = fc
  .tuple(fc.constantFrom(999, 1000, 1001, 2000, 2001), value, value)
  .map(([n, first, last]) => [first, ...Array.from({ length: n - 2 }, (_, i) => (i % 2 === 0 ? `m${i}.yaml` : i)), last]);
const report = fc.dictionary(text, fc.oneof({ weight: 6, arbitrary: value }, { weight: 1, arbitrary: longList }), { maxKeys: 6 });

function joined(object: Record<string, unknown>): { text: string; pieces: string[] } {
  const pieces = [...jsonPieces(object)];
  return { text: pieces.join(''), pieces };
}

describe('jsonPieces', () => {
  it('joined, the pieces are JSON.stringify(object, null, 2) and a line end', () => {
    fc.assert(
      fc.property(report, (object) => {
        expect(joined(object).text).toBe(`${JSON.stringify(object, null, 2)}\n`);
      }),
      runs(),
    );
  });

  it('every piece ends at a line end, and a long list is cut every 1,000 items', () => {
    fc.assert(
      fc.property(report, (object) => {
        for (const piece of joined(object).pieces) expect(piece.endsWith('\n')).toBe(true);
      }),
      runs(),
    );
    const { pieces } = joined({ files: Array.from({ length: 2001 }, (_, i) => `m${i}.yaml`), n: 1 });
    expect(pieces.map((p) => p.split('\n').length - 1)).toStrictEqual([1, 1, 1000, 1000, 1, 1, 1, 1]);
  });

  it('a lazy list makes its items as they are written, in order, and writes what JSON would of them', () => {
    const made: number[] = [];
    const list = new LazyList([3, 1, 2], (n) => {
      made.push(n);
      return n === 2 ? undefined : { n };
    });
    const pieces = jsonPieces({ a: 'x', list, b: undefined, c: () => 1 });
    expect(pieces.next().value).toBe('{\n');
    expect(pieces.next().value).toBe('  "a": "x",\n');
    expect(made).toStrictEqual([]);
    expect([...pieces].join('')).toBe('  "list": [\n    {\n      "n": 3\n    },\n    {\n      "n": 1\n    },\n    null\n  ]\n}\n');
    expect(made).toStrictEqual([3, 1, 2]);
    expect(joined({}).text).toBe('{}\n');
    expect(joined({ gone: undefined }).text).toBe('{}\n');
    // What JSON leaves out of an object, or writes as null in a list: symbols as well.
    expect(joined({ s: Symbol('s'), list: [Symbol('t')] }).text).toBe(`${JSON.stringify({ s: Symbol('s'), list: [Symbol('t')] }, null, 2)}\n`);
    expect(joined({ none: new LazyList([], () => 1) }).text).toBe('{\n  "none": []\n}\n');
  });
});
