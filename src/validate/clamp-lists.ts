/**
 * A view of the data in which no list is longer than `max` items, sharing every part that needs
 * no change. For the schema check: ajv's `uniqueItems` compares every pair of items and, with
 * `allErrors`, runs even on a list that already failed `maxItems`, so a 360 KB flow list of 82,000
 * toolkits took 19 s. Every list of the schema allows at most `max - 1` items, so a clamped list
 * still fails `maxItems` where the whole one does, and its first items still show their own errors.
 */
export function clampLists(data: unknown, max: number): unknown {
  if (Array.isArray(data)) {
    const items = data.length > max ? data.slice(0, max) : data;
    let changed = items !== data;
    const out = items.map((item) => {
      const next = clampLists(item, max);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : data;
  }
  if (data !== null && typeof data === 'object') {
    let out: Record<string, unknown> | undefined;
    for (const [key, value] of Object.entries(data)) {
      const next = clampLists(value, max);
      if (next === value) continue;
      out ??= { ...(data as Record<string, unknown>) };
      // defineProperty: a `__proto__` key of the data must stay an own key of the copy.
      Object.defineProperty(out, key, { value: next, enumerable: true, writable: true, configurable: true });
    }
    return out ?? data;
  }
  return data;
}

/** The largest `maxItems` anywhere in a JSON schema (0 when none). */
export function largestMaxItems(schema: unknown): number {
  if (Array.isArray(schema)) return Math.max(0, ...schema.map(largestMaxItems));
  if (schema === null || typeof schema !== 'object') return 0;
  let max = 0;
  for (const [key, value] of Object.entries(schema)) {
    max = Math.max(max, key === 'maxItems' && typeof value === 'number' ? value : largestMaxItems(value));
  }
  return max;
}
