import { isAlias, isMap, isScalar, isSeq, LineCounter, type Document, type Node, type Pair, type YAMLMap } from 'yaml';
import type { Position, Range } from '../diagnostics/diagnostic.js';
import type { ScalarSource } from './types.js';
import { parentPointer, splitPointer } from '../util/json-pointer.js';

/**
 * One source text and its line index. Every offset -> line:col conversion of the project happens
 * here, once, 1-based; reporters never do position arithmetic.
 */
export class SourceText {
  readonly lineCounter = new LineCounter();

  constructor(readonly text: string) {
    // Indexed here rather than by the yaml Parser, so that texts which never reach the parser
    // (binary or too-deep files) are located the same way.
    this.lineCounter.addNewLine(0);
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) this.lineCounter.addNewLine(i + 1);
  }

  /**
   * The 1-based line and column (UTF-16 code units) of a character offset. An offset inside a
   * surrogate pair (yaml's error spans can end there) moves to the pair's start, or with `after`
   * past its end, so a position always names a whole character.
   */
  position(offset: number, after = false): Position {
    let at = Math.max(0, Math.min(offset, this.text.length));
    if (isLowSurrogate(this.text.charCodeAt(at)) && isHighSurrogate(this.text.charCodeAt(at - 1))) at += after ? 1 : -1;
    const { line, col } = this.lineCounter.linePos(at);
    return { line: Math.max(line, 1), col: Math.max(col, 1) };
  }

  /** The range between two character offsets; an empty or inverted span collapses to its start. */
  range(start: number, end: number = start): Range {
    const s = this.position(start);
    return { start: s, end: end > start ? this.position(end, true) : s };
  }
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** A mapping key as the JSON data sees it (`stringKeys` makes every key a string; null is ''). */
export function keyString(key: unknown): string {
  if (isScalar(key)) return key.value === null || key.value === undefined ? '' : String(key.value);
  return String(key);
}


interface Found {
  /** The deepest node reached. */
  node: Node | null;
  /** The key node of the last map entry stepped through, when the last step was a map entry. */
  keyNode: Node | null;
  /** True when every segment of the pointer was found. */
  complete: boolean;
}

/**
 * Walks a JSON pointer through the composed YAML. Maps compare `String(key)` (ajv's view of the
 * data), sequences take decimal indices, aliases are followed. Stops at the nearest existing
 * ancestor when a segment is missing.
 */
export function walkPointer(doc: Document, pointer: string): Found {
  let node = resolveAlias(doc, doc.contents as Node | null);
  let keyNode: Node | null = null;
  for (const segment of splitPointer(pointer)) {
    if (isMap(node)) {
      const match = pairIndex(node).get(segment);
      if (match === undefined) return { node, keyNode, complete: false };
      keyNode = isNodeLike(match.key) ? match.key : null;
      const value = resolveAlias(doc, (match.value ?? null) as Node | null);
      // `key:` with no value holds an empty scalar after the colon: point at the key instead.
      node = value === null || isEmptyScalar(value) ? (keyNode ?? value) : value;
      continue;
    }
    if (isSeq(node) && /^(0|[1-9][0-9]*)$/.test(segment)) {
      const item = node.items[Number(segment)];
      if (item === undefined) return { node, keyNode, complete: false };
      node = resolveAlias(doc, item as Node | null);
      keyNode = null;
      continue;
    }
    return { node, keyNode, complete: false };
  }
  return { node, keyNode, complete: true };
}

type MapNode = YAMLMap<unknown, unknown>;
const pairIndexes = new WeakMap<MapNode, Map<string, Pair<unknown, unknown>>>();

/**
 * A map's pairs by key, built once per map: a scan per lookup made locating 30,000 findings in
 * one 30,000-key map quadratic (45 s). The last pair of a key wins, as it reached the data
 * (duplicates keep the last). Keys are never interpolated, so the index does not go stale.
 */
function pairIndex(node: MapNode): Map<string, Pair<unknown, unknown>> {
  let index = pairIndexes.get(node);
  if (index === undefined) {
    index = new Map();
    for (const pair of node.items) index.set(keyString(pair.key), pair);
    pairIndexes.set(node, index);
  }
  return index;
}

function isEmptyScalar(node: Node): boolean {
  return isScalar(node) && node.value === null && node.source === '' && node.tag === undefined;
}

function isNodeLike(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && 'range' in value;
}

function resolveAlias(doc: Document, node: Node | null): Node | null {
  // Alias chains are short (an alias always points back to an earlier anchor), but bound the loop.
  for (let i = 0; i < 64 && isAlias(node); i++) node = (node.resolve(doc) as Node | undefined) ?? null;
  return node;
}

/** The source range of a node's value (without trailing comments), or undefined without one. */
export function nodeRange(source: SourceText, node: Node | null): Range | undefined {
  const r = node?.range;
  if (r === undefined || r === null) return undefined;
  // A collection's value range runs to the start of the next line; stop at its last character.
  let end = r[1];
  while (end > r[0] && /\s/.test(source.text.charAt(end - 1))) end--;
  return source.range(r[0], end);
}

/** Builds `ManifestDocument.locate` for one composed document. */
export function makeLocate(source: SourceText, doc: Document): (pointer: string, options?: { key?: boolean }) => Range {
  const docStart = doc.range?.[0] ?? 0;
  return (pointer, options = {}) => {
    const found = walkPointer(doc, pointer);
    if (options.key === true && found.complete && found.keyNode !== null) {
      const r = nodeRange(source, found.keyNode);
      if (r !== undefined) return r;
    }
    return nodeRange(source, found.node) ?? source.range(docStart);
  };
}

/** Builds `ManifestDocument.scalar` for one composed document. */
export function makeScalar(source: SourceText, doc: Document): (pointer: string) => ScalarSource | undefined {
  return (pointer) => {
    const found = walkPointer(doc, pointer);
    if (!found.complete || !isScalar(found.node) || found.node.range === undefined || found.node.range === null) return undefined;
    const [start, end] = found.node.range;
    const parent = pointer === '' ? null : walkPointer(doc, parentPointer(pointer)).node;
    const inFlow = (isMap(parent) || isSeq(parent)) && parent.flow === true;
    return { source: source.text.slice(start, end), style: scalarStyle(found.node.type), ...(inFlow ? { inFlow } : {}) };
  };
}

function scalarStyle(type: string | undefined): ScalarSource['style'] {
  switch (type) {
    case 'QUOTE_DOUBLE':
    case 'QUOTE_SINGLE':
      return 'quoted';
    case 'BLOCK_FOLDED':
    case 'BLOCK_LITERAL':
      return 'block';
    default:
      return 'plain';
  }
}
