import { excerpt } from '../diagnostics/excerpt.js';

/**
 * A small glob matcher for manifest paths (and, through `compileGlob`, for any code that matches a
 * glob against a relative path). Node 20's `path.matchesGlob` is experimental and prints an
 * ExperimentalWarning to stderr, and `fs.glob` arrived only in Node 22.
 *
 * Forms: `*` (within one segment), `**` (any number of whole segments), `?`, `[abc]`, `[a-z]`,
 * `[!abc]` / `[^abc]` and `{a,b}` (nestable). Paths are matched with forward slashes. A leading
 * dot is matched only explicitly, as in a shell, and `**` never enters a hidden segment.
 *
 * Matching is not done with a regular expression: `*-*-*-*-*.yaml` compiled to one backtracks
 * exponentially on a long name that almost matches (over 20 s). Here a segment is matched with the
 * one-star-backtrack algorithm and segments with a table over (pattern segment, path segment), so
 * a match costs at most (pattern length x name length) steps per segment pair.
 */

/** A pattern that cannot be compiled; `reason` says why, for a usage error. */
export class GlobError extends Error {
  constructor(
    readonly pattern: string,
    readonly reason: string,
  ) {
    super(`the pattern ${excerpt(pattern)} is not valid: ${reason}`);
  }
}

/** A compiled pattern. */
export interface Glob {
  /** Whether a relative, forward-slash path (`teams/a/session.yaml`) matches the whole pattern. */
  match(relativePath: string): boolean;
}

/** More alternatives than this from `{...}` are refused: each is matched on its own. */
export const MAX_ALTERNATIVES = 256;
/** Braces nested deeper than this are refused (expansion recurses once per level). */
const MAX_BRACE_DEPTH = 16;

type Item = { kind: 'char'; ch: string } | { kind: 'any' } | { kind: 'star' } | { kind: 'class'; negate: boolean; ranges: Array<[number, number]> };

/** One segment of a pattern: `**`, or a sequence of items matched against one path segment. */
type Segment = { globstar: true } | { globstar: false; items: Item[]; dotOk: boolean };

export function hasGlobMagic(pattern: string): boolean {
  return /[*?[\]{}]/.test(pattern);
}

/** Splits a pattern into the folder to walk from (no magic in it) and the rest. */
export function splitGlob(pattern: string): { base: string; rest: string } {
  const segments = pattern.split('/');
  const firstMagic = segments.findIndex(hasGlobMagic);
  if (firstMagic === -1) return { base: pattern, rest: '' };
  const base = segments.slice(0, firstMagic).join('/');
  return { base: base === '' && pattern.startsWith('/') ? '/' : base, rest: segments.slice(firstMagic).join('/') };
}

/**
 * Compiles a glob (relative to its base). Throws GlobError for a pattern that is not valid: an
 * unclosed `[` or `{`, an empty class, a reversed range (`[z-a]`), too many alternatives.
 */
export function compileGlob(pattern: string): Glob {
  if (braceDepth(pattern) > MAX_BRACE_DEPTH) throw new GlobError(pattern, `its braces are nested more than ${MAX_BRACE_DEPTH} deep`);
  const alternatives = expandBraces(pattern, pattern).map((alt) => alt.split('/').map((s) => compileSegment(s, pattern)));
  return { match: (path) => matchAny(alternatives, path) };
}

/** Whether `relativePath` matches `pattern` (compiles it each time: for one-off checks). */
export function matchGlob(pattern: string, relativePath: string): boolean {
  return compileGlob(pattern).match(relativePath);
}

function matchAny(alternatives: readonly Segment[][], path: string): boolean {
  const parts = path.split('/').map((p) => Array.from(p));
  return alternatives.some((segments) => matchSegments(segments, parts));
}

/**
 * `ok[i][j]`: pattern segments i.. match path segments j.. Filled from the end, so each pair of
 * segments is compared at most once.
 */
function matchSegments(segments: readonly Segment[], parts: readonly string[][]): boolean {
  const rows = segments.length;
  const cols = parts.length;
  let next: boolean[] = new Array<boolean>(cols + 1).fill(false);
  next[cols] = true;
  for (let i = rows - 1; i >= 0; i--) {
    const seg = segments[i]!;
    const row: boolean[] = new Array<boolean>(cols + 1).fill(false);
    for (let j = cols; j >= 0; j--) {
      // A trailing `**` names what is inside a folder, never the folder itself: `x/**` does not match `x`.
      if (seg.globstar) row[j] = (i < rows - 1 && next[j]!) || (j < cols && parts[j]![0] !== '.' && (row[j + 1]! || next[j + 1]!));
      else row[j] = j < cols && next[j + 1]! && matchSegment(seg, parts[j]!);
    }
    next = row;
  }
  return next[0]!;
}

/** One path segment against one pattern segment: greedy, backtracking only to the last star. */
function matchSegment(seg: Extract<Segment, { globstar: false }>, s: readonly string[]): boolean {
  if (s[0] === '.' && !seg.dotOk) return false;
  const p = seg.items;
  let pi = 0;
  let si = 0;
  let starP = -1;
  let starS = 0;
  while (si < s.length) {
    const item = p[pi];
    if (item?.kind === 'star') {
      starP = pi++;
      starS = si;
    } else if (item !== undefined && matchesOne(item, s[si]!)) {
      pi++;
      si++;
    } else if (starP !== -1) {
      pi = starP + 1;
      si = ++starS;
    } else {
      return false;
    }
  }
  while (p[pi]?.kind === 'star') pi++;
  return pi === p.length;
}

function matchesOne(item: Item, ch: string): boolean {
  switch (item.kind) {
    case 'char':
      return item.ch === ch;
    case 'any':
      return true;
    case 'class': {
      const c = ch.codePointAt(0)!;
      return item.ranges.some(([lo, hi]) => c >= lo && c <= hi) !== item.negate;
    }
    default:
      return false;
  }
}

function compileSegment(text: string, pattern: string): Segment {
  if (text === '**') return { globstar: true };
  const chars = Array.from(text);
  const items: Item[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '*') items.push({ kind: 'star' });
    else if (c === '?') items.push({ kind: 'any' });
    else if (c === '[') {
      const parsed = parseClass(chars, i, pattern);
      items.push(parsed.item);
      i = parsed.end;
    } else items.push({ kind: 'char', ch: c });
  }
  return { globstar: false, items, dotOk: chars[0] === '.' };
}

/** `[...]` starting at `start`: its item and the index of its `]`. A `]` right after `[` or `[!` is literal. */
function parseClass(chars: readonly string[], start: number, pattern: string): { item: Item; end: number } {
  let i = start + 1;
  const negate = chars[i] === '!' || chars[i] === '^';
  if (negate) i++;
  const ranges: Array<[number, number]> = [];
  const first = i;
  for (; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === ']' && i > first) return { item: { kind: 'class', negate, ranges }, end: i };
    if (chars[i + 1] === '-' && chars[i + 2] !== undefined && chars[i + 2] !== ']') {
      const lo = c.codePointAt(0)!;
      const hi = chars[i + 2]!.codePointAt(0)!;
      if (lo > hi) throw new GlobError(pattern, `the range ${c}-${chars[i + 2]!} is reversed`);
      ranges.push([lo, hi]);
      i += 2;
    } else {
      ranges.push([c.codePointAt(0)!, c.codePointAt(0)!]);
    }
  }
  throw new GlobError(pattern, chars.length === start + 1 || (negate && chars.length === start + 2) ? 'a [ is never closed' : `the class ${chars.slice(start).join('')} has no closing ]`);
}

function braceDepth(pattern: string): number {
  let depth = 0;
  let max = 0;
  for (const c of pattern) {
    if (c === '{') max = Math.max(max, ++depth);
    else if (c === '}' && depth > 0) depth--;
  }
  return max;
}

/** `a{b,c{d,e}}f` -> abf, acdf, acef. A `}` or `,` outside braces is literal. */
function expandBraces(text: string, pattern: string): string[] {
  const open = text.indexOf('{');
  if (open === -1) return [text];
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; i < text.length && close === -1; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) close = i;
    else if (text[i] === ',' && depth === 1) commas.push(i);
  }
  if (close === -1) throw new GlobError(pattern, 'a { is never closed');
  const bounds = [open, ...commas, close];
  const head = text.slice(0, open);
  const tails = expandBraces(text.slice(close + 1), pattern);
  const out: string[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    for (const middle of expandBraces(text.slice(bounds[k]! + 1, bounds[k + 1]), pattern)) {
      for (const tail of tails) {
        out.push(head + middle + tail);
        if (out.length > MAX_ALTERNATIVES) throw new GlobError(pattern, `its {...} make more than ${MAX_ALTERNATIVES} alternatives`);
      }
    }
  }
  return out;
}
