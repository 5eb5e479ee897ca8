import type { FleetDeleteResult } from '../../rollout/fleet-delete.js';
import type { Style } from '../ansi.js';
import { safeInline } from '../text.js';
import type { Report } from '../types.js';

const n = (count: number): string => count.toLocaleString('en-US');

function deletedLines(r: FleetDeleteResult, style: Style): string[] {
  const clean = r.failed === 0 && r.stopped === undefined;
  const counts = [`${n(r.deleted + r.alreadyGone)} deleted${r.alreadyGone > 0 ? ` (${n(r.alreadyGone)} already gone)` : ''}`, `${n(r.failed)} failed`];
  if (r.raced > 0) counts.push(`${n(r.raced)} created meanwhile, deleted too`);
  const lines = [`${clean ? style.green('  - deleted') : style.red('  ! deleted')} ${style.bold(safeInline(r.name))}: ${counts.join(', ')}`];
  lines.push(`        ${r.unpublished ? 'publication removed: the application\'s ensure creates no more sessions of it' : 'still published: run it again to finish'}`);
  if (r.stopped === 'interrupted') lines.push(style.red('        interrupted: the sessions left stay recorded (a re-run deletes them)'));
  if (r.stopped === 'state') lines.push(style.red('        stopped: the state could not be written'));
  if (r.unknown > 0) lines.push(`        ${n(r.unknown)} creates of unknown outcome stay recorded`);
  if (r.createsUnderWay > 0) lines.push(`        ${n(r.createsUnderWay)} creates were still under way`);
  return lines;
}

/** `destroy` and `apply --prune` of per-user manifests: per manifest, the sessions deleted and whether its publication went. */
export function fleetDeletedSection(report: Report, _ctx: unknown, style: Style): string {
  const results = report.fleetDeleted;
  if (results === undefined || results.length === 0) return '';
  return [style.bold('Deleted (per-user manifests):'), '', ...results.flatMap((r) => deletedLines(r, style))].join('\n');
}
