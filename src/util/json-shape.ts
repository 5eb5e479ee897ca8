import { joinPointer } from './json-pointer.js';
/**
 * Bounds on decoded JSON from outside (a service's answer, a request to the emulator): how deep it
 * nests and how many entries one object or array holds. Checked iteratively, so the check itself
 * cannot overflow the stack on the input it exists to refuse; what passes is safe for recursive
 * code (drift walks, renderers, JSON.stringify).
 */

export interface JsonLimits {
  /** Deepest nesting of objects and arrays. */
  maxDepth: number;
  /** Most keys in one object, or items in one array. */
  maxEntries: number;
}

export const DEFAULT_JSON_LIMITS: JsonLimits = { maxDepth: 64, maxEntries: 50_000 };

/** Why `value` exceeds the limits (with the JSON pointer where), or undefined when it does not. */
export function jsonShapeProblem(value: unknown, limits: JsonLimits = DEFAULT_JSON_LIMITS): string | undefined {
  const stack: Array<{ value: unknown; depth: number; at: string }> = [{ value, depth: 0, at: '' }];
  while (stack.length > 0) {
    const { value: v, depth, at } = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth >= limits.maxDepth) return `JSON nested deeper than ${limits.maxDepth} levels at ${at === '' ? '/' : at}`;
    const entries = Array.isArray(v) ? v.map((item, i) => [String(i), item] as const) : Object.entries(v);
    if (entries.length > limits.maxEntries) return `more than ${limits.maxEntries} entries in one ${Array.isArray(v) ? 'array' : 'object'} at ${at === '' ? '/' : at}`;
    for (const [key, item] of entries) {
      if (item !== null && typeof item === 'object') stack.push({ value: item, depth: depth + 1, at: joinPointer(at, key) });
    }
  }
  return undefined;
}
