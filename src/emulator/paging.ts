/**
 * Page-number paging with the service's opaque cursor (api facts §1: base64 of page and limit),
 * for toolkits, tools (v3.1) and config history. `next_cursor` is null on the last page.
 */
import { httpError } from './errors.js';

export interface Paged<T> {
  items: T[];
  next_cursor: string | null;
  total_pages: number;
  current_page: number;
  total_items: number;
}

/** The page and limit a cursor stands for; undefined for one this emulator did not issue. */
export function readCursor(cursor: string, maxLimit: number): { page: number; limit: number } | undefined {
  const m = /^(\d+):(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const page = Number(m?.[1]);
  const limit = Number(m?.[2]);
  if (m === null || page < 1 || limit < 1 || limit > maxLimit) return undefined;
  return { page, limit };
}

/** The cursor of a page. */
export function cursorOf(page: number, limit: number): string {
  return Buffer.from(`${page}:${limit}`).toString('base64url');
}

function decodeCursor(cursor: string, maxLimit: number): { page: number; limit: number } {
  const read = readCursor(cursor, maxLimit);
  if (read === undefined) throw httpError(400, 'Invalid cursor', ['Error in query.cursor: Invalid cursor']);
  return read;
}

/** One page of `rows`: from the cursor when given, else the first page of `limit` (or the default). */
export function page<T>(rows: readonly T[], query: { cursor?: string; limit?: number }, defaultLimit: number, maxLimit: number): Paged<T> {
  const { page: n, limit } =
    query.cursor !== undefined && query.cursor !== '' ? decodeCursor(query.cursor, maxLimit) : { page: 1, limit: query.limit ?? defaultLimit };
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
    throw httpError(400, 'Invalid query parameters', [`Error in query.limit: Number must be between 1 and ${maxLimit}`]);
  }
  const totalPages = Math.max(1, Math.ceil(rows.length / limit));
  return {
    items: rows.slice((n - 1) * limit, n * limit),
    next_cursor: n < totalPages ? cursorOf(n + 1, limit) : null,
    total_pages: totalPages,
    current_page: n,
    total_items: rows.length,
  };
}
