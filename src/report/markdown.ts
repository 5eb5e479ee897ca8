import type { Diagnostic, Severity } from '../diagnostics/diagnostic.js';
import { createStyle } from './ansi.js';
import { summaryLine } from './human.js';
import { displayPath } from './paths.js';
import { toolName } from './tool.js';
import type { Reporter } from './types.js';
import { markdownBlocks } from './markdown-blocks.js';
import { code, escapeCell, MARKDOWN_MAX_ROWS, MAX_MESSAGE } from './markdown-text.js';

const icon: Record<Severity, string> = { error: '❌ error', warning: '⚠️ warning', info: 'ℹ️ info' };

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
