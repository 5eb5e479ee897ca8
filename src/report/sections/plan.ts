import { countActions, type PlanItem } from '../../plan/plan.js';
import type { Style } from '../ansi.js';
import { displayPath } from '../paths.js';
import { safeInline } from '../text.js';
import type { Report, ReportContext } from '../types.js';

const BODY_WIDTH = 160;

/** A long body is cut: the whole of it is in `--format json`. */
function shorten(text: string): string {
  return text.length <= BODY_WIDTH ? text : `${text.slice(0, BODY_WIDTH)}… (${text.length - BODY_WIDTH} more characters; --format json shows the whole body)`;
}

const MARK: Record<PlanItem['action'], string> = { create: '+', replace: '~', unchanged: '=' };

function why(item: PlanItem): string {
  const session = item.recorded?.session_id;
  switch (item.reason) {
    case 'not-applied':
      return 'not applied yet';
    case 'body-changed':
      return `manifest changed since ${session ?? 'the last apply'}`;
    case 'session-missing':
      return `recorded ${session ?? 'session'} is gone`;
    default:
      return `up to date: ${session ?? ''}`;
  }
}

/** The plan of `plan` and `apply --dry-run`: the counts, then per manifest its action, why, body and tools. */
export function planSection(report: Report, ctx: ReportContext, style: Style): string {
  const block = report.plan;
  if (block === undefined) return '';
  const c = countActions(block.items);
  const lines = [style.bold(`Plan: ${c.create} to create, ${c.replace} to replace, ${c.unchanged} unchanged`)];
  if (block.items.length === 0) return lines.join('\n');
  lines.push('');
  const width = Math.max(...block.items.map((i) => safeInline(i.name).length));
  for (const item of block.items) {
    const paint = item.action === 'create' ? style.green : item.action === 'replace' ? style.yellow : style.dim;
    lines.push(`  ${paint(`${MARK[item.action]} ${item.action.padEnd(9)}`)} ${style.bold(safeInline(item.name).padEnd(width))}  ${style.dim(`user ${safeInline(item.user_id)}, ${displayPath(item.file, ctx.cwd)}`)}`);
    lines.push(`      ${why(item)}`);
    if (item.action !== 'unchanged') {
      lines.push(`      body:  ${safeInline(shorten(JSON.stringify(item.body)))}`);
      lines.push(`      tools: ${item.expected.toolRouterTools.join(', ')}`);
    }
  }
  return lines.join('\n');
}
