import { describeChange } from '../../plan/field-changes.js';
import type { PublicationPlan } from '../../plan/publications.js';
import type { Style } from '../ansi.js';
import { displayPath } from '../paths.js';
import { safeInline } from '../text.js';
import type { Report, ReportContext } from '../types.js';

function why(p: PublicationPlan, written: boolean): string {
  const verb = written ? 'published' : 'publishes';
  switch (p.reason) {
    case 'first':
      return `per-user: ${verb} version 1; the application's ensure creates each end user's session from it`;
    case 'changed':
      return `${p.sensitiveChanged ? 'a sensitive value changed' : 'the manifest changed'}: ${verb} version ${p.version} (was ${p.current})`;
    case 'api-version-changed':
      return `the API version changed to ${p.api_version}: ${verb} version ${p.version} (was ${p.current})`;
    default:
      return `up to date: version ${p.version}`;
  }
}

const n = (count: number): string => count.toLocaleString('en-US');
const sessionsOf = (count: number): string => `${n(count)} session${count === 1 ? '' : 's'}`;

/**
 * The fleet in a few lines however large it is: the counts, then each group's change once (the
 * same for every session of the group) with a few of its users.
 */
function fleetLines(p: PublicationPlan, written: boolean): string[] {
  const sessions = p.fleet?.sessions ?? 0;
  const unknown = p.fleet?.unknown ?? 0;
  if (sessions === 0 && unknown === 0) return [];
  const r = p.rollout;
  const head = [`${sessionsOf(sessions)} recorded`];
  if (r !== undefined && sessions > 0) head.push(`${written ? 'rolled out' : 'rollout'}: update ${n(r.update)} in place, replace ${n(r.replace)}, unchanged ${n(r.unchanged)}`);
  if (unknown > 0) head.push(`${n(unknown)} with a create of unknown outcome`);
  const lines = [head.join('; ')];
  for (const g of r?.groups ?? []) {
    if (g.sessions === 0) continue;
    const what = g.action === 'replace' ? `replace (PATCH cannot change ${g.unpatchable.join(', ')})` : !g.known ? 'update in place: every declared field (the body of that version is not kept)' : g.changes.length === 0 ? `update in place: ${g.sensitiveChanged ? 'a sensitive value changed' : 'the API version changed'}` : `update in place: ${g.changes.map((c) => `${safeInline(c.field)} ${safeInline(describeChange(c))}`).join('; ')}`;
    const samples = g.samples.length === 0 ? '' : `, e.g. ${g.samples.map((u) => safeInline(JSON.stringify(u))).join(', ')}`;
    lines.push(`  ${g.from === 0 ? 'from an unknown version' : `from version ${g.from}`} (${sessionsOf(g.sessions)}${samples}): ${what}`);
  }
  return lines;
}

function publicationLines(p: PublicationPlan, width: number, written: boolean, ctx: ReportContext, style: Style): string[] {
  const mark = p.action === 'unchanged' ? style.dim('  = unchanged') : p.reason === 'first' ? style.green('  + publish  ') : style.yellow('  ~ publish  ');
  const lines = [`  ${mark} ${style.bold(safeInline(p.name).padEnd(width))}  ${style.dim(`every end user, ${displayPath(p.file, ctx.cwd)}`)}`, `        ${why(p, written)}`];
  for (const c of p.changes) {
    const at = c.range === undefined ? '' : style.dim(`  ${displayPath(p.file, ctx.cwd)}:${c.range.start.line}:${c.range.start.col}`);
    const sign = c.op === 'add' ? style.green('+') : c.op === 'remove' ? style.red('-') : style.yellow('~');
    lines.push(`      ${sign} ${safeInline(c.field)}: ${safeInline(describeChange(c))}${at}`);
  }
  for (const line of fleetLines(p, written)) lines.push(`        ${line}`);
  return lines;
}

/** Per-user manifests: what plan would publish, or what apply published. */
export function publicationsSection(report: Report, ctx: ReportContext, style: Style): string {
  const block = report.publications;
  if (block === undefined || block.items.length === 0) return '';
  const publish = block.items.filter((p) => p.action === 'publish').length;
  const head = `${block.written ? 'Published' : 'Publish'}: ${publish} ${block.written ? 'published' : 'to publish'}, ${block.items.length - publish} unchanged`;
  const width = Math.max(...block.items.map((p) => safeInline(p.name).length));
  return [style.bold(head), '', ...block.items.flatMap((p) => publicationLines(p, width, block.written, ctx, style))].join('\n');
}
