import type { Diagnostic, Severity } from '../diagnostics/diagnostic.js';
import { compareSeverity, tally } from '../diagnostics/diagnostic.js';
import { repositoryPath } from './paths.js';
import { describeTally, noWorkflowCommands, plural } from './text.js';
import { toolName } from './tool.js';
import type { ReportContext, Reporter } from './types.js';

/**
 * GitHub shows at most 10 error, 10 warning and 10 notice annotations per step (and 50 per job);
 * the rest are silently dropped. See "Limitations" in
 * https://github.com/actions/toolkit/blob/main/docs/problem-matchers.md. We emit the most severe
 * first within that budget and end with one notice saying how many were left out, which uses one
 * of the notice slots.
 */
export const ANNOTATIONS_PER_KIND = 10;

const command: Record<Severity, 'error' | 'warning' | 'notice'> = { error: 'error', warning: 'warning', info: 'notice' };

/** Escapes the message of a workflow command (what follows `::`). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escapes a workflow command property value, where `:` and `,` are delimiters as well. */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

// Line breaks are escaped by `escapeData`; every other control character (an escape sequence
// from a manifest key or the service) would reach the log raw, where ANSI sequences are rendered.
// eslint-disable-next-line no-control-regex
const LOG_CONTROL = /[\u0000-\u0009\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Text from outside as a workflow command's data or property: control characters and `##[` shown, not passed on. */
function visible(text: string): string {
  return text.replace(LOG_CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).replace(/##\[/g, '##\\[');
}

function annotation(d: Diagnostic, ctx: ReportContext): string {
  const props: string[] = [];
  let message = d.message;
  if (d.file !== undefined) {
    const path = repositoryPath(d.file, ctx);
    if (path.startsWith('<')) {
      // `<stdin>` is no file in the repository: an annotation there would land nowhere, so the
      // place goes into the message instead.
      message = `${path}${d.range === undefined ? '' : `:${d.range.start.line}:${d.range.start.col}`}: ${message}`;
    } else {
      props.push(`file=${escapeProperty(visible(path))}`);
      if (d.range !== undefined) {
        const { start, end } = d.range;
        props.push(`line=${start.line}`, `col=${start.col}`, `endLine=${end.line}`, `endColumn=${end.col}`);
      }
    }
  }
  props.push(`title=${escapeProperty(d.code)}`);
  if (d.hint !== undefined) message += `\n\nhint: ${d.hint}`;
  return `::${command[d.severity]} ${props.join(',')}::${escapeData(visible(message))}`;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * A problem past the budget, as a plain log line so that `--format github` alone still shows
 * every problem. The `- ` start keeps the line from ever being read as a workflow command (the
 * runner looks for `::` after leading blanks), and line breaks are flattened.
 */
function plainLine(d: Diagnostic, ctx: ReportContext): string {
  const where = d.file === undefined ? '' : `${repositoryPath(d.file, ctx)}${d.range === undefined ? '' : `:${d.range.start.line}:${d.range.start.col}`}: `;
  // File names can hold line breaks too, so the whole line is flattened, not just the message.
  return noWorkflowCommands(`- ${where}${d.severity}: ${d.message} [${d.code}]`.replace(/\r?\n/g, ' ').replace(CONTROL, '?'));
}

/** GitHub Actions workflow commands: one annotation per diagnostic, within GitHub's display budget. */
export const github: Reporter = {
  name: 'github',
  render(report, ctx) {
    const bySeverity = [...report.diagnostics].sort((a, b) => compareSeverity(a.severity, b.severity));
    const total = tally(bySeverity);
    const overflow = total.errors > ANNOTATIONS_PER_KIND || total.warnings > ANNOTATIONS_PER_KIND || total.infos > ANNOTATIONS_PER_KIND;
    // The closing notice takes one notice slot, so infos get one fewer when there is one.
    const budget: Record<Severity, number> = {
      error: ANNOTATIONS_PER_KIND,
      warning: ANNOTATIONS_PER_KIND,
      info: overflow ? ANNOTATIONS_PER_KIND - 1 : ANNOTATIONS_PER_KIND,
    };
    const lines: string[] = [];
    const left: Diagnostic[] = [];
    for (const d of bySeverity) {
      if (budget[d.severity] > 0) {
        budget[d.severity]--;
        lines.push(annotation(d, ctx));
      } else {
        left.push(d);
      }
    }
    if (left.length > 0) {
      const text =
        `${plural(left.length, 'more problem')} (${describeTally(tally(left))}) not shown as annotations: ` +
        `GitHub shows at most ${ANNOTATIONS_PER_KIND} of each kind per step. They are listed in the log below.`;
      lines.push(`::notice title=${escapeProperty(toolName)}::${escapeData(text)}`);
      for (const d of left) lines.push(plainLine(d, ctx));
    }
    return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
  },
};
