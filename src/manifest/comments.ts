import { Parser } from 'yaml';

/** A YAML comment as yaml's own parser found it: `text` is everything after the `#`. */
export interface Comment {
  /** Offset of the `#`. */
  offset: number;
  /** Offset just past the comment's last character. */
  end: number;
  text: string;
}

/**
 * Every comment of a YAML text, in source order, read from yaml's concrete syntax tree: a `#`
 * inside a quoted string, a block scalar or a plain value (`a#b`) is part of that value, never a
 * comment, exactly as every YAML parser reads it. Only texts that the loader accepted reach here
 * (its size, token and depth limits have run), so the tree is bounded.
 */
export function readComments(text: string): Comment[] {
  const out: Comment[] = [];
  // The tree is walked with an explicit stack: its shape is yaml's (documents, collections, items
  // and their `start`/`sep`/`end` token lists), and comments can sit in any of those lists.
  const stack: unknown[] = [];
  for (const token of new Parser().parse(text)) stack.push(token);
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    const token = node as { type?: unknown; offset?: unknown; source?: unknown };
    if (token.type === 'comment' && typeof token.offset === 'number' && typeof token.source === 'string') {
      out.push({ offset: token.offset, end: token.offset + token.source.length, text: token.source.slice(1) });
      continue;
    }
    for (const value of Object.values(node)) if (value !== null && typeof value === 'object') stack.push(value);
  }
  return out.sort((a, b) => a.offset - b.offset);
}
