import { ApiError } from '../client/errors.js';
import { UsageError } from '../diagnostics/errors.js';
import { wholeNumber } from '../util/whole-number.js';

/** How much of a paginated list a command fetches. */
export interface PageSelection {
  /** Follow `next_cursor` to the end. */
  all?: boolean;
  /** Stop once this many items are in (the last page may be cut). */
  limit?: number;
}

export interface Collected<P, T> {
  /** One page: that response unchanged. Several: the last response with `items` holding every item kept. */
  response: P;
  items: T[];
  pages: number;
  /** Whether the service holds more items than were fetched or kept. */
  more: boolean;
}

/** Hard stop for `--all`: a service that never ends its cursor chain must not keep the CLI forever. */
const MAX_PAGES = 10_000;

/** Checks `--all` / `--limit` together; `--limit` must be a positive whole number. */
export function pageSelection(all: boolean | undefined, limit: string | undefined): PageSelection {
  if (all === true && limit !== undefined) throw new UsageError('--all and --limit cannot be combined', 'use --all for every item, or --limit N for the first N');
  if (limit === undefined) return all === true ? { all: true } : {};
  const n = wholeNumber(limit, 1);
  if (n === undefined) throw new UsageError(`--limit expects a whole number of at least 1, got ${JSON.stringify(limit)}`, 'e.g. --limit 100');
  return { limit: n };
}

/**
 * Fetches pages of a cursor-paginated list. Without `all` or `limit` it fetches one page at the
 * service's default size; with `limit` it asks for pages of up to `min(limit, maxPageSize)` and
 * stops once it has `limit` items; with `all` it asks for `maxPageSize` and follows the cursor to
 * the end. A cursor the service already gave is an error, not a loop.
 */
export async function collectPages<P extends { items: unknown[] }>(
  fetchPage: (cursor: string | undefined, pageSize: number | undefined) => Promise<P>,
  nextCursor: (page: NoInfer<P>) => string | undefined,
  selection: PageSelection,
  maxPageSize: number,
): Promise<Collected<P, P['items'][number]>> {
  type T = P['items'][number];
  const pageSize = selection.all === true ? maxPageSize : selection.limit !== undefined ? Math.min(selection.limit, maxPageSize) : undefined;
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let last: P | undefined;
  let pages = 0;
  for (;;) {
    last = await fetchPage(cursor, pageSize);
    pages++;
    items.push(...(last.items as T[]));
    cursor = nextCursor(last);
    const wantMore = selection.all === true || (selection.limit !== undefined && items.length < selection.limit);
    if (cursor === undefined || !wantMore) break;
    if (seen.has(cursor) || pages >= MAX_PAGES) {
      throw new ApiError(`the service's pagination does not end (cursor repeated or more than ${MAX_PAGES} pages)`, { kind: 'decode', method: 'GET', path: '(pagination)' });
    }
    seen.add(cursor);
  }
  const kept = selection.limit !== undefined ? items.slice(0, selection.limit) : items;
  const more = cursor !== undefined || kept.length < items.length;
  const response: P = pages === 1 && kept.length === items.length ? last : { ...last, items: kept };
  return { response, items: kept, pages, more };
}

/** `next_cursor` when it is a non-empty string (it is `null` or absent on the last page). */
export function cursorOf(page: { next_cursor?: unknown }): string | undefined {
  return typeof page.next_cursor === 'string' && page.next_cursor !== '' ? page.next_cursor : undefined;
}
