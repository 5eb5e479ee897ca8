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

// Control characters from the input (an ESC in a key name) must not drive the terminal; they are
// shown escaped. Newlines are kept and indented by the caller.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * A CI runner reads two forms of workflow command in a log: a line that starts with `::` once
 * leading blanks are trimmed, and the legacy `##[name]` anywhere in a line (actions/runner,
 * ActionCommand.cs). Text from outside shows both written out instead, so it can never raise an
 * annotation, register a mask or stop command processing.
 */
export function noWorkflowCommands(line: string): string {
  const legacy = line.includes('##[') ? line.replace(/##\[/g, '##\\[') : line;
  return /^\s*::/.test(legacy) ? legacy.replace(/::/, ':\\:') : legacy;
}

/**
 * Serialised JSON that a CI log may show: `##[` inside a string is written `#\u0023[`, which JSON
 * reads back as the same text but no runner reads as a command.
 */
export function inertJson(json: string): string {
  return json.includes('##[') ? json.replace(/##\[/g, '#\\u0023[') : json;
}

/** Text from a diagnostic, safe to print: control characters escaped, lines after the first indented. */
export function safeText(text: string, indent = ''): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .split('\n')
    .map(noWorkflowCommands)
    .join(`\n${indent}`);
}

// eslint-disable-next-line no-control-regex
const CONTROL_ALL = /[\u0000-\u001f\u007f-\u009f]/g;

/** One-line text (a file name, an id from the service), safe to print: every control character escaped, line breaks too. */
export function safeInline(text: string): string {
  return noWorkflowCommands(text.replace(CONTROL_ALL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
