/**
 * The characters of a policy pattern, read one atom at a time: what a character, class or escape
 * can match (as a set) and the repetition after it. Both checks of a pattern (the shape of its
 * sequences in safe-pattern.ts, the ways to match one text in pattern-ambiguity.ts) read with it.
 */

/** A set of characters: ASCII one by one, everything beyond ASCII as one more member. */
export type CharSet = boolean[];
export const WIDE = 128;

export function set(...ranges: Array<[number, number]>): CharSet {
  const s = new Array<boolean>(WIDE + 1).fill(false);
  for (const [a, b] of ranges) for (let c = a; c <= b; c++) s[Math.min(c, WIDE)] = true;
  return s;
}
export const ALL = set([0, WIDE]);
export const union = (a: CharSet, b: CharSet): CharSet => a.map((x, i) => x || b[i]!);
export const negate = (a: CharSet): CharSet => a.map((x, i) => !x || i === WIDE);
export const disjoint = (a: CharSet, b: CharSet): boolean => a.every((x, i) => !(x && b[i]));

const DIGIT = set([48, 57]);
const WORD = set([48, 57], [65, 90], [97, 122], [95, 95]);
const SPACE = set([9, 13], [32, 32], [WIDE, WIDE]);
const classEscapes: Record<string, CharSet> = { d: DIGIT, D: negate(DIGIT), w: WORD, W: negate(WORD), s: SPACE, S: negate(SPACE) };

/** A pattern the checks refuse, with why. */
export class Unsafe extends Error {}

/** What follows `\x`, `\u` and `\c`: each letter takes its own digits (`\u0061` is one character, `\x4142` two). */
const escapeDigits = { x: /^[0-9a-fA-F]{2}/, u: /^(?:[0-9a-fA-F]{4}|\{[0-9a-fA-F]{1,6}\})/, c: /^[A-Za-z]/ };

/** A cursor over a pattern's text; subclasses read its structure. */
export class PatternCursor {
  protected i = 0;
  constructor(protected readonly src: string) {}

  protected atom(): CharSet {
    const c = this.src[this.i]!;
    if (c === '.') {
      this.i++;
      return negate(set([10, 10], [13, 13]));
    }
    if (c === '[') return this.charClass();
    if (c === '\\') return this.escape(false);
    if ('*+?{}'.includes(c)) throw new Unsafe(`\`${c}\` repeats nothing`);
    const code = this.src.codePointAt(this.i)!;
    this.i += code > 0xffff ? 2 : 1;
    return set([code, code]);
  }

  protected escape(inClass: boolean): CharSet {
    const c = this.src[this.i + 1];
    if (c === undefined) throw new Unsafe('a trailing backslash');
    this.i += 2;
    if (classEscapes[c] !== undefined) return classEscapes[c]!;
    if (/[1-9]/.test(c) || c === 'k') throw new Unsafe('backreferences are not supported');
    if (c === 'p' || c === 'P') {
      const close = this.src.indexOf('}', this.i);
      this.i = close === -1 ? this.src.length : close + 1;
      return ALL;
    }
    const simple: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13, '0': 0 };
    if (simple[c] !== undefined) return set([simple[c]!, simple[c]!]);
    if (c === 'x' || c === 'u' || c === 'c') {
      const m = escapeDigits[c].exec(this.src.slice(this.i));
      this.i += m?.[0].length ?? 0;
      const hex = m?.[0].replace(/[{}]/g, '') ?? '';
      const code = c === 'c' ? hex.charCodeAt(0) % 32 : parseInt(hex, 16);
      return Number.isNaN(code) ? ALL : set([code, code]);
    }
    // In a class `\b` is a backspace; outside one it is an assertion, which `sequence` skips.
    if (inClass && c === 'b') return set([8, 8]);
    const code = c.codePointAt(0)!;
    return set([code, code]);
  }

  protected charClass(): CharSet {
    this.i++;
    const negated = this.src[this.i] === '^';
    if (negated) this.i++;
    let chars = set();
    while (this.i < this.src.length && this.src[this.i] !== ']') {
      const from = this.classMember();
      if (this.src[this.i] === '-' && this.src[this.i + 1] !== ']' && this.i + 1 < this.src.length) {
        this.i++;
        const to = this.classMember();
        const lo = from.indexOf(true);
        const hi = to.lastIndexOf(true);
        chars = union(chars, lo <= hi ? set([lo, hi]) : union(from, to));
      } else chars = union(chars, from);
    }
    if (this.src[this.i] !== ']') throw new Unsafe('an unterminated character class');
    this.i++;
    return negated ? negate(chars) : chars;
  }

  protected classMember(): CharSet {
    if (this.src[this.i] === '\\') return this.escape(true);
    const code = this.src.codePointAt(this.i)!;
    this.i += code > 0xffff ? 2 : 1;
    return set([code, code]);
  }

  /** The repetition after an atom: [min, max], max Infinity when unbounded. */
  protected quantifier(): [number, number] {
    const c = this.src[this.i];
    let range: [number, number] | undefined;
    if (c === '*') range = [0, Infinity];
    else if (c === '+') range = [1, Infinity];
    else if (c === '?') range = [0, 1];
    if (range !== undefined) this.i++;
    else if (c === '{') {
      const m = /^\{(\d{1,4})(,(\d{0,4}))?\}/.exec(this.src.slice(this.i));
      if (m === null) return [1, 1];
      this.i += m[0].length;
      range = [Number(m[1]), m[2] === undefined ? Number(m[1]) : m[3] === '' ? Infinity : Number(m[3])];
    } else return [1, 1];
    if (this.src[this.i] === '?') this.i++;
    return range;
  }
}
