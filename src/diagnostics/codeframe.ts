import type { Position, Range } from './diagnostic.js';

export interface CodeFrameOptions {
  /** Lines shown before and after the range. Default 2. */
  context?: number;
  /** Columns of source shown per line; longer lines are cut around the range. Default 100. */
  maxWidth?: number;
  /** Lines of a multi-line range shown before the middle is elided. Default 5. */
  maxRangeLines?: number;
  /** Colours for the gutter and for the `>` marker and carets; identity when absent. */
  paint?: { gutter(text: string): string; marker(text: string): string };
}

const identity = (text: string): string => text;

/** A source line as terminal cells: one printable character per cell, whatever the source held. */
interface Cells {
  cells: string[];
  /** `at[i]` is the cell where UTF-16 code unit `i` starts; `at[length]` is the line's width. */
  at: number[];
}

// A tab would move the text by a width we cannot know; control characters (an ESC from a
// hostile file) must never reach the terminal. Both are replaced by harmless cells. A line of a
// frame never starts with `::` (the gutter comes first), so only `##[` needs a cell of its own.
const TAB_CELLS = ['→', ' '];
const REPLACEMENT = '\uFFFD';

function toCells(line: string): Cells {
  const cells: string[] = [];
  const at: number[] = [];
  for (let i = 0; i < line.length; i++) {
    at.push(cells.length);
    const code = line.charCodeAt(i);
    if (code === 0x09) {
      cells.push(...TAB_CELLS);
    } else if (code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0xfeff) {
      cells.push(REPLACEMENT);
    } else if (code >= 0xd800 && code <= 0xdbff && i + 1 < line.length) {
      const next = line.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        // A surrogate pair is one character: both code units start in the same cell.
        cells.push(line.slice(i, i + 2));
        at.push(cells.length - 1);
        i++;
      } else {
        cells.push(REPLACEMENT);
      }
    } else if (code >= 0xd800 && code <= 0xdfff) {
      cells.push(REPLACEMENT);
    } else if (code === 0x5b && line.startsWith('##', i - 2)) {
      // `##[name]` anywhere in a CI log line is a (legacy) workflow command: shown as `##\[`.
      cells.push('\\', '[');
    } else {
      cells.push(line[i] as string);
    }
  }
  at.push(cells.length);
  return { cells, at };
}

/** The cell of a 1-based column; columns past the end continue one cell per column. */
function cellOf(line: Cells, col: number): number {
  const i = col - 1;
  const last = line.at.length - 1;
  if (i <= last) return line.at[Math.max(0, i)] as number;
  return (line.at[last] as number) + (i - last);
}

function firstTextCol(line: string): number | undefined {
  const m = /\S/.exec(line);
  return m === null ? undefined : m.index + 1;
}

/**
 * Clamps a range to the text and drops a trailing line the range only touches at column 1 (yaml
 * ends a block collection at the start of the next line, which is not part of it).
 */
function normalise(lines: readonly string[], range: Range): Range | undefined {
  const start = range.start;
  if (start.line < 1 || start.line > lines.length) return undefined;
  let end: Position = range.end;
  if (end.line < start.line || (end.line === start.line && end.col < start.col)) end = start;
  if (end.line > lines.length) end = { line: lines.length, col: (lines[lines.length - 1] as string).length + 1 };
  if (end.line > start.line && end.col <= 1) {
    end = { line: end.line - 1, col: (lines[end.line - 2] as string).length + 1 };
  }
  return { start, end };
}

/** Lines longer than this many code units are cut to a window around the range before framing. */
const LONG_LINE = 1000;

/**
 * The frame's lines cut to the code units around the range when one is long, and the range moved
 * with them. A frame shows `maxWidth` cells, but turning a line into cells costs its whole length:
 * a 500 KB flow list on one line with a finding per item cost a 500 KB pass per finding (minutes).
 * The window keeps `2 * maxWidth` units before the start, so the frame still starts with `…` and
 * shows the same text as the uncut line (a tab before the window no longer shifts it).
 */
export function windowed(lines: readonly string[], r: Range, context: number, maxWidth: number): { lines: readonly string[]; r: Range } {
  const first = Math.max(1, r.start.line - context);
  const last = Math.min(lines.length, r.end.line + context);
  let longest = 0;
  for (let n = first; n <= last; n++) longest = Math.max(longest, (lines[n - 1] as string).length);
  if (longest <= LONG_LINE) return { lines, r };
  let cut = Math.max(0, r.start.col - 1 - 2 * maxWidth);
  const lead = lines[r.start.line - 1] as string;
  // Never start inside a surrogate pair of the range's line.
  const unit = lead.charCodeAt(cut);
  if (cut > 0 && unit >= 0xdc00 && unit <= 0xdfff) cut--;
  const end = cut + 4 * maxWidth;
  const shift = (p: Position): Position => ({ line: p.line, col: Math.max(1, Math.min(p.col - cut, end - cut + 1)) });
  // Only the frame's lines are read: copying every line of a long file per frame would be quadratic again.
  const cutLines: string[] = [];
  for (let n = first; n <= last; n++) cutLines[n - 1] = (lines[n - 1] as string).slice(cut, end);
  return { lines: cutLines, r: { start: shift(r.start), end: shift(r.end) } };
}

/** A source's lines, as `codeFrame` counts them; split once per file when framing many ranges. */
export function splitLines(source: string): string[] {
  return source.split(/\r\n|\r|\n/);
}

/**
 * Renders the lines around a range with a line-number gutter, a `>` on the lines of the range and
 * carets under it, as editors and the yaml library do:
 *
 * ```
 *   3 | toolkits:
 *   4 |   enable: [github]
 * > 5 |   disable: [slack]
 *     |   ^^^^^^^
 *   6 | tools: {}
 * ```
 *
 * Positions are 1-based with an exclusive end, as in every Diagnostic; an empty range gets one
 * caret. Returns '' when the range lies outside the source. No trailing newline. `source` is the
 * text, or its `splitLines` when one file gets many frames.
 */
export function codeFrame(source: string | readonly string[], range: Range, options: CodeFrameOptions = {}): string {
  const context = options.context ?? 2;
  const maxWidth = Math.max(options.maxWidth ?? 100, 10);
  const maxRangeLines = Math.max(options.maxRangeLines ?? 5, 2);
  const gutter = options.paint?.gutter ?? identity;
  const marker = options.paint?.marker ?? identity;

  const all = typeof source === 'string' ? splitLines(source) : source;
  // A final newline ends the last line; it does not start a new one we should show as context.
  const lastLine = all.length > 1 && all[all.length - 1] === '' ? all.length - 1 : all.length;
  const whole = normalise(all, range);
  if (whole === undefined) return '';
  const { lines, r } = windowed(all, whole, context, maxWidth);

  type Row = { kind: 'context' | 'range'; line: number } | { kind: 'elided' };
  const rows: Row[] = [];
  for (let n = Math.max(1, r.start.line - context); n < r.start.line; n++) rows.push({ kind: 'context', line: n });
  const rangeCount = r.end.line - r.start.line + 1;
  for (let n = r.start.line; n <= r.end.line; n++) {
    if (rangeCount > maxRangeLines && n - r.start.line >= maxRangeLines - 1 && n !== r.end.line) {
      if (rows[rows.length - 1]?.kind !== 'elided') rows.push({ kind: 'elided' });
      continue;
    }
    rows.push({ kind: 'range', line: n });
  }
  for (let n = r.end.line + 1; n <= Math.min(lastLine, r.end.line + context); n++) rows.push({ kind: 'context', line: n });

  const cells = new Map<number, Cells>();
  for (const row of rows) if (row.kind !== 'elided') cells.set(row.line, toCells(lines[row.line - 1] as string));

  // One horizontal window for the whole frame, so the lines stay aligned with each other.
  const widest = Math.max(...[...cells.values()].map((c) => c.cells.length));
  const focus = cellOf(cells.get(r.start.line) as Cells, r.start.col);
  // Keep the start of the line when the range is well inside the first screen; otherwise centre it.
  const offset =
    widest <= maxWidth || focus < Math.floor((maxWidth * 2) / 3)
      ? 0
      : Math.max(0, Math.min(focus - Math.floor(maxWidth / 2), widest - maxWidth));

  const numberWidth = String(Math.max(...rows.map((row) => (row.kind === 'elided' ? 0 : row.line)))).length;
  const out: string[] = [];
  const bar = (label: string): string => gutter(`${label.padStart(numberWidth)} |`);

  for (const row of rows) {
    if (row.kind === 'elided') {
      out.push(`  ${bar('…')}`);
      continue;
    }
    const line = cells.get(row.line) as Cells;
    const shown = line.cells.slice(offset, offset + maxWidth);
    if (offset > 0 && shown.length > 0) shown[0] = '…';
    if (line.cells.length > offset + maxWidth) shown[shown.length - 1] = '…';
    const text = shown.join('');
    const lead = row.kind === 'range' ? marker('>') : ' ';
    out.push(`${lead} ${bar(String(row.line))}${text === '' ? '' : ` ${text}`}`);
    if (row.kind !== 'range') continue;

    const source = lines[row.line - 1] as string;
    const fromCol = row.line === r.start.line ? r.start.col : firstTextCol(source);
    if (fromCol === undefined) continue; // a blank line inside the range: nothing to underline
    const toCol = row.line === r.end.line ? r.end.col : source.length + 1;
    const from = cellOf(line, fromCol);
    const to = Math.max(cellOf(line, toCol), from + 1);
    const a = Math.max(from - offset, 0);
    const b = Math.min(to - offset, maxWidth);
    if (b <= a) continue;
    out.push(`  ${bar('')} ${' '.repeat(a)}${marker('^'.repeat(b - a))}`);
  }
  return out.join('\n');
}
