/**
 * Policy patterns are regular expressions written in a project's `sessionctl.yaml` and run over
 * manifest values, and JavaScript's backtracking engine can take exponential (or high polynomial)
 * time on a badly shaped one: a hostile or careless `(a+)+$` would hang every run. Patterns are
 * therefore checked when the config loads and refused unless their shape bounds the work:
 *
 * - no backreferences and no lookaround;
 * - no repetition inside a repeated group, and no alternation inside one (star height 1);
 * - two variable repetitions in a row (`a*`, `b?`, `[a-z]{1,8}`) must not be able to match the
 *   same characters, unless a fixed part between them matches a character one of them cannot
 *   (`[a-z]+-[a-z]+` is fine, `.*-.*` and `a?a?` are not).
 *
 * With values at most 1,024 characters long, an accepted pattern does at most quadratic work.
 * The check is conservative: a pattern it refuses can be rewritten to pass (`[^-]*-.*`).
 */

/** A set of characters: ASCII one by one, everything beyond ASCII as one more member. */
type CharSet = boolean[];
const WIDE = 128;

function set(...ranges: Array<[number, number]>): CharSet {
  const s = new Array<boolean>(WIDE + 1).fill(false);
  for (const [a, b] of ranges) for (let c = a; c <= b; c++) s[Math.min(c, WIDE)] = true;
  return s;
}
const ALL = set([0, WIDE]);
const union = (a: CharSet, b: CharSet): CharSet => a.map((x, i) => x || b[i]!);
const negate = (a: CharSet): CharSet => a.map((x, i) => !x || i === WIDE);
const disjoint = (a: CharSet, b: CharSet): boolean => a.every((x, i) => !(x && b[i]));

const DIGIT = set([48, 57]);
const WORD = set([48, 57], [65, 90], [97, 122], [95, 95]);
const SPACE = set([9, 13], [32, 32], [WIDE, WIDE]);
const classEscapes: Record<string, CharSet> = { d: DIGIT, D: negate(DIGIT), w: WORD, W: negate(WORD), s: SPACE, S: negate(SPACE) };

/** One element of a sequence: the characters it can match and how often. */
interface Item {
  chars: CharSet;
  min: number;
  max: number;
  /** Holds a variable repetition somewhere inside (a group). */
  variable: boolean;
  /** An optional group (`(?:\.[0-9]+)?`): its items, present or absent as a whole. */
  optional?: Item[];
}

class Unsafe extends Error {}

/** What follows `\x`, `\u` and `\c`: each letter takes its own digits (`\u0061` is one character, `\x4142` two). */
const escapeDigits = { x: /^[0-9a-fA-F]{2}/, u: /^(?:[0-9a-fA-F]{4}|\{[0-9a-fA-F]{1,6}\})/, c: /^[A-Za-z]/ };

class PatternReader {
  private i = 0;
  constructor(private readonly src: string) {}

  /** Reads the whole pattern; each top-level alternative is checked on its own. */
  read(): void {
    this.disjunction(0);
    if (this.i < this.src.length) throw new Unsafe(`unexpected \`${this.src[this.i]!}\``);
  }

  private disjunction(depth: number): { items: Item[][]; alternatives: number } {
    const alternatives: Item[][] = [this.sequence(depth)];
    while (this.src[this.i] === '|') {
      this.i++;
      alternatives.push(this.sequence(depth));
    }
    for (const alt of alternatives) checkSequence(alt);
    return { items: alternatives, alternatives: alternatives.length };
  }

  private sequence(depth: number): Item[] {
    const items: Item[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const c = this.src[this.i]!;
      if (c === '^' || c === '$') {
        this.i++;
        continue;
      }
      if (c === '\\' && (this.src[this.i + 1] === 'b' || this.src[this.i + 1] === 'B')) {
        this.i += 2;
        continue;
      }
      const atom = c === '(' ? this.group(depth) : { chars: this.atom(), min: 1, max: 1, variable: false, inner: [] as Item[], alternatives: 1 };
      const [min, max] = this.quantifier();
      if (max === 1 && min === 1) {
        items.push(...(atom.alternatives === 1 && atom.inner.length > 0 ? atom.inner : [{ chars: atom.chars, min: atom.min, max: atom.max, variable: atom.variable }]));
        continue;
      }
      if (min === 0 && max === 1 && atom.alternatives === 1 && atom.inner.length > 0) {
        items.push({ chars: atom.chars, min: 0, max: atom.max, variable: true, optional: atom.inner });
        continue;
      }
      if (atom.variable || atom.alternatives > 1) throw new Unsafe('a repeated group holds a repetition or an alternation');
      const total = { min: atom.min * min, max: atom.max * max };
      items.push({ chars: atom.chars, ...total, variable: total.min !== total.max });
    }
    return items;
  }

  private group(depth: number): Item & { inner: Item[]; alternatives: number } {
    if (depth > 8) throw new Unsafe('groups are nested too deep');
    this.i++;
    if (this.src.startsWith('?:', this.i)) this.i += 2;
    else if (this.src.startsWith('?<', this.i) && !this.src.startsWith('?<=', this.i) && !this.src.startsWith('?<!', this.i)) {
      const close = this.src.indexOf('>', this.i);
      if (close === -1) throw new Unsafe('an unterminated group name');
      this.i = close + 1;
    } else if (this.src[this.i] === '?') throw new Unsafe('lookahead and lookbehind are not supported');
    const { items, alternatives } = this.disjunction(depth + 1);
    if (this.src[this.i] !== ')') throw new Unsafe('an unterminated group');
    this.i++;
    const all = items.flat();
    const chars = all.reduce((acc, item) => union(acc, item.chars), set());
    const lengths = items.map((alt) => alt.reduce((n, item) => n + item.min, 0));
    const maxes = items.map((alt) => alt.reduce((n, item) => n + item.max, 0));
    return { chars, min: Math.min(...lengths), max: Math.max(...maxes), variable: all.some((item) => item.variable), inner: alternatives === 1 ? items[0]! : [], alternatives };
  }

  private atom(): CharSet {
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

  private escape(inClass: boolean): CharSet {
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

  private charClass(): CharSet {
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

  private classMember(): CharSet {
    if (this.src[this.i] === '\\') return this.escape(true);
    const code = this.src.codePointAt(this.i)!;
    this.i += code > 0xffff ? 2 : 1;
    return set([code, code]);
  }

  /** The repetition after an atom: [min, max], max Infinity when unbounded. */
  private quantifier(): [number, number] {
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

/** More optional groups than this in one sequence are refused: each doubles the shapes to check. */
const MAX_OPTIONAL_GROUPS = 6;

/**
 * Checks a sequence in every shape its optional groups give it (each present or absent), since
 * the engine may try each: in every shape, two variable repetitions in a row must not share
 * characters unless a fixed part separates them.
 */
function checkSequence(items: readonly Item[]): void {
  const optional = items.filter((item) => item.optional !== undefined).length;
  if (optional > MAX_OPTIONAL_GROUPS) throw new Unsafe(`more than ${MAX_OPTIONAL_GROUPS} optional groups in a row`);
  for (let mask = 0; mask < 1 << optional; mask++) {
    let n = 0;
    checkShape(items.flatMap((item) => (item.optional === undefined ? [item] : (mask >> n++) & 1 ? item.optional : [])));
  }
}

function checkShape(items: readonly Item[]): void {
  let previous: Item | undefined;
  let between: Item[] = [];
  for (const item of items) {
    const varies = item.variable || item.max !== item.min;
    if (!varies) {
      between.push(item);
      continue;
    }
    if (previous !== undefined && !disjoint(previous.chars, item.chars)) {
      const separated = between.some((b) => b.min >= 1 && (disjoint(b.chars, previous!.chars) || disjoint(b.chars, item.chars)));
      if (!separated) throw new Unsafe('two repetitions in a row can match the same characters');
    }
    previous = item;
    between = [];
  }
}

/** Why a pattern is refused, or undefined when it is valid and safe to run. */
export function patternProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, 'u');
  } catch (err) {
    return `it is not a valid regular expression: ${(err as Error).message.replace(/^Invalid regular expression: /, '')}`;
  }
  try {
    new PatternReader(pattern).read();
  } catch (err) {
    if (err instanceof Unsafe) return `it could take exponential time: ${err.message}`;
    throw err;
  }
  return undefined;
}

const compiled = new Map<string, RegExp>();

/** The compiled pattern (`u` flag), once per pattern. Only patterns that `patternProblem` accepted reach here. */
export function compilePattern(pattern: string): RegExp {
  let re = compiled.get(pattern);
  if (re === undefined) {
    re = new RegExp(pattern, 'u');
    if (compiled.size < 1000) compiled.set(pattern, re);
  }
  return re;
}
