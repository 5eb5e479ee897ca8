import { excerpt } from '../diagnostics/excerpt.js';
import { isAlias, visit, type Document, type Node } from 'yaml';
import type { Diagnostic, Range } from '../diagnostics/diagnostic.js';
import { nodeRange, type SourceText } from './source.js';

/**
 * How many aliases one document may use (yaml's `maxAliasCount`, which also weighs aliases of
 * collections that themselves hold aliases). A manifest shares a toolkit list or two; a bomb needs
 * hundreds. Note that yaml ignores this option in `parseDocument`: it is passed to `toJS`.
 */
export const MAX_ALIAS_COUNT = 32;

/**
 * The most data one document may expand to through aliases, as a multiple of the file size limit.
 * The alias count alone is not enough: 32 aliases of one large scalar are 32 times the file.
 */
export const EXPANSION_FACTOR = 4;

/**
 * How many aliases one document may hold in all. yaml limits the uses of each anchor
 * (`MAX_ALIAS_COUNT`), but its conversion to data is quadratic in the anchors used: 20,000
 * anchors used once each took 10 s. A manifest shares a list or two.
 */
export const MAX_ALIASES_IN_DOCUMENT = 1000;

export interface AliasReport {
  diagnostics: Diagnostic[];
  /** The first alias of the document, where an excessive-aliases error is shown. */
  firstAlias: Range | undefined;
}

/**
 * Aliases that yaml composes without complaint but that fail or loop later: an alias to an
 * anchor that does not exist (yaml throws a ReferenceError with no position from `toJS`), and an
 * alias inside the node it refers to (which makes a cyclic value).
 */
export function checkAliases(doc: Document, source: SourceText, file: string, label = 'the document'): AliasReport {
  const diagnostics: Diagnostic[] = [];
  let firstAlias: Range | undefined;
  let count = 0;
  // An alias refers to the last node anchored with its name before it. visit walks the document in
  // source order, each node before what it holds, so the anchors met so far answer that in one
  // pass; yaml's own Alias.resolve walks the document for each alias (20,000 took minutes).
  const anchors = new Map<string, Node>();
  visit(doc, {
    Node(_key, node, path) {
      if (!isAlias(node)) {
        if (node.anchor !== undefined) anchors.set(node.anchor, node);
        return undefined;
      }
      const range = nodeRange(source, node as unknown as Node) ?? source.range(doc.range?.[0] ?? 0);
      firstAlias ??= range;
      if (++count > MAX_ALIASES_IN_DOCUMENT) {
        diagnostics.push({
          code: 'yaml/excessive-aliases',
          severity: 'error',
          message: `${label} holds more than ${MAX_ALIASES_IN_DOCUMENT.toLocaleString('en-US')} aliases`,
          file,
          range,
          hint: 'write the values out, or share fewer of them through anchors',
        });
        return visit.BREAK;
      }
      const target = anchors.get(node.source);
      // An alias with no name (`*`) is yaml's own BAD_ALIAS already, in words of yaml-errors.ts.
      if (target === undefined && node.source !== '') {
        diagnostics.push({
          code: 'yaml/syntax',
          severity: 'error',
          message: `alias *${excerpt(node.source)} refers to no anchor defined before it (yaml BAD_ALIAS)`,
          file,
          range,
          hint: `define &${node.source} on an earlier node`,
        });
      } else if (path.includes(target as never)) {
        diagnostics.push({
          code: 'yaml/syntax',
          severity: 'error',
          message: `alias *${excerpt(node.source)} is inside the node it refers to, which makes an endless value (yaml BAD_ALIAS)`,
          file,
          range,
        });
      }
      return undefined;
    },
  });
  return { diagnostics, firstAlias };
}

export class ExpansionTooLarge extends Error {}

/**
 * A deep copy of composed data in which aliased parts are copied rather than shared, so that no
 * later step (defaults, normalisation) changes two places at once, and which stops as soon as the
 * copy passes `budget` units (one per character of keys and strings, eight per other value).
 */
export function copyWithin(value: unknown, budget: number): unknown {
  let used = 0;
  const charge = (n: number): void => {
    used += n;
    if (used > budget) throw new ExpansionTooLarge();
  };
  const copy = (v: unknown, depth: number): unknown => {
    // Depth is already bounded by the nesting check; aliases can at most double it per level of
    // indirection, and cycles were rejected by checkAliases. This is a last guard, not a limit.
    if (depth > 1024) throw new ExpansionTooLarge();
    if (typeof v === 'string') {
      charge(v.length + 2);
      return v;
    }
    if (Array.isArray(v)) {
      charge(8);
      return v.map((item) => copy(item, depth + 1));
    }
    if (typeof v === 'object' && v !== null) {
      charge(8);
      const out: Record<string, unknown> = {};
      for (const [k, item] of Object.entries(v)) {
        charge(k.length + 2);
        // defineProperty keeps a `__proto__` key an own property instead of replacing the prototype.
        Object.defineProperty(out, k, { value: copy(item, depth + 1), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    charge(8);
    return v;
  };
  return copy(value, 0);
}
