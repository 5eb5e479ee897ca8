import type { ToolkitItem } from '../../wire/operations.js';
import { count, type RenderContext } from './context.js';
import { renderTable } from './table.js';

/** How a toolkit authenticates, in a few characters. */
function auth(t: ToolkitItem): string {
  if (t.is_no_auth) return 'none';
  const schemes = Array.isArray(t.composio_managed_auth_schemes) ? t.composio_managed_auth_schemes : [];
  return schemes.length > 0 ? schemes.join(',') : 'own auth config';
}

function connection(t: ToolkitItem): string {
  const c = t.connected_account;
  if (c === null || c === undefined) return t.is_no_auth ? '' : '-';
  return `${c.status} ${c.id}`;
}

/** `toolkits`: one row per toolkit, and a line saying how many there are and whether more exist. */
export function renderToolkits(items: readonly ToolkitItem[], total: number | undefined, more: boolean, ctx: RenderContext): string {
  if (items.length === 0) return 'no toolkits\n';
  const table = renderTable(
    [{ header: 'SLUG' }, { header: 'NAME', shrink: true }, { header: 'ENABLED' }, { header: 'AUTH', shrink: true }, { header: 'CONNECTION' }],
    items.map((t) => [t.slug, t.name, t.enabled ? 'yes' : 'no', auth(t), connection(t)]),
    ctx,
  );
  const shown = total !== undefined && total !== items.length ? `${items.length} of ${count(total, 'toolkit')}` : count(items.length, 'toolkit');
  return `${table}\n${shown}${more ? ' (more with --all or --limit N)' : ''}\n`;
}
