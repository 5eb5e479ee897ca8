import { describe, expect, it } from 'vitest';
import { escapeSegment, joinPointer, parentPointer, splitPointer, unescapeSegment } from '../../src/util/json-pointer.js';
import { dottedPath } from '../../src/validate/pointer.js';
import { fc, runs } from './fast-check.js';

/*
 * JSON pointers (RFC 6901) and the dotted paths of messages, round trips on any segments: joining
 * and splitting (util/json-pointer, the one pointer module) undo each other, and a dotted path reads
 * back to the segments it was made from (a reader for it is written here).
 */

/** Segments dense in what needs escaping: `~`, `/`, `~0` / `~1` look-alikes, dots, quotes, digits. */
const segment = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('', '~', '/', '~0', '~1', '~01', '/~', '0', '01', '10', 'a.b', 'a b', '"', '\\', '[0]', '😀', '__proto__', 'constructor'));
const segments = fc.array(segment, { maxLength: 6 });

/** Reads a dotted path back into its segments: `a.b[0]."x y"`, `(document)` for none. */
function readDottedPath(text: string): string[] {
  if (text === '(document)') return [];
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '[') {
      const close = text.indexOf(']', i);
      out.push(text.slice(i + 1, close));
      i = close + 1;
      continue;
    }
    if (out.length > 0) {
      if (text[i] !== '.') throw new Error(`expected "." at ${i} of ${text}`);
      i++;
    }
    if (text[i] === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out.push(JSON.parse(text.slice(i, j + 1)) as string);
      i = j + 1;
    } else {
      const plain = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(text.slice(i));
      if (plain === null) throw new Error(`no segment at ${i} of ${text}`);
      out.push(plain[0]);
      i += plain[0].length;
    }
  }
  return out;
}

/** Every path into a JSON value, as segments (indices as numbers). */
function pathsOf(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  const here = [prefix];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => pathsOf(v, [...prefix, i]))];
  if (value !== null && typeof value === 'object') return [...here, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k]))];
  return here;
}

describe('JSON pointers', () => {
  it('joining and splitting round-trip any segments, one escape at a time', () => {
    fc.assert(
      fc.property(segments, (segs) => {
        const pointer = joinPointer('', ...segs);
        expect(segs.map((s) => `/${escapeSegment(s)}`).join('')).toBe(pointer);
        expect(joinPointer(joinPointer('', ...segs.slice(0, 1)), ...segs.slice(1))).toBe(pointer);
        expect(splitPointer(pointer)).toEqual(segs);
        for (const s of segs) expect(unescapeSegment(escapeSegment(s))).toBe(s);
      }),
      runs<[string[]]>([[['~01']], [['']], [['', '']], [['/']]]),
    );
  });

  it('the parent of a pointer drops its last segment', () => {
    fc.assert(
      fc.property(segments, segment, (segs, last) => {
        expect(parentPointer(joinPointer('', ...segs, last))).toBe(joinPointer('', ...segs));
      }),
      runs<[string[], string]>([[[], ''], [['a'], '/']]),
    );
  });
});

describe('dotted paths', () => {
  it('read back to the segments of any pointer into any JSON value', () => {
    const valueAndPath = fc.jsonValue({ maxDepth: 4 }).chain((value) => fc.constantFrom(...pathsOf(value)).map((path) => [value, path] as const));
    fc.assert(
      fc.property(valueAndPath, ([value, path]) => {
        const shown = dottedPath(joinPointer('', ...path), value);
        expect(readDottedPath(shown), shown).toEqual(path.map(String));
      }),
      runs(),
    );
  });

  it('read back to the segments of any pointer without data (numbers become indices)', () => {
    fc.assert(
      fc.property(segments, (segs) => {
        const shown = dottedPath(joinPointer('', ...segs));
        expect(readDottedPath(shown), shown).toEqual(segs);
      }),
      runs<[string[]]>([[['0', '01']], [['a.b', '']]]),
    );
  });
});
