/** JSON pointers (RFC 6901): the one escaping of segments (`~` as `~0`, `/` as `~1`), joined and split. */

export function escapeSegment(segment: string | number): string {
  if (typeof segment === 'number') return String(segment);
  // Most segments are slugs and keys with neither character: skip the two regular expressions.
  if (!segment.includes('~') && !segment.includes('/')) return segment;
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** `pointer` with `segments` appended: `joinPointer('/tools', 'a/b', 0)` is `/tools/a~1b/0`; `''` is the whole document. */
export function joinPointer(pointer: string, ...segments: ReadonlyArray<string | number>): string {
  let out = pointer;
  for (const s of segments) out += '/' + escapeSegment(s);
  return out;
}

/** The unescaped segments of a pointer; `''` is the whole document, `'/'` its key `''`. */
export function splitPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return (pointer.startsWith('/') ? pointer.slice(1) : pointer).split('/').map(unescapeSegment);
}

/** The pointer one level up; the document's parent is itself. */
export function parentPointer(pointer: string): string {
  const i = pointer.lastIndexOf('/');
  return i <= 0 ? '' : pointer.slice(0, i);
}

/** The value at `segments` in plain data (objects and arrays), or undefined when there is none. */
export function valueAtSegments(value: unknown, segments: readonly string[]): unknown {
  let at = value;
  for (const s of segments) {
    if (at !== null && typeof at === 'object' && !Array.isArray(at) && Object.prototype.hasOwnProperty.call(at, s)) at = (at as Record<string, unknown>)[s];
    else if (Array.isArray(at) && /^\d+$/.test(s)) at = at[Number(s)];
    else return undefined;
  }
  return at;
}

/** The value at a pointer in plain data, or undefined. */
export function valueAtPointer(value: unknown, pointer: string): unknown {
  return valueAtSegments(value, splitPointer(pointer));
}
