/**
 * Where the cursor is in a manifest being typed, from indentation alone: a buffer mid-edit is
 * rarely valid YAML, and completion needs only which keys hold the cursor and whether it is on a
 * key, a value or a list item. (Findings come from the loader, never from here.)
 */
export interface CursorContext {
  /** The keys of the mappings that hold the cursor, outermost first. */
  path: string[];
  /** `key`: a key of the mapping at `path`; `value`: the value of the key `path` ends with; `item`: an item of the list at `path`. */
  kind: 'key' | 'value' | 'item';
  /** The word under the cursor up to it, and the character where it starts. */
  prefix: string;
  start: number;
}

const KEY_LINE = /^(\s*)(?:-\s+)?([^\s#:][^:#]*?):(?:\s+(.*))?$/;

/** The cursor's context at a 0-based line and character, or undefined inside a comment or block text. */
export function cursorContext(text: string, line: number, character: number): CursorContext | undefined {
  const lines = text.split(/\r?\n/);
  const before = (lines[line] ?? '').slice(0, character);
  if (before.includes('#')) return undefined;
  const indent = before.length - before.trimStart().length;
  const word = /[\w.-]*$/.exec(before)![0];
  const start = character - word.length;
  const keyed = KEY_LINE.exec(before);
  if (keyed !== undefined && keyed !== null && keyed[3] !== undefined) {
    const parents = parentKeys(lines, line, keyed[1]!.length + (before.trimStart().startsWith('-') ? 1 : 0));
    const path = [...parents, keyed[2]!.trim()];
    return { path, kind: keyed[3].includes('[') ? 'item' : 'value', prefix: word, start };
  }
  const item = /^(\s*)-\s+[\w.-]*$/.exec(before);
  if (item !== null) return { path: parentKeys(lines, line, indent, true), kind: 'item', prefix: word, start };
  if (/^\s*[\w.-]*$/.test(before)) return { path: parentKeys(lines, line, indent), kind: 'key', prefix: word, start };
  return undefined;
}

/**
 * The keys above `line` that hold a line indented by `indent`: each nearest line above with less
 * indentation (or, for a list item, a key at the same indentation with no value: `key:` then
 * `- item` below it at its own column).
 */
function parentKeys(lines: readonly string[], line: number, indent: number, listItem = false): string[] {
  const path: string[] = [];
  let limit = indent;
  let sameColumnKey = listItem;
  for (let i = line - 1; i >= 0 && limit > 0 - (sameColumnKey ? 1 : 0); i--) {
    const text = lines[i]!;
    const trimmed = text.trimStart();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const own = text.length - trimmed.length;
    const m = KEY_LINE.exec(text.replace(/\s+#.*$/, ''));
    const holds = own < limit || (sameColumnKey && own === limit && m !== null && (m[3] ?? '') === '' && !trimmed.startsWith('-'));
    if (!holds) continue;
    sameColumnKey = false;
    if (m === null) {
      limit = own;
      continue;
    }
    // A key of a list item (`- name: x`) holds the lines below it one column in.
    path.unshift(m[2]!.trim());
    limit = own;
  }
  return path;
}
