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

import { ambiguity } from './pattern-ambiguity.js';
import { disjoint, PatternCursor, set, union, Unsafe, type CharSet } from './pattern-cursor.js';

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

class PatternReader extends PatternCursor {
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
  const twoWays = ambiguity(pattern);
  return twoWays === undefined ? undefined : `it could take polynomial or exponential time: ${twoWays}`;
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
