import { describe, expect, test } from 'vitest';
import { ApiError } from '../../../src/client/errors.js';
import { UsageError } from '../../../src/diagnostics/errors.js';
import { collectPages, cursorOf, pageSelection } from '../../../src/runner/paginate.js';

/** A list of `total` numbers served in pages, recording each request. */
function pager(total: number, defaultSize = 3) {
  const calls: Array<{ cursor: string | undefined; size: number | undefined }> = [];
  const fetch = async (cursor: string | undefined, size: number | undefined) => {
    calls.push({ cursor, size });
    const start = cursor === undefined ? 0 : Number(cursor);
    const n = size ?? defaultSize;
    const items = Array.from({ length: Math.max(0, Math.min(n, total - start)) }, (_, i) => start + i);
    return { items, next_cursor: start + n < total ? String(start + n) : null, page_of: start };
  };
  return { calls, fetch };
}

describe('collectPages', () => {
  test('default: one page at the service size, the response unchanged, more flagged', async () => {
    const p = pager(7);
    const got = await collectPages(p.fetch, cursorOf, {}, 50);
    expect(got.items).toEqual([0, 1, 2]);
    expect(got.more).toBe(true);
    expect(got.response).toEqual({ items: [0, 1, 2], next_cursor: '3', page_of: 0 });
    expect(p.calls).toEqual([{ cursor: undefined, size: undefined }]);
  });

  test('--all asks for the largest pages and follows the cursor to the end', async () => {
    const p = pager(7);
    const got = await collectPages(p.fetch, cursorOf, { all: true }, 3);
    expect(got.items).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(got.pages).toBe(3);
    expect(got.more).toBe(false);
    expect(got.response).toEqual({ items: [0, 1, 2, 3, 4, 5, 6], next_cursor: null, page_of: 6 });
  });

  test('--limit stops once N items are in and cuts the last page', async () => {
    const p = pager(10);
    const got = await collectPages(p.fetch, cursorOf, { limit: 5 }, 3);
    expect(got.items).toEqual([0, 1, 2, 3, 4]);
    expect(got.more).toBe(true);
    expect(p.calls.map((c) => c.size)).toEqual([3, 3]);
  });

  test('--limit smaller than a page asks for exactly that many', async () => {
    const p = pager(10);
    const got = await collectPages(p.fetch, cursorOf, { limit: 2 }, 50);
    expect(got.items).toEqual([0, 1]);
    expect(got.pages).toBe(1);
    expect(p.calls).toEqual([{ cursor: undefined, size: 2 }]);
  });

  test('a cursor that repeats is an error, not a loop', async () => {
    const stuck = async () => ({ items: [1], next_cursor: 'same' });
    await expect(collectPages(stuck, cursorOf, { all: true }, 10)).rejects.toThrow(ApiError);
  });
});

describe('pageSelection', () => {
  test('flags', () => {
    expect(pageSelection(undefined, undefined)).toEqual({});
    expect(pageSelection(true, undefined)).toEqual({ all: true });
    expect(pageSelection(undefined, '25')).toEqual({ limit: 25 });
    expect(() => pageSelection(true, '5')).toThrow(UsageError);
    expect(() => pageSelection(undefined, '0')).toThrow(/at least 1/);
    expect(() => pageSelection(undefined, '1.5')).toThrow(UsageError);
  });
});
