import { describeChange } from '../../plan/field-changes.js';
import { behind, type PublicationPlan } from '../../plan/publications.js';
import type { Style } from '../ansi.js';
import { displayPath } from '../paths.js';
import { plural, safeInline } from '../text.js';
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

function fleetLine(p: PublicationPlan): string | undefined {
  const sessions = p.fleet?.sessions ?? 0;
  if (sessions === 0 && (p.fleet?.unknown ?? 0) === 0) return undefined;
  const old = behind(p);
  const parts = [`${plural(sessions, 'session')} recorded`];
  if (old > 0) parts.push(`${old} created from an older version, which this apply does not update`);
  if ((p.fleet?.unknown ?? 0) > 0) parts.push(`${p.fleet!.unknown} with a create of unknown outcome`);
  return parts.join('; ');
}

function publicationLines(p: PublicationPlan, width: number, written: boolean, ctx: ReportContext, style: Style): string[] {
  const mark = p.action === 'unchanged' ? style.dim('  = unchanged') : p.reason === 'first' ? style.green('  + publish  ') : style.yellow('  ~ publish  ');
  const lines = [`  ${mark} ${style.bold(safeInline(p.name).padEnd(width))}  ${style.dim(`every end user, ${displayPath(p.file, ctx.cwd)}`)}`, `        ${why(p, written)}`];
  for (const c of p.changes) {
    const at = c.range === undefined ? '' : style.dim(`  ${displayPath(p.file, ctx.cwd)}:${c.range.start.line}:${c.range.start.col}`);
    const sign = c.op === 'add' ? style.green('+') : c.op === 'remove' ? style.red('-') : style.yellow('~');
    lines.push(`      ${sign} ${safeInline(c.field)}: ${safeInline(describeChange(c))}${at}`);
  }
  const fleet = fleetLine(p);
  if (fleet !== undefined) lines.push(`        ${fleet}`);
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
