/** JSON pointers (RFC 6901) from and to path segments. */

export function toPointer(segments: readonly (string | number)[]): string {
  return segments.map((s) => '/' + String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

export function fromPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The pointer one level up; the document's parent is itself. */
export function parentPointer(pointer: string): string {
  const i = pointer.lastIndexOf('/');
  return i <= 0 ? '' : pointer.slice(0, i);
}
