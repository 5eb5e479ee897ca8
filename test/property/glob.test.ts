import { describe, expect, it } from 'vitest';
import { GlobError, matchGlob } from '../../src/manifest/glob.js';
import { fc, runs, textOf } from './fast-check.js';

/*
 * The glob matcher against a reference written here for reading, not speed: a backtracking match
 * of the pattern's segments against the path's. Semantics (src/manifest/glob.ts): `*` and `?`
 * within one segment, `**` as a whole segment for any number of segments (at least one when it
 * ends the pattern), `[abc]` / `[!abc]`
 * (a `]` right after the bracket is a member), `{a,b}` alternatives (expanded first over the whole
 * pattern, as a shell does: one may hold a `/` or be a `**`), and a segment starting with
 * `.` matched only by a pattern segment that starts with `.`. A malformed pattern (an unclosed `[`
 * or `{`, a reversed range) is refused by the matcher as a usage error and not compared.
 */

/** The matcher under test, in one place (the matcher's API may change; its meaning may not). */
const matches = (pattern: string, path: string): boolean => matchGlob(pattern, path);

/** Patterns the matcher refuses as malformed (a usage error): they have no meaning to compare. */
function refused(pattern: string): boolean {
  try {
    matchGlob(pattern, '');
    return false;
  } catch (err) {
    if (err instanceof GlobError) return true;
    throw err;
  }
}

type Token = { t: 'lit'; c: string } | { t: 'star' } | { t: 'one' } | { t: 'class'; chars: string; negate: boolean };

/**
 * Braces expanded first, over the whole pattern, as a shell does: an alternative may hold a `/`
 * or be a `**`, and a `{` inside `[...]` is still a brace. `{` nests; `,` and `}` outside braces
 * are literal.
 */
function expandBraces(pattern: string): string[] {
  let i = 0;
  const sequence = (inBraces: boolean): string[] => {
    let outs = [''];
    while (i < pattern.length) {
      const c = pattern[i]!;
      if (inBraces && (c === ',' || c === '}')) return outs;
      i++;
      if (c === '{') {
        const branches: string[] = [];
        for (;;) {
          branches.push(...sequence(true));
          if (pattern[i++] !== ',') break;
        }
        outs = outs.flatMap((o) => branches.map((b) => o + b));
      } else outs = outs.map((o) => o + c);
    }
    return outs;
  };
  return sequence(false);
}

/** One pattern segment (braces already expanded) as tokens. */
function tokens(segment: string): Token[] {
  const items: Token[] = [];
  for (let i = 0; i < segment.length; ) {
    const c = segment[i++]!;
    if (c === '*') items.push({ t: 'star' });
    else if (c === '?') items.push({ t: 'one' });
    else if (c === '[' && segment.indexOf(']', i + 1) !== -1) {
      const close = segment.indexOf(']', i + 1);
      let body = segment.slice(i, close);
      const negate = body.startsWith('!') || body.startsWith('^');
      if (negate) body = body.slice(1);
      items.push({ t: 'class', chars: body, negate });
      i = close + 1;
    } else items.push({ t: 'lit', c });
  }
  return items;
}

function matchTokens(ts: readonly Token[], s: string, at: number): boolean {
  if (ts.length === 0) return at === s.length;
  const [first, ...rest] = ts as [Token, ...Token[]];
  switch (first.t) {
    case 'lit':
      return s[at] === first.c && matchTokens(rest, s, at + 1);
    case 'one':
      return at < s.length && matchTokens(rest, s, at + 1);
    case 'class':
      return at < s.length && first.chars.includes(s[at]!) !== first.negate && matchTokens(rest, s, at + 1);
    case 'star':
      for (let k = at; k <= s.length; k++) if (matchTokens(rest, s, k)) return true;
      return false;
  }
}

function matchSegment(pattern: string, segment: string): boolean {
  // A hidden segment is matched only by a pattern segment that starts with a literal `.`.
  const ts = tokens(pattern);
  return (!segment.startsWith('.') || (ts[0]?.t === 'lit' && ts[0].c === '.')) && matchTokens(ts, segment, 0);
}

function reference(pattern: string, path: string): boolean {
  const go = (ps: readonly string[], ss: readonly string[]): boolean => {
    if (ps.length === 0) return ss.length === 0;
    const [p, ...rest] = ps as [string, ...string[]];
    if (p === '**') {
      // Followed by more pattern, zero segments or more; last, one or more ('x/**' is what lies
      // under x: 'x/' and 'x/a', not 'x' itself).
      for (let k = rest.length === 0 ? 1 : 0; k <= ss.length; k++) {
        if (ss.slice(0, k).some((s) => s.startsWith('.'))) break;
        if (go(rest, ss.slice(k))) return true;
      }
      return false;
    }
    return ss.length > 0 && matchSegment(p, ss[0]!) && go(rest, ss.slice(1));
  };
  return expandBraces(pattern).some((alternative) => go(alternative.split('/'), path.split('/')));
}

const PATTERN_PIECES = ['a', 'b', '.', '/', '*', '**', '?', '[', ']', '!', '[ab]', '[!a]', '{', '}', ',', '{a,b}', '{a,.b}', '.y', 'ml'];
const PATH_PIECES = ['a', 'b', '.', '/', 'ab', '.a', 'y', 'ml', ']', '!', '{', ',', '}'];

const regressions: Array<[string, string]> = [
  ['x/**', 'x'],
  ['**', ''],
  ['**/a', '.b/a'],
  ['[]]', ']'],
  ['{.a,b}', '.a'],
  ['a//b', 'a//b'],
  ['{**}', '/'],
  ['[{a,.b}]', ','],
  ['{a/b,c}', 'a/b'],
];

describe('the glob matcher against a reference', () => {
  it('agrees on any pattern and path drawn from the glob alphabet', () => {
    fc.assert(
      fc.property(textOf(PATTERN_PIECES, 10), textOf(PATH_PIECES, 10), (pattern, path) => {
        fc.pre(!refused(pattern));
        expect(matches(pattern, path), `${JSON.stringify(pattern)} on ${JSON.stringify(path)}`).toBe(reference(pattern, path));
      }),
      runs(regressions),
    );
  });

  it('a pattern without magic matches exactly itself', () => {
    fc.assert(
      fc.property(textOf(['a', 'b', '.', '/', '-', '(', ')', '+', '$', '^', '|', '\\', ' '], 12), textOf(['a', 'b', '.', '/'], 8), (literal, other) => {
        fc.pre(!literal.split('/').some((s) => s.startsWith('.')) && literal !== other);
        expect(matches(literal, literal)).toBe(true);
        expect(matches(literal, other)).toBe(false);
      }),
      runs(),
    );
  });

  it('the regression cases read as the reference says', () => {
    expect(regressions.map(([p, s]) => [p, s, reference(p, s)])).toEqual([
      ['x/**', 'x', false],
      ['**', '', true],
      ['**/a', '.b/a', false],
      ['[]]', ']', true],
      ['{.a,b}', '.a', true],
      ['a//b', 'a//b', true],
      ['{**}', '/', true],
      ['[{a,.b}]', ',', false],
      ['{a/b,c}', 'a/b', true],
    ]);
  });

  it.each(['[!]', '{a,b', '[z-a]', 'a/[b'])('a malformed pattern %s is refused, not guessed at', (pattern) => {
    expect(refused(pattern)).toBe(true);
  });
});
