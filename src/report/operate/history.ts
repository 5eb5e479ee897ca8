import type { ConfigVersion } from '../../wire/session.js';
import type { Style } from '../ansi.js';
import { paintDiff } from '../sections/style.js';
import { count, type RenderContext } from './context.js';
import { renderTable } from './table.js';

/** `history`: one row per config version, newest first, and how many there are. */
export function renderHistory(items: readonly ConfigVersion[], total: number | undefined, more: boolean, ctx: RenderContext): string {
  if (items.length === 0) return 'no config versions\n';
  const table = renderTable(
    [{ header: 'VERSION' }, { header: 'CREATED' }, { header: 'CURRENT' }],
    items.map((v) => [String(v.version), v.created_at, v.is_current ? 'yes' : '']),
    ctx,
  );
  const shown = total !== undefined && total !== items.length ? `${items.length} of ${count(total, 'version')}` : count(items.length, 'version');
  return `${table}\n${shown}${more ? ' (more with --all or --limit N)' : ''}\n`;
}

/** `history --diff V1 V2`: the unified diff, coloured on a terminal, or a line saying they agree. */
export function renderVersionsDiff(diff: string, v1: number, v2: number, style: Style): string {
  return diff === '' ? `versions ${v1} and ${v2} hold the same config\n` : `${paintDiff(diff, style, '')}\n`;
}
