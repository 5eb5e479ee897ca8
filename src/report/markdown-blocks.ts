import { formatTally } from '../apply/tally.js';
import { countActions } from '../plan/plan.js';
import { escapeCell, MARKDOWN_MAX_ROWS } from './markdown-text.js';
import type { Report } from './types.js';

/**
 * The plan, apply and diff blocks of the markdown step summary: one table per block, what a
 * reviewer of a pipeline run wants to see at a glance (which session each manifest has now).
 */
export function markdownBlocks(report: Report): string[] {
  const out: string[] = [];
  const cell = (text: string | null): string => (text === null || text === '' ? '' : `\`${text.replace(/`/g, "'")}\``);
  const table = (head: string[], rows: string[][]): void => {
    out.push('', `| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
    for (const r of rows.slice(0, MARKDOWN_MAX_ROWS)) out.push(`| ${r.join(' | ')} |`);
    if (rows.length > MARKDOWN_MAX_ROWS) out.push('', `_…and ${rows.length - MARKDOWN_MAX_ROWS} more; the JSON report lists every manifest._`);
  };
  if (report.plan !== undefined) {
    const c = countActions(report.plan.items);
    out.push('', `**Plan:** ${c.create} to create, ${c.replace} to replace, ${c.unchanged} unchanged`);
    table(
      ['Action', 'Manifest', 'User', 'Recorded session'],
      report.plan.items.map((i) => [i.action, escapeCell(i.name), escapeCell(i.user_id), cell(i.recorded?.session_id ?? null)]),
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
