/**
 * The second check of a policy pattern: can the engine reach one place of the pattern along two
 * ways on the same text? JavaScript's engine backtracks, and on a value that fails it tries every
 * way the pattern can match each prefix. `^a*b?a*b?a*b?a*$` has a sequence check's blessing (no two
 * repetitions in a row share characters) yet splits a run of `a` among four stars: n^3 ways, 36 s
 * at 1,000 characters. The same holds for a fixed part beside a repetition (`a*[ab]b*`) and for
 * alternatives that match the same text (`(x|x)(x|x)...`, 2^n ways).
 *
 * The pattern becomes its position automaton (Glushkov: one state per character or class, an
 * edge to each state that can match the next character, counting the ways an edge is made, so
 * `(?:|)` or `(?:a?)?` shows two). Two ways through the same text are a pair of distinct states
 * reached on the same characters; the pattern is refused when such a pair can come back together
 * on one state, or when one edge is made two ways. What is accepted reaches each state along at
 * most one way per prefix, so the ways alive at once are at most the states (a few dozen for a
 * real pattern): the work per start is linear in the value, and the whole search (every start)
 * at most quadratic.
 *
 * Character sets are those the sequence check reads (everything beyond ASCII as one character),
 * which only adds edges: the check errs towards refusing.
 */
import { PatternCursor, Unsafe, type CharSet } from './pattern-cursor.js';

type Node =
  | { kind: 'chars'; chars: CharSet; text: string; at: number }
  | { kind: 'seq'; items: Node[] }
  | { kind: 'alt'; alts: Node[] }
  | { kind: 'rep'; body: Node; min: number; max: number };

/** Reads a pattern the sequence check accepted into a tree (assertions match nothing: dropped). */
class TreeReader extends PatternCursor {
  read(): Node {
    return this.disjunction();
  }

  private disjunction(): Node {
    const alts = [this.sequence()];
    while (this.src[this.i] === '|') {
      this.i++;
      alts.push(this.sequence());
    }
    return alts.length === 1 ? alts[0]! : { kind: 'alt', alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const c = this.src[this.i]!;
      if (c === '^' || c === '$' || (c === '\\' && (this.src[this.i + 1] === 'b' || this.src[this.i + 1] === 'B'))) {
        this.i += c === '\\' ? 2 : 1;
        continue;
      }
      const at = this.i;
      const atom: Node = c === '(' ? this.group() : { kind: 'chars', chars: this.atom(), text: '', at };
      if (atom.kind === 'chars') atom.text = this.src.slice(at, this.i);
      const [min, max] = this.quantifier();
      items.push(min === 1 && max === 1 ? atom : { kind: 'rep', body: atom, min, max });
    }
    return { kind: 'seq', items };
  }

  private group(): Node {
    this.i++;
    if (this.src.startsWith('?:', this.i)) this.i += 2;
    else if (this.src.startsWith('?<', this.i)) this.i = this.src.indexOf('>', this.i) + 1;
    const inner = this.disjunction();
    this.i++;
    return inner;
  }
}

/** Ways to be at each state: state -> count. */
type Ways = Map<number, number>;
interface Part {
  first: Ways;
  last: Ways;
  /** Ways to match no character. */
  empty: number;
}

/** More states than this are not checked (a `{9999}` copies its part 9,999 times): refused. */
const MAX_STATES = 2000;
/** Pairs of states compared before giving up: refused rather than checked for long. */
const MAX_STEPS = 3_000_000;

const EMPTY: Part = { first: new Map(), last: new Map(), empty: 1 };

function addWays(into: Ways, from: Ways, times: number): void {
  if (times === 0) return;
  for (const [s, n] of from) into.set(s, (into.get(s) ?? 0) + n * times);
}

/** The position automaton: each state's characters and where the text goes next. */
class Automaton {
  readonly chars: Array<{ mask: number[]; text: string; at: number }> = [];
  readonly next: Ways[] = [];
  first: Ways = new Map();

  build(node: Node): Part {
    switch (node.kind) {
      case 'chars':
        return this.state(node);
      case 'seq':
        return node.items.reduce((a, item) => this.concat(a, this.build(item)), EMPTY);
      case 'alt': {
        const part: Part = { first: new Map(), last: new Map(), empty: 0 };
        for (const alt of node.alts) {
          const p = this.build(alt);
          addWays(part.first, p.first, 1);
          addWays(part.last, p.last, 1);
          part.empty += p.empty;
        }
        return part;
      }
      case 'rep':
        return this.repeat(node.body, node.min, node.max);
    }
  }

  private state(node: { chars: CharSet; text: string; at: number }): Part {
    if (this.chars.length >= MAX_STATES) throw new Unsafe(`too long to check once repetitions are counted out (over ${MAX_STATES} characters)`);
    const s = this.chars.length;
    const mask = [0, 0, 0, 0, 0];
    node.chars.forEach((x, c) => {
      if (x) mask[c >> 5]! |= 1 << (c & 31);
    });
    this.chars.push({ mask, text: node.text, at: node.at });
    this.next.push(new Map());
    return { first: new Map([[s, 1]]), last: new Map([[s, 1]]), empty: 0 };
  }

  private link(from: Ways, to: Ways): void {
    for (const [a, n] of from) addWays(this.next[a]!, to, n);
  }

  private concat(a: Part, b: Part): Part {
    this.link(a.last, b.first);
    const first = new Map(a.first);
    addWays(first, b.first, a.empty);
    const last = new Map(b.last);
    addWays(last, a.last, b.empty);
    return { first, last, empty: a.empty * b.empty };
  }

  /**
   * `body{min,max}`: min copies, then the rest as one loop (`a{2,5}` as `aaa*`). Counted out,
   * `a{0,500}b?a{0,500}` has one way per state but 500 ways per prefix; as a loop it shows as the
   * `a*b?a*` it is. The loop has every way the counts have, so it errs towards refusing.
   * `?` stays optional, without a loop.
   */
  private repeat(body: Node, min: number, max: number): Part {
    let part = EMPTY;
    for (let k = 0; k < min; k++) part = this.concat(part, this.build(body));
    if (max === min) return part;
    const rest = this.build(body);
    if (max === 1) return this.concat(part, { ...rest, empty: rest.empty + 1 });
    if (rest.empty > 0) throw new Unsafe('a repeated part can match nothing');
    this.link(rest.last, rest.first);
    return this.concat(part, { ...rest, empty: 1 });
  }
}

const overlap = (a: number[], b: number[]): boolean => a.some((x, i) => (x & b[i]!) !== 0);

/** Why a pattern (accepted by the sequence check) can match one text two ways, or undefined. */
export function ambiguity(pattern: string): string | undefined {
  try {
    check(pattern);
  } catch (err) {
    if (err instanceof Unsafe) return err.message;
    throw err;
  }
  return undefined;
}

function check(pattern: string): void {
  const m = new Automaton();
  const whole = m.build(new TreeReader(pattern).read());
  const states = m.chars;
  const twice = (s: number): never => {
    const { text, at } = states[s]!;
    throw new Unsafe(`a text can reach \`${text}\` (character ${at + 1}) in more than one way`);
  };
  // Where two ways part: two states entered on the same character, from the start or one state.
  const pairs: Array<[number, number]> = [];
  const seen = new Set<number>();
  const push = (a: number, b: number): void => {
    const key = a < b ? a * states.length + b : b * states.length + a;
    if (!seen.has(key)) {
      seen.add(key);
      pairs.push([a, b]);
    }
  };
  for (const ways of [whole.first, ...m.next]) {
    const list = [...ways];
    for (const [s, n] of list) if (n > 1 && states[s]!.mask.some((x) => x !== 0)) twice(s);
    for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) if (overlap(states[list[i]![0]]!.mask, states[list[j]![0]]!.mask)) push(list[i]![0], list[j]![0]);
  }
  let steps = 0;
  // First in, first out: the place reported is where two ways meet soonest.
  for (let next = 0; next < pairs.length; next++) {
    const [a, b] = pairs[next]!;
    for (const x of m.next[a]!.keys()) {
      for (const y of m.next[b]!.keys()) {
        if (++steps > MAX_STEPS) throw new Unsafe('too complex to check');
        if (!overlap(states[x]!.mask, states[y]!.mask)) continue;
        if (x === y) twice(x);
        push(x, y);
      }
    }
  }
}
