import type { Counted, FleetDrift } from '../../rollout/fleet-diff.js';
import type { Style } from '../ansi.js';
import { safeInline } from '../text.js';
import type { Report } from '../types.js';

const n = (count: number): string => count.toLocaleString('en-US');
const sessions = (count: number): string => `${n(count)} session${count === 1 ? '' : 's'}`;
const eg = (c: Counted): string => (c.samples.length === 0 ? '' : `, e.g. ${c.samples.map((u) => safeInline(JSON.stringify(u))).join(', ')}`);

function versionLine(f: FleetDrift): string | undefined {
  if (f.version === undefined) return 'not published: compared with the manifest as written';
  if (!f.manifestPublished) return `the manifest changed since version ${f.version} was published: compared as written (apply publishes it and rolls it out)`;
  return undefined;
}

/** One per-user manifest: the counts, then each field that differs once, with a few users. */
function fleetLines(f: FleetDrift, style: Style): string[] {
  const clean = f.drifted.count === 0 && f.missing.count === 0 && f.unreadable.count === 0 && !f.interrupted;
  const mark = clean ? style.green('  =') : style.red('  !');
  const published = f.version === undefined ? '' : `, version ${f.version} published`;
  const lines = [`${mark} ${style.bold(safeInline(f.name))}  ${f.sessions === 0 ? 'no sessions recorded' : `${sessions(f.sessions)} recorded`}${published}`];
  const version = versionLine(f);
  if (version !== undefined) lines.push(`        ${version}`);
  if (f.drifted.count > 0) {
    lines.push(`        ${n(f.drifted.count)} differ from the manifest:`);
    for (const field of f.fields) lines.push(`          ${safeInline(field.field)}: ${sessions(field.count)} ${field.count === 1 ? 'differs' : 'differ'}${eg(field)}`);
  }
  if (f.missing.count > 0) lines.push(`        ${n(f.missing.count)} missing at the service (404)${eg(f.missing)}`);
  if (f.unreadable.count > 0) lines.push(`        ${n(f.unreadable.count)} could not be read${eg(f.unreadable)}`);
  if (f.behind.count > 0) lines.push(`        ${n(f.behind.count)} behind (apply rolls them out)${eg(f.behind)}`);
  if (f.interrupted) lines.push(style.red(`        interrupted after ${sessions(f.sessions)}: the others were not read`));
  if (f.sessions > 0) lines.push(`        ${n(f.inSync)} in sync`);
  return lines;
}

/** `diff` of per-user manifests: a few lines per manifest however many sessions it has, never a line per session. */
export function fleetDriftSection(report: Report, _ctx: unknown, style: Style): string {
  const fleets = report.fleetDrift;
  if (fleets === undefined || fleets.length === 0) return '';
  return [style.bold('Fleet drift:'), '', ...fleets.flatMap((f) => fleetLines(f, style))].join('\n');
}
