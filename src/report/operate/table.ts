import type { Style } from '../ansi.js';
import { noWorkflowCommands } from '../text.js';

/** One column of a table. */
export interface Column {
  header: string;
  /** Numbers read better right-aligned. Default left. */
  align?: 'left' | 'right';
  /**
   * Whether the column may be cut to fit the width (descriptions, URLs). Identifiers never are:
   * a truncated slug or id cannot be copied into the next command.
   */
  shrink?: boolean;
}

export interface TableOptions {
  /** The terminal's width; undefined = no limit (a pipe or file gets every character). */
  width?: number;
  style: Style;
}

const GAP = '  ';
/** A shrinkable column keeps at least this many characters (with the ellipsis). */
const MIN_SHRUNK = 10;

/**
 * Service data goes to a terminal: control characters (escape sequences, newlines, tabs) would
 * move the cursor or break the row, so they become spaces, and runs of blanks collapse.
 */
export function cell(value: unknown): string {
  const text = value === null || value === undefined ? '' : typeof value === 'string' ? value : String(value);
  // eslint-disable-next-line no-control-regex
  return noWorkflowCommands(text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').replace(/ {2,}/g, ' ').trim());
}

/** Characters as a terminal counts them (code points; wide CJK is rare in this data). */
function width(text: string): number {
  return [...text].length;
}

/** Cuts `text` to `max` characters, the last one an ellipsis. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  if (max <= 1) return '…'.slice(0, max);
  return `${chars.slice(0, max - 1).join('')}…`;
}

function pad(text: string, size: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, size - width(text)));
  return align === 'right' ? fill + text : text + fill;
}

/**
 * Renders rows under a header with columns aligned by two spaces. When `width` is given and the
 * table is wider, the shrinkable columns give up characters, the rightmost first, down to a floor;
 * identifiers are never cut, so a very narrow terminal may still wrap. Trailing blanks are trimmed.
 * Every line ends with a newline; no rows gives the header alone.
 */
export function renderTable(columns: readonly Column[], rows: ReadonlyArray<readonly unknown[]>, options: TableOptions): string {
  const cells = rows.map((row) => columns.map((_, i) => cell(row[i])));
  const sizes = columns.map((c, i) => Math.max(width(c.header), ...cells.map((r) => width(r[i] ?? ''))));
  if (options.width !== undefined) {
    const floorOf = (i: number): number => Math.max(MIN_SHRUNK, width(columns[i]?.header ?? ''));
    let over = sizes.reduce((a, b) => a + b, 0) + GAP.length * (columns.length - 1) - options.width;
    // The rightmost shrinkable column gives first (descriptions sit last), down to its floor, then
    // the next one to its left: predictable, and the leftmost columns, which identify a row, stay.
    for (let i = columns.length - 1; i >= 0 && over > 0; i--) {
      if (columns[i]?.shrink !== true) continue;
      const give = Math.min(over, Math.max(0, (sizes[i] ?? 0) - floorOf(i)));
      sizes[i] = (sizes[i] ?? 0) - give;
      over -= give;
    }
  }
  const line = (values: readonly string[], header: boolean): string => {
    const parts = columns.map((c, i) => {
      const text = truncate(values[i] ?? '', sizes[i] ?? 0);
      return pad(text, sizes[i] ?? 0, c.align ?? 'left');
    });
    const joined = parts.join(GAP).trimEnd();
    return header ? options.style.bold(joined) : joined;
  };
  const out = [line(columns.map((c) => c.header), true), ...cells.map((r) => line(r, false))];
  return out.map((l) => `${l}\n`).join('');
}

/**
 * `key  value` lines for a summary, keys aligned; values are cleaned like table cells and, with
 * a width, cut to fit. An array value is listed one item per line.
 */
export function renderFields(fields: ReadonlyArray<readonly [string, unknown]>, options: TableOptions): string {
  const keyWidth = Math.max(0, ...fields.map(([k]) => width(k)));
  const room = options.width === undefined ? undefined : Math.max(MIN_SHRUNK, options.width - keyWidth - GAP.length);
  const fit = (v: unknown): string => {
    const value = cell(v);
    return room === undefined ? value : truncate(value, room);
  };
  const out: string[] = [];
  for (const [k, v] of fields) {
    // A list shows one item per line under its key, so that no item is cut off.
    const values = Array.isArray(v) ? (v.length === 0 ? ['(none)'] : v) : [v];
    values.forEach((item, i) => {
      const key = i === 0 ? options.style.dim(pad(k, keyWidth, 'left')) : ' '.repeat(keyWidth);
      out.push(`${key}${GAP}${fit(item)}`.trimEnd() + '\n');
    });
  }
  return out.join('');
}
