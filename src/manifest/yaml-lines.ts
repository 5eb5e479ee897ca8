/**
 * The lines around a YAML syntax error, read for one purpose: saying in plain words what went
 * wrong with indentation. yaml reports where parsing failed; a person needs to know which key the
 * line was read as part of, and where it probably belongs. These are hints over the text's lines
 * (indentation and the key each line starts with), never a second parser: the document itself is
 * only ever read by yaml.
 */

/** One line of the source, as the hints read it. */
export interface Line {
  /** 1-based line number. */
  n: number;
  text: string;
  /** Leading spaces. */
  indent: number;
  /** The key the line starts with (after a `- ` list marker), if it is `key:` or `key: value`. */
  key?: string;
  /** The text after the key's `: `. */
  afterColon?: string;
  /** The line is a list item (`- ...`). */
  item: boolean;
  /** `key:value` with no space after the colon, as written. */
  missingSpace?: string;
}

// A key is plain (`name`), or quoted (`"name"`, `'name'`) as written.
const KEY_LINE = /^(\s*)(-\s+)?([^\s#:'"{}[\],&*!|>%@`-][^:#]*?|-[^\s:#][^:#]*?|"(?:[^"\\]|\\.)*"|'(?:[^']|'')*')\s*:(?:\s+(.*)|$)/;
const GLUED = /^\s*(?:-\s+)?([A-Za-z_][\w.-]*):(\S+)/;

/** The spaces a line starts with (a tab is no indentation in YAML). */
function indentOf(text: string): number {
  return /^ */.exec(text)![0].length;
}

function parseLine(text: string, n: number): Line {
  const indent = indentOf(text);
  const line: Line = { n, text, indent, item: /^\s*-(\s|$)/.test(text) };
  const m = KEY_LINE.exec(text);
  if (m !== null) {
    line.key = m[3]!;
    if (m[4] !== undefined) line.afterColon = m[4];
  } else {
    const glued = GLUED.exec(text);
    if (glued !== null && !/^\/\//.test(glued[2]!)) line.missingSpace = `${glued[1]!}:${glued[2]!}`;
  }
  return line;
}

/**
 * The lines of the last text read, and the offset each starts at. Every finding of a file reads the
 * same text; split again for each one, a file of 100,000 comment lines and 200 errors took seconds.
 */
let last: { text: string; lines: string[]; starts: number[] } | undefined;

function read(text: string): { lines: string[]; starts: number[] } {
  if (last?.text !== text) {
    const starts = [0];
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    last = { text, lines: text.split(/\r?\n/), starts };
  }
  return last;
}

function lines(text: string): string[] {
  return read(text).lines;
}

/** Blank lines and comment lines say nothing about structure. */
function isContent(text: string): boolean {
  const t = text.trim();
  return t !== '' && !t.startsWith('#') && t !== '---' && t !== '...';
}

/** The line holding a character offset. */
export function lineAt(text: string, offset: number): Line {
  const { lines, starts } = read(text);
  // The last line that starts at or before the offset.
  let [lo, hi] = [0, starts.length - 1];
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return parseLine(lines[lo]!, lo + 1);
}

function label(line: Line): string {
  if (line.key !== undefined) return line.item ? `- ${line.key}` : line.key;
  const t = line.text.trim();
  return t.length > 30 ? `${t.slice(0, 27)}...` : t;
}

/**
 * What an indentation error means, in words. Two shapes cover what people do:
 *
 * - a line indented deeper than the `key: value` line above it (or a value's continuation): it is
 *   read as part of that key's value; it probably belongs at that key's column;
 * - a line that lines up with nothing above: it is read as part of the nearest key indented less,
 *   and probably belongs at the nearest column a key above uses (a list item next to list items).
 */
export function describeIndentation(text: string, offset: number): { message: string; hint: string } {
  const all = lines(text);
  const here = lineAt(text, offset);
  // A deeper line after a key with a value on the line itself: the deeper line is the culprit.
  const nextIndex = all.findIndex((t, i) => i >= here.n && isContent(t));
  const next = nextIndex === -1 ? undefined : parseLine(all[nextIndex]!, nextIndex + 1);
  if (here.key !== undefined && here.afterColon !== undefined && here.afterColon.trim() !== '' && next !== undefined && next.indent > here.indent) {
    return {
      message: `\`${label(next)}\` on line ${next.n} is indented more than \`${here.key}\` on line ${here.n}, so it is read as part of the value of \`${here.key}\``,
      hint: `If \`${next.key ?? label(next)}\` is a key of its own, start it at column ${here.indent + 1}, like \`${here.key}\`.`,
    };
  }
  const line = isContent(here.text) ? here : (next ?? here);
  // The lines above, nearest first: the one just above, and each shallower level that encloses this line.
  const above: Line[] = [];
  let shallowest = Infinity;
  for (let i = line.n - 2; i >= 0; i--) {
    // Only the line just above and shallower ones are kept: the rest are skipped unread, or each
    // finding under a deep block of many lines reads them all (200 findings, 30,000 lines: 2 s).
    if (!isContent(all[i]!) || (above.length > 0 && indentOf(all[i]!) >= shallowest)) continue;
    const l = parseLine(all[i]!, i + 1);
    if (above.length === 0 || l.indent < shallowest) above.push(l);
    shallowest = Math.min(shallowest, l.indent);
    if (l.indent === 0) break;
  }
  const same = above.find((l) => l.indent === line.indent);
  if (same !== undefined && same.item !== line.item) {
    // A list item among the keys of a mapping (or a key among list items): the two cannot mix.
    const owner = line.item ? above.find((l) => l.indent > line.indent && l.key !== undefined) : undefined;
    return {
      message: `\`${label(line)}\` on line ${line.n} is ${line.item ? 'a list item' : 'a key'} at the column of ${same.item ? 'the list items' : 'the keys'} above (\`${label(same)}\`, line ${same.n}); one mapping or list cannot mix the two`,
      hint: owner !== undefined ? `Indent it under the key whose list it is, such as \`${owner.key!}\` (line ${owner.n}), deeper than column ${owner.indent + 1}.` : `Indent it under the key it belongs to, or make it \`${line.item ? 'key: value' : '- item'}\` like the lines around it.`,
    };
  }
  const parent = above.find((l) => l.indent < line.indent);
  const taken = parent !== undefined ? `, so it is read as part of \`${label(parent)}\` (line ${parent.n})` : '';
  const message = `\`${label(line)}\` on line ${line.n} starts at column ${line.indent + 1}, which lines up with no line above it${taken}`;
  const candidates = above.filter((l, i) => above.findIndex((o) => o.indent === l.indent) === i);
  if (candidates.length === 0) return { message, hint: 'Indent it like the lines around it: every key of one mapping, and every item of one list, starts at the same column.' };
  // Nearest column wins; between two as near, a list item joins list items, else the shallower one.
  const score = (l: Line): number => Math.abs(l.indent - line.indent) * 4 + (line.item && l.item ? 0 : line.item ? 2 : 0) + (l.indent < line.indent ? 0 : 1);
  const best = [...candidates].sort((a, b) => score(a) - score(b))[0]!;
  const where = (l: Line): string => `column ${l.indent + 1}, next to \`${label(l)}\` (line ${l.n})`;
  const other = candidates.find((l) => l !== best);
  return { message, hint: `It probably belongs at ${where(best)}${other !== undefined ? `; at ${where(other)} it would belong with \`${label(other)}\` instead` : ''}.` };
}

/** Where a mistake is first seen, and its words; `line` is the line the mistake is about. */
export interface Words {
  message: string;
  hint: string;
  line: number;
}

/** A `|` or `>` header after a key's `: ` or an item's `- `: props, indicators, a comment. */
const BLOCK_HEADER = /^(?:[&!]\S*\s+)*([|>])[1-9+-]{0,2}(?:\s+#.*)?\s*$/;

/**
 * A line meant as the text of a `|` or `>` block above it but not indented more than the block's
 * key (or its `- `): YAML ends the block there, empty, and trips over the line as a key or an item
 * without its `: ` or `- `. Blank lines, and more lines of such text, may stand between.
 */
export function blockTextWords(text: string, offset: number): Words | undefined {
  const all = lines(text);
  const here = lineAt(text, offset);
  if (here.key !== undefined || here.item || !isContent(here.text)) return undefined;
  // The deepest of this line and the lines of text between it and the header: a block whose text
  // starts indented is not this mistake, whatever follows it.
  let deepest = here.indent;
  for (let i = here.n - 2; i >= 0; i--) {
    if (all[i]!.trim() === '') continue;
    const above = parseLine(all[i]!, i + 1);
    const value = above.key !== undefined ? above.afterColon : above.item ? above.text.replace(/^\s*-\s+/, '') : undefined;
    const header = BLOCK_HEADER.exec(value ?? '');
    if (header !== null) {
      const column = above.key !== undefined ? above.text.indexOf(above.key) : above.indent;
      if (deepest > column) return undefined;
      const owner = above.key !== undefined ? `\`${above.key}\`` : 'its `- `';
      return {
        message: `the text of the \`${header[1]!}\` block ${above.key !== undefined ? `of \`${above.key}\`` : 'of the list item'} on line ${above.n} must be indented more than ${owner}`,
        hint: `indent every line of the text more than ${owner} (column ${column + 1}), for example to column ${column + 3}`,
        line: above.n,
      };
    }
    if (above.key !== undefined || above.item || !isContent(above.text)) return undefined;
    deepest = Math.max(deepest, above.indent);
  }
  return undefined;
}

/**
 * A key (or a plain word) at the column of a list above it: one mapping or list cannot hold both.
 * Found from the key's line or any line after it that yaml trips over (more keys at that column,
 * the lines under them), all one mistake. A list under a key at the key's own column (`toolkits:`,
 * then `- a`) is YAML's compact form, and not this.
 */
export function keyAfterListWords(text: string, offset: number): Words | undefined {
  const all = lines(text);
  // Lines deeper than `deepest` are skipped unread: only their indentation matters.
  const content = (i: number, deepest: number): Line | undefined => (isContent(all[i]!) && indentOf(all[i]!) <= deepest ? parseLine(all[i]!, i + 1) : undefined);
  let line = lineAt(text, offset);
  if (!isContent(line.text)) return undefined;
  let item: Line | undefined;
  for (let i = line.n - 2; i >= 0 && item === undefined; i--) {
    const above = content(i, line.indent);
    if (above === undefined) continue;
    if (above.indent === line.indent && above.item && !line.item) item = above;
    else line = above;
  }
  if (item === undefined) return undefined;
  // The first item of the list, and the line the list hangs from.
  let first = item;
  let parent: Line | undefined;
  for (let i = item.n - 2; i >= 0 && parent === undefined; i--) {
    const above = content(i, item.indent);
    if (above === undefined) continue;
    if (above.indent === item.indent && above.item) first = above;
    else parent = above;
  }
  const compact = parent?.indent === item.indent && parent.key !== undefined && /^(?:[&!]\S*\s*)*(?:#.*)?$/.test(parent.afterColon ?? '');
  if (compact) return undefined;
  const ways: string[] = [];
  if (line.key === undefined) ways.push(`write \`- ${line.text.trim()}\` if it is an item of the list`);
  else {
    if (item.key !== undefined) ways.push(`if \`${line.key}\` belongs to the item on line ${item.n}, indent it to column ${item.text.indexOf(item.key) + 1}, under \`${item.key}\``);
    const it = ways.length === 0 ? `\`${line.key}\`` : 'it';
    const beside = parent !== undefined && parent.indent < item.indent ? parent.key : undefined;
    ways.push(beside !== undefined ? `if ${it} is a key beside \`${beside}\` (line ${parent!.n}), start it at column ${parent!.indent + 1}` : `if ${it} is a key of its own, the list needs a key too: write \`key:\` on a line above its first \`- \` (line ${first.n})`);
  }
  const hint = ways.join('; ');
  return {
    message:
      line.key !== undefined
        ? `\`${line.key}\` on line ${line.n} is a key at column ${line.indent + 1}, the column of the list above it (\`${label(item)}\`, line ${item.n}): a list and a key cannot share their indentation`
        : `\`${label(line)}\` on line ${line.n} is at column ${line.indent + 1}, the column of the list above it (\`${label(item)}\`, line ${item.n}), but has no \`- \``,
    hint: `${hint.charAt(0).toUpperCase()}${hint.slice(1)}.`,
    line: line.n,
  };
}
