/** The dotted path users read in messages, and the value a JSON pointer names. */
import { splitPointer } from '../util/json-pointer.js';

const plainKey = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * `/tools/gmail/enable/0` -> `tools.gmail.enable[0]`. Keys that are not plain identifiers are
 * quoted; array indices are shown in brackets. The document root is `(document)`.
 */
export function dottedPath(pointer: string, data?: unknown): string {
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
