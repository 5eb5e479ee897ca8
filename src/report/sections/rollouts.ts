import type { RolloutResult } from '../../rollout/types.js';
import type { Style } from '../ansi.js';
import { safeInline } from '../text.js';
import type { Report } from '../types.js';

const n = (count: number): string => count.toLocaleString('en-US');

function stoppedLine(r: RolloutResult): string | undefined {
  switch (r.stopped) {
    case 'canary':
      return `stopped after the canary: ${n(r.untouched)} left untouched`;
    case 'max-failures':
      return `stopped: ${n(r.failed)} failed, more than the budget of ${n(r.maxFailures)}; ${n(r.untouched)} left untouched (the next apply resumes)`;
    case 'interrupted':
      return `interrupted: ${n(r.untouched)} left on an older version (the next apply resumes)`;
    case 'state':
      return `stopped: the state could not be written; ${n(r.untouched)} left on an older version`;
    default:
      return undefined;
  }
}

/** `apply --repair-fleet`: how many drifted sessions were PATCHed back, of those read. */
function repairLines(r: RolloutResult, style: Style): string[] {
  const mark = r.stopped !== undefined || r.failed > 0 ? style.red('  ! repair') : style.green('  ~ repair');
  const counts = [`${n(r.patched)} repaired`, `${n(r.alreadyDone)} in sync`, `${n(r.failed)} failed`];
  if (r.notPatchable > 0) counts.push(`${n(r.notPatchable)} need a replace`);
  const stopped = r.stopped === undefined ? [] : [`        stopped: ${n(r.untouched)} not read (the next apply --repair-fleet reads them)`];
  return [`${mark} ${style.bold(safeInline(r.name))} (version ${r.version}): ${counts.join(', ')}`, ...stopped];
}

function rolloutLines(r: RolloutResult, style: Style): string[] {
  if (r.kind === 'repair') return repairLines(r, style);
  const mark = r.stopped !== undefined || r.failed > 0 ? style.red('  ! rollout') : style.green('  ~ rollout');
  const counts = [`${n(r.patched)} patched`];
  if (r.alreadyDone > 0) counts.push(`${n(r.alreadyDone)} found on it already`);
  counts.push(`${n(r.failed)} failed`);
  if (r.notPatchable > 0) counts.push(`${n(r.notPatchable)} need a replace`);
  if (r.raced > 0) counts.push(`${n(r.raced)} created from the older version meanwhile`);
  const lines = [`${mark} ${style.bold(safeInline(r.name))} to version ${r.version}: ${counts.join(', ')}`];
  if (r.canary !== undefined) lines.push(`        canary: ${n(r.canary.size)} patched, ${r.canary.clean ? 'read back on the new config' : `${n(r.canary.bad.length)} not on it`}`);
  const stopped = stoppedLine(r);
  if (stopped !== undefined) lines.push(`        ${stopped}`);
  return lines;
}

/** The rollouts (and repairs) apply ran: per manifest, how many sessions it patched, and where it stopped. */
export function rolloutsSection(report: Report, _ctx: unknown, style: Style): string {
  const rollouts = report.rollouts;
  if (rollouts === undefined || rollouts.length === 0) return '';
  return [style.bold('Rolled out:'), '', ...rollouts.flatMap((r) => rolloutLines(r, style))].join('\n');
}
