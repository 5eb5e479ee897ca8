/**
 * A reference backtracking matcher for the small regular expressions the pattern property test
 * generates (characters, `.`, classes, groups, alternation, greedy `*`, `+`, `?`, `{m,n}`), built
 * as JavaScript's engine runs them: alternatives in order, greedy repetition with the empty-match
 * stop. It counts every attempt to match one character, which is the work a pattern costs: the
 * engine's own steps cannot be counted, and a time limit would measure the machine.
 */
export type Rx =
  | { kind: 'char'; test: (c: string) => boolean; text: string }
  | { kind: 'seq'; items: Rx[] }
  | { kind: 'alt'; alts: Rx[] }
  | { kind: 'rep'; body: Rx; min: number; max: number };

export const lit = (ch: string): Rx => ({ kind: 'char', test: (c) => c === ch, text: ch === '-' || ch === '.' ? `\\${ch}` : ch });
export const dot: Rx = { kind: 'char', test: (c) => c !== '\n' && c !== '\r', text: '.' };
export const cls = (chars: string): Rx => ({ kind: 'char', test: (c) => chars.includes(c), text: `[${chars}]` });

export function source(rx: Rx): string {
  switch (rx.kind) {
    case 'char':
      return rx.text;
    case 'seq':
      return rx.items.map(source).join('');
    case 'alt':
      return `(?:${rx.alts.map(source).join('|')})`;
    case 'rep': {
      const body = rx.body.kind === 'char' ? source(rx.body) : `(?:${source(rx.body)})`;
      const q = rx.min === 0 && rx.max === Infinity ? '*' : rx.min === 1 && rx.max === Infinity ? '+' : rx.min === 0 && rx.max === 1 ? '?' : `{${rx.min},${rx.max === Infinity ? '' : rx.max}}`;
      return `${body}${q}`;
    }
  }
}

/** Characters the pattern holds once its repetitions are counted out (one more copy for a loop). */
export function size(rx: Rx): number {
  switch (rx.kind) {
    case 'char':
      return 1;
    case 'seq':
      return rx.items.reduce((n, r) => n + size(r), 0);
    case 'alt':
      return rx.alts.reduce((n, r) => n + size(r), 0);
    case 'rep':
      return size(rx.body) * (rx.max === Infinity ? rx.min + 1 : Math.max(rx.max, 1));
  }
}

/** Runs `^rx$` on `text` from its start; the number of character attempts, stopping past `limit`. */
export function attempts(rx: Rx, text: string, limit: number): number {
  let steps = 0;
  class Stop extends Error {}
  const m = (r: Rx, i: number, k: (j: number) => boolean): boolean => {
    switch (r.kind) {
      case 'char':
        if (++steps > limit) throw new Stop();
        return i < text.length && r.test(text[i]!) && k(i + 1);
      case 'seq': {
        const go = (n: number, j: number): boolean => (n === r.items.length ? k(j) : m(r.items[n]!, j, (x) => go(n + 1, x)));
        return go(0, i);
      }
      case 'alt':
        return r.alts.some((a) => m(a, i, k));
      case 'rep': {
        const go = (count: number, j: number): boolean =>
          (count < r.max && m(r.body, j, (x) => (x === j && count >= r.min ? false : go(count + 1, x)))) || (count >= r.min && k(j));
        return go(0, i);
      }
    }
  };
  try {
    m(rx, 0, (j) => j === text.length);
  } catch (err) {
    if (!(err instanceof Stop)) throw err;
  }
  return steps;
}
