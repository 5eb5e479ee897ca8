import type { Style } from '../ansi.js';
import { safeInline } from '../text.js';

/** Rows as columns padded to their widest cell (the last column is not padded). */
export function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

/** A unified diff, indented, '-' lines red and '+' lines green. */
export function paintDiff(diff: string, style: Style, indent = '  '): string {
  return diff
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      const text = safeInline(line);
      if (line.startsWith('---') || line.startsWith('+++')) return indent + style.bold(text);
      if (line.startsWith('@@')) return indent + style.cyan(text);
      if (line.startsWith('-')) return indent + style.red(text);
      if (line.startsWith('+')) return indent + style.green(text);
      return indent + text;
    })
    .join('\n');
}
