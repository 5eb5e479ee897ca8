import { formatTally } from '../apply/tally.js';
import { describeChange } from '../plan/field-changes.js';
import { countActions, formatCounts } from '../plan/plan.js';
import { code, escapeCell, MARKDOWN_MAX_ROWS } from './markdown-text.js';
import type { Report } from './types.js';

/**
 * The plan, apply and diff blocks of the markdown step summary: one table per block, what a
 * reviewer of a pipeline run wants to see at a glance (which session each manifest has now).
 */
export function markdownBlocks(report: Report): string[] {
  const out: string[] = [];
  // Ids and URLs come from the service: a pipe, a line break or a backtick in one must not break the table.
  const cell = (text: string | null): string => (text === null || text === '' ? '' : code(text));
  const table = (head: string[], rows: string[][]): void => {
    out.push('', `| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
    for (const r of rows.slice(0, MARKDOWN_MAX_ROWS)) out.push(`| ${r.join(' | ')} |`);
    if (rows.length > MARKDOWN_MAX_ROWS) out.push('', `_…and ${rows.length - MARKDOWN_MAX_ROWS} more; the JSON report lists every manifest._`);
  };
  if (report.plan !== undefined) {
    out.push('', `**Plan:** ${formatCounts(countActions(report.plan))}`);
    table(
      ['Action', 'Manifest', 'User', 'Recorded session', 'Changes'],
      [
        ...report.plan.items.map((i) => [i.action, escapeCell(i.name), escapeCell(i.user_id), cell(i.recorded?.session_id ?? null), escapeCell(i.changes.map((ch) => `${ch.field}: ${describeChange(ch)}`).join('; '))]),
        ...report.plan.deletions.map((d) => ['delete', escapeCell(d.name), escapeCell(d.user_id), cell(d.session_id), '']),
      ],
    );
  }
  if (report.applied !== undefined) {
    out.push('', `**Apply:** ${formatTally(report.applied.tally)}`);
    table(
      ['Outcome', 'Manifest', 'User', 'Session', 'MCP URL'],
      report.applied.items.map((i) => [i.outcome + (i.drifted ? ' (drifted)' : ''), escapeCell(i.name), escapeCell(i.user_id), cell(i.session_id ?? null), cell(i.mcp_url ?? null)]),
    );
  }
  if (report.drift !== undefined) {
    const inSync = report.drift.items.filter((i) => i.status === 'in-sync').length;
    out.push('', `**Drift:** ${inSync} of ${report.drift.items.length} in sync`);
    table(
      ['Status', 'Manifest', 'User', 'Session'],
      report.drift.items.map((i) => [i.status, escapeCell(i.name), escapeCell(i.user_id), cell(i.session_id)]),
    );
  }
  return out;
}
