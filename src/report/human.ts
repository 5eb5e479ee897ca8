import { codeFrame, splitLines } from '../diagnostics/codeframe.js';
import type { Diagnostic, Severity } from '../diagnostics/diagnostic.js';
import { tally } from '../diagnostics/diagnostic.js';
import { createStyle, type Style } from './ansi.js';
import { humanSections, type HumanSection } from './sections/index.js';
import { describeTally, filesWithFindings, location, plural, safeInline, safeText } from './text.js';
import type { Report, ReportContext, Reporter } from './types.js';

function paintSeverity(severity: Severity, style: Style): (text: string) => string {
  return severity === 'error' ? style.red : severity === 'warning' ? style.yellow : style.cyan;
}

function renderDiagnostic(d: Diagnostic, ctx: ReportContext, style: Style, lines: (file: string) => readonly string[] | undefined): string {
  const paint = paintSeverity(d.severity, style);
  const where = location(d.file, d.range, ctx);
  // The code stays on the first line, where eyes and `grep` look for it; further lines of a
  // message follow, indented.
  const [first = '', ...rest] = safeText(d.message).split('\n');
  const head = [where === undefined ? undefined : style.bold(safeInline(where)), paint(d.severity), first, style.dim(d.code)];
  const out = [head.filter((p) => p !== undefined).join('  ')];
  for (const line of rest) out.push(`  ${line}`);

  const source = d.file === undefined ? undefined : lines(d.file);
  if (source !== undefined && d.range !== undefined) {
    const frame = codeFrame(source, d.range, { paint: { gutter: style.dim, marker: paint } });
    if (frame !== '') out.push(frame.replace(/^/gm, '  '));
  }
  if (d.hint !== undefined) out.push(`  ${style.green('hint:')} ${safeText(d.hint, '        ')}`);
  for (const rel of d.related ?? []) {
    const relWhere = location(rel.file ?? d.file, rel.range, ctx);
    out.push(`  ${style.dim('related:')} ${relWhere === undefined ? '' : `${safeInline(relWhere)}  `}${safeText(rel.message, '    ')}`);
  }
  return out.join('\n');
}

/**
 * `✖ 3 problems (2 errors, 1 warning) in 2 files`, or `✔ No problems in 5 manifests (3 files)`.
 * Info findings are not problems: they are counted after them (`⚠ 1 problem (1 warning) and 2
 * info in 1 file`, `✔ No problems (4 info) in 1 manifest (1 file)`).
 */
export function summaryLine(report: Report, style: Style): string {
  const t = tally(report.diagnostics);
  const problems = t.errors + t.warnings;
  const info = t.infos > 0 ? `${t.infos} info` : '';
  const suppressed = report.summary.suppressed ?? 0;
  const silenced = suppressed > 0 ? `; ${suppressed} suppressed` : '';
  if (problems === 0) {
    const { manifests, files } = report.summary;
    const scope =
      manifests > 0 ? ` in ${plural(manifests, 'manifest')} (${plural(files, 'file')})` : files > 0 ? ` in ${plural(files, 'file')}` : '';
    return style.green(`✔ No problems${info === '' ? '' : ` (${info})`}${scope}${silenced}`);
  }
  const files = filesWithFindings(report.diagnostics);
  const text = `${plural(problems, 'problem')} (${describeTally({ ...t, infos: 0 })})${info === '' ? '' : ` and ${info}`}${files > 0 ? ` in ${plural(files, 'file')}` : ''}${silenced}`;
  return t.errors > 0 ? style.bold(style.red(`✖ ${text}`)) : style.bold(style.yellow(`⚠ ${text}`));
}

/**
 * The report for people: each diagnostic as `file:line:col  severity  message  code` with a code
 * frame, its hint and related places; then the command's own sections; then one summary line.
 */
export function renderHuman(report: Report, ctx: ReportContext, sections: readonly HumanSection[] = humanSections): string {
  const style = createStyle(ctx.color);
  // A file with many findings is split into lines once, not once per finding.
  const split = new Map<string, readonly string[]>();
  const lines = (file: string): readonly string[] | undefined => {
    let cached = split.get(file);
    if (cached === undefined) {
      const text = ctx.sources.get(file);
      if (text === undefined) return undefined;
      cached = splitLines(text);
      split.set(file, cached);
    }
    return cached;
  };
  const blocks = report.diagnostics.map((d) => renderDiagnostic(d, ctx, style, lines));
  for (const section of sections) {
    const text = section(report, ctx, style);
    if (text !== '') blocks.push(text.replace(/\n+$/, ''));
  }
  blocks.push(summaryLine(report, style));
  return `${blocks.join('\n\n')}\n`;
}

export const human: Reporter = { name: 'human', render: (report, ctx) => renderHuman(report, ctx) };
