/**
 * The two helpers ajv's generated code needs at run time, written here so that the standalone
 * validator is a plain ES module with no CommonJS `require` (ajv's `code.esm` output still emits
 * `require`, see notes/runtime-facts §2.3). Behaviour matches ajv's own runtime helpers for
 * JSON-compatible data, which is all a loaded manifest can hold.
 */

/** Deep equality of JSON values (ajv uses fast-deep-equal for `uniqueItems` and `enum`). */
export function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    // NaN is the one value not equal to itself; fast-deep-equal treats NaN as equal to NaN.
    return a !== a && b !== b;
  }
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false;
    if (!equal((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}

/** String length in Unicode code points, as `minLength`/`maxLength` count it. */
export function ucs2length(str: string): number {
  let length = 0;
  for (let i = 0; i < str.length; i++) {
    length++;
    const c = str.charCodeAt(i);
    // A high surrogate followed by a low one is a single code point.
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < str.length) {
      const d = str.charCodeAt(i + 1);
      if ((d & 0xfc00) === 0xdc00) i++;
    }
  }
  return length;
}

/** Appends `more` to `target` in place and returns it (ajv's generated code used `concat`). */
export function appendErrors<T>(target: T[], more: readonly T[]): T[] {
  for (const item of more) target.push(item);
  return target;
}
