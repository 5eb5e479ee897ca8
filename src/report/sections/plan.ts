import { countActions, formatCounts, type Deletion, type Orphan, type PlanItem } from '../../plan/plan.js';
import { describeChange, type FieldChange } from '../../plan/field-changes.js';
import type { FleetDeletion } from '../../plan/fleet-deletions.js';
import type { Style } from '../ansi.js';
import { displayPath } from '../paths.js';
import { plural, safeInline } from '../text.js';
import type { Report, ReportContext } from '../types.js';

const BODY_WIDTH = 160;

/** A long body is cut: the whole of it is in `--format json`. */
function shorten(text: string): string {
  return text.length <= BODY_WIDTH ? text : `${text.slice(0, BODY_WIDTH)}… (${text.length - BODY_WIDTH} more characters; --format json shows the whole body)`;
}

const MARK: Record<PlanItem['action'], string> = { create: '+', update: '~', replace: '-/+', 'no-op': '=', unknown: '?' };

function why(item: PlanItem): string {
  const session = item.recorded?.session_id;
  const version = item.recorded?.config_version;
  switch (item.reason) {
    case 'not-applied':
      return 'not applied yet';
    case 'session-missing':
      return `recorded ${session ?? 'session'} is gone: created again`;
    case 'outcome-unknown':
      return `blocked: a create of unknown outcome is recorded (since ${item.recorded?.pending_create?.since ?? '?'}); nothing is sent`;
    case 'config-changed':
      return `manifest changed since ${session ?? 'the last apply'}${version !== null && version !== undefined ? ` (config version ${version})` : ''}: updated in place`;
    case 'drifted':
      return `${session ?? 'the session'} drifted from the manifest: repaired in place`;
    case 'user-changed':
      return `user_id changed from ${JSON.stringify(item.replaces?.user_id)}: PATCH cannot change a session's user, so a new session replaces ${item.replaces?.session_id ?? 'the old one'}, which is then deleted`;
    case 'custom-tools-changed':
      return `custom tools changed: PATCH cannot change them, so a new session replaces ${item.replaces?.session_id ?? 'the old one'}, which is then deleted`;
    case 'not-patchable': {
      const fields = item.unpatchable?.fields ?? [];
      return `${fields.join(', ')} changed: the v${item.unpatchable?.apiVersion ?? '3'} PATCH cannot change ${fields.length === 1 ? 'it' : 'them'}, so a new session replaces ${item.replaces?.session_id ?? 'the old one'}, which is then deleted`;
    }
    case 'unreadable':
      return `${session ?? 'the recorded session'} could not be read: whether it still exists and matches is unknown, so nothing is planned for it`;
    default:
      return `up to date: ${session ?? ''}`;
  }
}

function changeLine(change: FieldChange, item: PlanItem, ctx: ReportContext, style: Style): string {
  const mark = change.op === 'add' ? style.green('+') : change.op === 'remove' ? style.red('-') : style.yellow('~');
  const at = change.range === undefined ? '' : style.dim(`  ${displayPath(item.file, ctx.cwd)}:${change.range.start.line}:${change.range.start.col}`);
  const drift = change.source === 'drift' ? style.dim(' (drift: live -> declared)') : '';
  return `      ${mark} ${safeInline(change.field)}: ${safeInline(describeChange(change))}${drift}${at}`;
}

function itemLines(item: PlanItem, width: number, ctx: ReportContext, style: Style): string[] {
  const paint = item.action === 'create' ? style.green : item.action === 'update' ? style.yellow : item.action === 'replace' || item.action === 'unknown' ? style.red : style.dim;
  const lines = [`  ${paint(`${MARK[item.action].padStart(3)} ${item.action.padEnd(7)}`)} ${style.bold(safeInline(item.name).padEnd(width))}  ${style.dim(`user ${safeInline(item.user_id)}, ${displayPath(item.file, ctx.cwd)}`)}`];
  lines.push(`        ${safeInline(why(item))}`);
  for (const c of item.changes) lines.push(changeLine(c, item, ctx, style));
  if (item.cleanup.length > 0) lines.push(`        also deletes ${safeInline(item.cleanup.join(', '))} (left by an earlier replace)`);
  if (item.action === 'create' || (item.action === 'replace' && item.changes.length === 0)) {
    lines.push(`        body:  ${safeInline(shorten(JSON.stringify(item.body)))}`);
    lines.push(`        tools: ${item.expected.toolRouterTools.join(', ')}`);
  }
  return lines;
}

function deletionLines(d: Deletion, width: number, ctx: ReportContext, style: Style): string[] {
  const from = d.file === null ? '' : `, ${displayPath(d.file, ctx.cwd)}`;
  // A destroy's plan is shown only by `destroy --dry-run`: nothing is deleted yet.
  const why = d.reason === 'destroy' ? 'would be deleted by destroy' : 'its manifest is gone from these paths (--prune)';
  const also = d.also.map((e) => `; also recorded for ${safeInline(e.name)} (user ${safeInline(e.user_id)})`).join('');
  return [`  ${style.red('  - delete ')} ${style.bold(safeInline(d.name).padEnd(width))}  ${style.dim(`user ${safeInline(d.user_id)}${from}`)}`, `        ${safeInline(d.session_id)}: ${why}${also}`];
}

/** A per-user manifest whose every session goes: counted, a few users named, never a line per session. */
function fleetDeletionLines(d: FleetDeletion, width: number, ctx: ReportContext, style: Style): string[] {
  const from = d.file === null ? '' : `, ${displayPath(d.file, ctx.cwd)}`;
  const why = d.reason === 'destroy' ? 'would be deleted by destroy' : 'its manifest is gone from these paths (--prune)';
  const eg = d.samples.length === 0 ? '' : ` (e.g. ${d.samples.map((u) => safeInline(JSON.stringify(u))).join(', ')})`;
  const publication = d.published ? ', then its publication' : '';
  const unknown = d.unknown > 0 ? `; ${plural(d.unknown, 'create')} of unknown outcome stay recorded` : '';
  return [`  ${style.red('  - delete ')} ${style.bold(safeInline(d.name).padEnd(width))}  ${style.dim(`every end user${from}`)}`, `        ${plural(d.sessions, 'session')}${eg}${publication}: ${why}${unknown}`];
}

/** The plan of `plan`, `apply --dry-run` and `destroy`: the counts, then per manifest its action, why, and the field changes. */
export function planSection(report: Report, ctx: ReportContext, style: Style): string {
  const block = report.plan;
  if (block === undefined) return '';
  const c = countActions(block);
  const lines = [style.bold(`Plan: ${formatCounts(c)}`)];
  const fleets = block.fleetDeletions ?? [];
  const names = [...block.items.map((i) => i.name), ...block.deletions.map((d) => d.name), ...fleets.map((d) => d.name)];
  if (names.length > 0) {
    const width = Math.max(...names.map((n) => safeInline(n).length));
    lines.push('');
    for (const item of block.items) lines.push(...itemLines(item, width, ctx, style));
    for (const d of block.deletions) lines.push(...deletionLines(d, width, ctx, style));
    for (const d of fleets) lines.push(...fleetDeletionLines(d, width, ctx, style));
  }
  if (block.prunable > 0) lines.push('', ...orphanLines(block.prunable, block.orphans ?? [], style));
  for (const d of block.fleetOrphans ?? []) lines.push('', style.dim(`${safeInline(d.name)} (per-user) has no manifest in these paths any more; --prune deletes its ${plural(d.sessions, 'session')} and its publication`));
  return lines.join('\n');
}

/** The recorded sessions whose manifests are gone from the run's paths, counted and named (plan, apply). */
export function orphanLines(count: number, orphans: readonly Orphan[], style: Style): string[] {
  const lines = [style.dim(`${plural(count, 'recorded session')} ${count === 1 ? 'has' : 'have'} no manifest in these paths any more; --prune deletes ${count === 1 ? 'it' : 'them'}${orphans.length > 0 ? ':' : ''}`)];
  const width = Math.max(0, ...orphans.map((o) => safeInline(o.name).length));
  for (const o of orphans) lines.push(style.dim(`  ${safeInline(o.name).padEnd(width)}  user ${safeInline(o.user_id)}  ${safeInline(o.session_id)}`));
  return lines;
}
