import type { Diagnostic, Severity } from '../diagnostics/diagnostic.js';
import { createStyle } from './ansi.js';
import { summaryLine } from './human.js';
import { displayPath } from './paths.js';
import { toolName } from './tool.js';
import type { Reporter } from './types.js';
import { markdownBlocks } from '../plan/markdown.js';

/** Rows in the findings table; a step summary is for a glance, the full list is in the log. */
export const MARKDOWN_MAX_ROWS = 50;
/** Characters of a message shown in a cell (GitHub caps a step summary at 1 MiB). */
const MAX_MESSAGE = 500;

const icon: Record<Severity, string> = { error: '❌ error', warning: '⚠️ warning', info: 'ℹ️ info' };

/**
 * Escapes text for a table cell: `|` splits cells and a newline ends the row everywhere; outside
 * the message's own code spans, `<` and `&` would be read as HTML and `*`, `_`, `[`, `~` as markup.
 */
export function escapeCell(text: string): string {
  const spans = text.split('`');
  // An unpaired backtick opens no code span: escape it and treat the rest as plain text.
  const paired = spans.length % 2 === 1;
  return spans
    .map((part, i) =>
      paired && i % 2 === 1
        ? part
        : part
            .replace(/[\\*_[\]~]/g, (c) => `\\${c}`)
            .replace(/&/g, '&amp;')
            .replace(/</g, '&lt;')
            .replace(/>/g, '&gt;'),
    )
    .join(paired ? '`' : '\\`')
    .replace(/\|/g, '\\|')
    .replace(/\r\n?|\n/g, '<br>');
}

/** A code span whose content may hold backticks or pipes. */
function code(text: string): string {
  const fence = text.includes('`') ? '`` ' : '`';
  // A line break would end the table row; in a code span it is only a space anyway.
  return `${fence}${text.replace(/\|/g, '\\|').replace(/\r\n?|\n/g, ' ')}${fence.split('').reverse().join('')}`;
}

function clip(text: string): string {
  return text.length <= MAX_MESSAGE ? text : `${text.slice(0, MAX_MESSAGE - 1)}…`;
}

function row(d: Diagnostic, cwd: string): string {
  const place =
    d.file === undefined ? '' : code(`${displayPath(d.file, cwd)}${d.range === undefined ? '' : `:${d.range.start.line}:${d.range.start.col}`}`);
  const message = escapeCell(clip(d.message)) + (d.hint === undefined ? '' : `<br>Hint: ${escapeCell(clip(d.hint))}`);
  return `| ${icon[d.severity]} | ${place} | ${code(d.code)} | ${message} |`;
}

/** A summary for `$GITHUB_STEP_SUMMARY`: a heading with the outcome, the counts, then the findings. */
export const markdown: Reporter = {
  name: 'markdown',
  render(report, ctx) {
    const s = report.summary;
    const out = [
      `### ${toolName} ${escapeCell(report.command)}: ${summaryLine(report, createStyle(false))}`,
      '',
      '| Errors | Warnings | Info | Files | Manifests |',
      '|---:|---:|---:|---:|---:|',
      `| ${s.errors} | ${s.warnings} | ${s.infos} | ${s.files} | ${s.manifests} |`,
    ];
    if (report.diagnostics.length > 0) {
      out.push('', '| Severity | Location | Code | Message |', '|---|---|---|---|');
      for (const d of report.diagnostics.slice(0, MARKDOWN_MAX_ROWS)) out.push(row(d, ctx.cwd));
      const more = report.diagnostics.length - MARKDOWN_MAX_ROWS;
      if (more > 0) out.push('', `_…and ${more} more; the log lists every problem._`);
    }
    out.push(...markdownBlocks(report));
    return `${out.join('\n')}\n\n`;
  },
};
