import type { Diagnostic, Tally } from '../diagnostics/diagnostic.js';
import { displayPath } from './paths.js';
import type { ReportContext } from './types.js';

/** `1 error`, `2 errors`. */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

/** `2 errors, 1 warning`: the non-zero parts of a tally, most severe first. */
export function describeTally(t: Tally): string {
  const parts: string[] = [];
  if (t.errors > 0) parts.push(plural(t.errors, 'error'));
  if (t.warnings > 0) parts.push(plural(t.warnings, 'warning'));
  if (t.infos > 0) parts.push(plural(t.infos, 'info', 'info'));
  return parts.join(', ');
}

/** The number of distinct files the diagnostics point into. */
export function filesWithFindings(diagnostics: readonly Diagnostic[]): number {
  return new Set(diagnostics.flatMap((d) => (d.file === undefined ? [] : [d.file]))).size;
}

/** `examples/a.yaml:5:3`, `examples/a.yaml` without a range, or undefined without a file. */
export function location(file: string | undefined, range: Diagnostic['range'], ctx: ReportContext): string | undefined {
  if (file === undefined) return undefined;
  const path = displayPath(file, ctx.cwd);
  return range === undefined ? path : `${path}:${range.start.line}:${range.start.col}`;
}
