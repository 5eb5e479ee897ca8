import type { Style } from '../report/ansi.js';
import { displayPath } from '../report/paths.js';
import type { Report, ReportContext } from '../report/types.js';
import type { AppliedBlockItem, DriftBlockItem, PlanBlockItem } from './blocks.js';

/**
 * The human report's sections for plan, apply and diff (registered in `report/human-sections.ts`).
 * Pure: each takes the report and returns text, '' when the report has no such block.
 */

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Manifest data can hold anything; never let it drive the terminal. */
function safe(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function table(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd());
}

/** A unified diff, indented, '-' lines red and '+' lines green. */
export function paintDiff(diff: string, style: Style, indent = '  '): string {
  return diff
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => {
      const text = safe(line);
      if (line.startsWith('---') || line.startsWith('+++')) return indent + style.bold(text);
      if (line.startsWith('@@')) return indent + style.cyan(text);
      if (line.startsWith('-')) return indent + style.red(text);
      if (line.startsWith('+')) return indent + style.green(text);
      return indent + text;
    })
    .join('\n');
}

const BODY_WIDTH = 160;

/** A long body is cut: the whole of it is in `--format json`. */
function shorten(text: string): string {
  return text.length <= BODY_WIDTH ? text : `${text.slice(0, BODY_WIDTH)}… (${text.length - BODY_WIDTH} more characters; --format json shows the whole body)`;
}

const PLAN_MARK: Record<PlanBlockItem['action'], string> = { create: '+', replace: '~', unchanged: '=' };

export function planSection(report: Report, ctx: ReportContext, style: Style): string {
  const block = report.plan;
  if (block === undefined) return '';
  const c = block.counts;
  const lines = [style.bold(`Plan: ${c.create} to create, ${c.replace} to replace, ${c.unchanged} unchanged`)];
  if (block.items.length === 0) return lines.join('\n');
  lines.push('');
  const width = Math.max(...block.items.map((i) => safe(i.name).length));
  for (const item of block.items) {
    const why =
      item.reason === 'not-applied'
        ? 'not applied yet'
        : item.reason === 'body-changed'
          ? `manifest changed since ${item.session_id ?? 'the last apply'}`
          : item.reason === 'session-missing'
            ? `recorded ${item.session_id ?? 'session'} is gone`
            : `up to date: ${item.session_id ?? ''}`;
    const paint = item.action === 'create' ? style.green : item.action === 'replace' ? style.yellow : style.dim;
    lines.push(`  ${paint(`${PLAN_MARK[item.action]} ${item.action.padEnd(9)}`)} ${style.bold(safe(item.name).padEnd(width))}  ${style.dim(`user ${safe(item.user_id)}, ${displayPath(item.file, ctx.cwd)}`)}`);
    lines.push(`      ${why}`);
    if (item.action !== 'unchanged') {
      lines.push(`      body:  ${safe(shorten(JSON.stringify(item.body)))}`);
      lines.push(`      tools: ${item.expected.tool_router_tools.join(', ')}`);
    }
  }
  return lines.join('\n');
}

function outcomeText(item: AppliedBlockItem): string {
  switch (item.outcome) {
    case 'outcome-unknown':
      return 'unknown';
    default:
      return item.outcome;
  }
}

export function appliedSection(report: Report, _ctx: ReportContext, style: Style): string {
  const block = report.applied;
  if (block === undefined) return '';
  const rows = block.items.map((i) => [outcomeText(i) + (i.drifted ? ' (drifted)' : ''), safe(i.name), i.user_id === '' ? '' : `user ${safe(i.user_id)}`, i.session_id ?? '-', i.mcp_url ?? '']);
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
  const paint = t.failed > 0 || t.drifted > 0 ? style.red : style.green;
  lines.push('', style.bold(paint(block.line)));
  return lines.join('\n');
}

const DRIFT_TEXT: Record<DriftBlockItem['status'], string> = {
  'in-sync': 'in sync',
  drifted: 'drifted',
  'not-applied': 'not applied',
  missing: 'missing',
  unreadable: 'unreadable',
};

export function driftSection(report: Report, _ctx: ReportContext, style: Style): string {
  const block = report.drift;
  if (block === undefined) return '';
  const rows = block.items.map((i) => [DRIFT_TEXT[i.status], safe(i.name), `user ${safe(i.user_id)}`, i.session_id ?? '-']);
  const painted = table(rows).map((line, n) => `  ${(block.items[n]!.status === 'in-sync' ? style.green : style.red)(line)}`);
  const lines = [style.bold('Drift:'), ...painted];
  for (const i of block.items) {
    if (i.diff !== '') lines.push('', paintDiff(i.diff, style));
  }
  const inSync = block.items.filter((i) => i.status === 'in-sync').length;
  lines.push('', style.bold(`${inSync} of ${block.items.length} in sync`));
  return lines.join('\n');
}
