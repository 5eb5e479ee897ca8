import type { Style } from '../ansi.js';

/** What every human renderer of the operate commands gets: pure inputs, no streams. */
export interface RenderContext {
  /** Terminal width to fit; undefined = no limit (output to a pipe or file is never cut). */
  width?: number;
  style: Style;
}

/** `1 toolkit`, `2 toolkits`. */
export function count(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** Pretty JSON for payloads (tool data, proxy bodies): never cut, control characters escaped by JSON itself. */
export function prettyJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2) ?? 'null'}\n`;
}

/** A byte count as people read it: `512 B`, `1.5 KiB`, `20.0 MiB`. */
export function humanBytes(n: number): string {
  if (!Number.isFinite(n) || n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}
