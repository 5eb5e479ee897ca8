import { formatTally } from '../../apply/tally.js';
import type { Style } from '../ansi.js';
import { safeInline } from '../text.js';
import type { Report, ReportContext } from '../types.js';
import { orphanLines } from './plan.js';
import { paintDiff, table } from './style.js';

/** What `apply` did: one row per manifest, the diffs of what drifted, then the tally. */
export function appliedSection(report: Report, _ctx: ReportContext, style: Style): string {
  const block = report.applied;
  if (block === undefined) return '';
  const rows = block.items.map((i) => [
    (i.outcome === 'outcome-unknown' ? 'unknown' : i.outcome) + (i.drifted ? ' (drifted)' : ''),
    safeInline(i.name),
    i.user_id === '' ? '' : `user ${safeInline(i.user_id)}`,
    // From the service: an id or URL with an escape sequence or a line break is shown escaped.
    safeInline(i.session_id ?? '-'),
    safeInline(i.mcp_url ?? ''),
  ]);
  const painted = table(rows).map((line, n) => {
    const i = block.items[n]!;
    const paint = i.outcome === 'failed' || i.outcome === 'outcome-unknown' || i.drifted ? style.red : i.outcome === 'unchanged' ? style.dim : style.green;
    return `  ${paint(line)}`;
  });
  const lines = [style.bold('Apply:'), ...painted];
  for (const i of block.items) {
    if (i.diff !== '') lines.push('', paintDiff(i.diff, style));
  }
  const t = block.tally;
  const paint = t.failed > 0 || t.drifted > 0 || (t.skipped ?? 0) > 0 ? style.red : style.green;
  lines.push('', style.bold(paint(formatTally(t))));
  const orphans = block.orphans ?? [];
  if (orphans.length > 0) lines.push('', ...orphanLines(orphans.length, orphans, style));
  return lines.join('\n');
}
