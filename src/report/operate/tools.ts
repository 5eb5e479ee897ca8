import type { Tool } from '../../wire/operations.js';
import { count, type RenderContext } from './context.js';
import { renderTable } from './table.js';

/** `tools`: the tools the session exposes directly (its meta tools, and preloaded app tools). */
export function renderTools(items: readonly Tool[], ctx: RenderContext): string {
  if (items.length === 0) return 'no tools\n';
  const table = renderTable(
    [{ header: 'SLUG' }, { header: 'TOOLKIT' }, { header: 'TAGS', shrink: true }, { header: 'DESCRIPTION', shrink: true }],
    items.map((t) => [t.slug, t.toolkit?.slug ?? '', Array.isArray(t.tags) ? [...t.tags].sort().join(',') : '', t.description]),
    ctx,
  );
  return `${table}\n${count(items.length, 'tool')}\n`;
}
