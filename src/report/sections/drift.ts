import type { DriftStatus } from '../../plan/drift-check.js';
import type { Style } from '../ansi.js';
import { safeInline } from '../text.js';
import type { Report, ReportContext } from '../types.js';
import { paintDiff, table } from './style.js';

const STATUS_TEXT: Record<DriftStatus, string> = {
  'in-sync': 'in sync',
  drifted: 'drifted',
  'not-applied': 'not applied',
  missing: 'missing',
  unreadable: 'unreadable',
};

/** What `diff` found: one row per manifest, the unified diffs, then how many are in sync. */
export function driftSection(report: Report, _ctx: ReportContext, style: Style): string {
  const block = report.drift;
  if (block === undefined) return '';
  const rows = block.items.map((i) => [STATUS_TEXT[i.status], safeInline(i.name), `user ${safeInline(i.user_id)}`, safeInline(i.session_id ?? '-')]);
  const painted = table(rows).map((line, n) => `  ${(block.items[n]!.status === 'in-sync' ? style.green : style.red)(line)}`);
  const lines = [style.bold('Drift:'), ...painted];
  for (const i of block.items) {
    if (i.diff !== '') lines.push('', paintDiff(i.diff, style));
  }
  const inSync = block.items.filter((i) => i.status === 'in-sync').length;
  lines.push('', style.bold(`${inSync} of ${block.items.length} in sync`));
  return lines.join('\n');
}
