/** JSON pointer (RFC 6901) helpers and the dotted path users read in messages. */

export function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function unescapeSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function joinPointer(pointer: string, ...segments: Array<string | number>): string {
  return pointer + segments.map((s) => '/' + escapeSegment(String(s))).join('');
}

export function splitPointer(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map(unescapeSegment);
}

const plainKey = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * `/tools/gmail/enable/0` -> `tools.gmail.enable[0]`. Keys that are not plain identifiers are
 * quoted; array indices are shown in brackets. The document root is `(document)`.
 */
export function displayPath(pointer: string, data?: unknown): string {
  const segments = splitPointer(pointer);
  if (segments.length === 0) return '(document)';
  let out = '';
  let node: unknown = data;
  for (const seg of segments) {
    const isIndex = Array.isArray(node) ? true : node === undefined && /^(0|[1-9][0-9]*)$/.test(seg);
    if (isIndex) out += `[${seg}]`;
    else out += (out === '' ? '' : '.') + (plainKey.test(seg) ? seg : JSON.stringify(seg));
    node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[seg] : undefined;
  }
  return out;
}

/** The value at a pointer, or undefined. Only own properties are followed. */
export function valueAt(data: unknown, pointer: string): unknown {
  let node: unknown = data;
  for (const seg of splitPointer(pointer)) {
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, seg)) return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node;
}
