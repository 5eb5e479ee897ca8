import type { CST } from 'yaml';

/** The default nesting limit; a session manifest needs about six levels. */
export const DEFAULT_MAX_DEPTH = 64;

export interface TooDeep {
  /** Character offset of the first collection past the limit. */
  offset: number;
}

/**
 * Measures collection nesting on yaml's concrete syntax tree, before anything is composed.
 *
 * Why before: yaml's composer recurses once per level. Past about 900 levels it fails with
 * RESOURCE_EXHAUSTION, and on Node 20 a second such document in the same process aborts V8
 * uncatchably (runtime-facts §1.2). yaml's Lexer and Parser are iterative, and so is this walk, so
 * 10,000 or 100,000 levels are measured safely and quickly.
 */
export function findTooDeep(tokens: readonly CST.Token[], maxDepth: number = DEFAULT_MAX_DEPTH): TooDeep | undefined {
  const stack: Array<[CST.Token, number]> = [];
  for (let i = tokens.length - 1; i >= 0; i--) stack.push([tokens[i] as CST.Token, 0]);
  while (stack.length > 0) {
    const [token, depth] = stack.pop() as [CST.Token, number];
    switch (token.type) {
      case 'document':
        if (token.value !== undefined) stack.push([token.value, depth]);
        break;
      case 'block-map':
      case 'block-seq':
      case 'flow-collection': {
        const inner = depth + 1;
        if (inner > maxDepth) return { offset: token.offset };
        for (let i = token.items.length - 1; i >= 0; i--) {
          const item = token.items[i] as { key?: CST.Token | null; value?: CST.Token };
          if (item.value !== undefined) stack.push([item.value, inner]);
          if (item.key !== undefined && item.key !== null) stack.push([item.key, inner]);
        }
        break;
      }
      case 'block-scalar':
        // Properties (anchors, tags) are the only children here, and they hold no collections.
        break;
      default:
        break;
    }
  }
  return undefined;
}
