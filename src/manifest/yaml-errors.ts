import { excerpt } from '../diagnostics/excerpt.js';
import type { YAMLError } from 'yaml';
import { codeInfo, type Code } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { blockTextWords, describeIndentation, keyAfterListWords, lineAt, type Line } from './yaml-lines.js';
import { mapped } from './yaml-mapped.js';
import { mistakeAbout } from './yaml-mistakes.js';
import type { SourceText } from './source.js';

/**
 * Our words for one of yaml's syntax errors: what is wrong at this place, and what to do; and the
 * line the mistake is about, when yaml reports it on several lines (`oneFindingPerMistake`).
 */
interface Plain {
  message: string;
  hint?: string;
  line?: number;
  /** The offset the finding points at, when that is not where yaml noticed it (an unclosed `[`). */
  at?: number;
}

/**
 * The offset of the last `open` bracket before `end` that no `close` matches, outside quotes and
 * comments: the `[` an unclosed flow collection began with, which yaml notices only lines later.
 */
function unclosedBracket(text: string, end: number, open: string, close: string): number | undefined {
  const stack: number[] = [];
  let quote: string | undefined;
  for (let i = 0; i < end; i++) {
    const ch = text.charAt(i);
    if (quote !== undefined) {
      if (ch === quote && !(quote === '"' && text.charAt(i - 1) === '\\')) quote = undefined;
    } else if (ch === '#' && (i === 0 || /\s/.test(text.charAt(i - 1)))) {
      const nl = text.indexOf('\n', i);
      i = nl === -1 ? end : nl;
    } else if ((ch === '"' || ch === "'") && stack.length > 0) quote = ch;
    else if (ch === open) stack.push(i);
    else if (ch === close) stack.pop();
  }
  return stack[0];
}

/** The codes yaml gives for a line that does not fit the structure around it. */
// Not BLOCK_AS_IMPLICIT_KEY: on such a line it is a mistake of its own (`b: c: d`), worded as one.
const STRUCTURE: ReadonlySet<string> = new Set(['BAD_INDENT', 'MULTILINE_IMPLICIT_KEY', 'UNEXPECTED_TOKEN', 'MISSING_CHAR']);

/** The first character of the error's span, as a message shows it. */
function tokenAt(text: string, offset: number): string {
  const ch = text.charAt(offset);
  if (ch === '') return 'end of the file';
  return ch === '`' ? 'a backtick' : `\`${ch}\``;
}

/** `put the value in quotes: `key: "value"``, from the line the value is on (without its comment). */
function quoteHint(line: Line): string {
  // Double quotes read `\` as an escape and end at a `"`: a value holding either goes in single
  // quotes, where only `'` is special (written twice).
  const value = (from: number): string => {
    const text = line.text.slice(from).replace(/\s#.*/, '').trim();
    return /["\\]/.test(text) ? `'${text.replaceAll("'", "''")}'` : `"${text}"`;
  };
  if (line.afterColon !== undefined) return `put the value in quotes: \`${line.key!}: ${value(line.text.length - line.afterColon.length)}\``;
  const item = /^\s*-\s/.exec(line.text);
  return item !== null ? `put the item in quotes: \`- ${value(item[0].length)}\`` : 'put the value in quotes';
}

/**
 * `key: - item`: yaml reports the `- ` (UNEXPECTED_TOKEN) and the item read as a key without a value
 * (MISSING_CHAR); the same words for both make them one finding.
 */
function listOnKeyLine(line: Line): Plain {
  return { message: `a list starts on the line of its key (line ${line.n}); its items go on the lines below`, hint: 'put each `- item` on a line of its own below the key, indented more than the key' };
}

const blockInFlow: Plain = {
  message: 'a block list item (`- `) or block mapping is written inside brackets',
  hint: 'inside `[...]` or `{...}`, separate items with commas: `[a, b]`; or drop the brackets and write one `- item` per line',
};

/**
 * Messages in plain words for the syntax errors a person can cause, with a hint each. Indentation
 * errors name the key the line was read as part of and where it probably belongs (see
 * `describeIndentation`). yaml's own code stays at the end of the message, for searching.
 */
function plainWords(error: YAMLError, text: string): Plain | undefined {
  const line = lineAt(text, error.pos[0]);
  const m = error.message;
  if (line.missingSpace !== undefined && error.code !== 'BAD_INDENT') {
    return { message: `\`${line.missingSpace}\` on line ${line.n} has no space after its \`:\`, so it is read as one plain value, not a key and its value`, hint: `put a space after the colon: \`${line.missingSpace.replace(':', ': ')}\`` };
  }
  if (/^\s*%/.test(line.text) && line.n > 1) {
    return { message: `\`${line.text.trim()}\` on line ${line.n} is a directive after content`, hint: 'directives (`%YAML`, `%TAG`) go at the top of the file, before the `---` of the first document' };
  }
  // BAD_INDENT inside a block collection, MISSING_CHAR at the top of the file.
  const unclosed = /Flow (sequence|map) (in block collection )?must/.exec(m);
  if (unclosed !== null) {
    const [open, close] = unclosed[1] === 'sequence' ? ['[', ']'] : ['{', '}'];
    if (unclosed[2] === undefined) return { message: `a \`${open}\` is never closed with \`${close}\``, hint: `close it with \`${close}\` at the end of its items` };
    const at = unclosedBracket(text, error.pos[0], open, close);
    if (at === undefined) return { message: `a \`${open}\` opened above is not closed with \`${close}\` before the next key`, hint: `close it with \`${close}\` on the same line, or indent its continuation lines more than the key` };
    const before = error.pos[0] >= text.trimEnd().length ? 'the end of the file' : `line ${line.n}, where the next key starts`;
    return {
      message: `this \`${open}\` is never closed: its \`${close}\` is missing before ${before}`,
      hint: `close it with \`${close}\` after its last item; items on lines of their own go indented more than the key`,
      at,
      line: lineAt(text, at).n,
    };
  }
  // A line yaml trips over because of a mistake above it: block text not indented, a key beside a list.
  const structural = STRUCTURE.has(error.code) && (error.code !== 'MISSING_CHAR' || m === 'Implicit map keys need to be followed by map values' || m === 'Sequence item without - indicator');
  const above = structural ? (blockTextWords(text, error.pos[0]) ?? keyAfterListWords(text, error.pos[0])) : undefined;
  if (above !== undefined) return above;
  switch (error.code) {
    case 'BAD_INDENT':
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY':
      return indentationWords(error, text, line);
    case 'MISSING_CHAR':
      return missingCharWords(m, text, error.pos[0], line);
    case 'BAD_SCALAR_START':
      return { message: `a plain value cannot start with ${tokenAt(text, error.pos[0])}: YAML reserves it`, hint: quoteHint(line) };
    case 'BAD_DQ_ESCAPE':
      return escapeWords(text, error.pos[0]);
    case 'BAD_ALIAS':
      return aliasWords(m, text, error.pos[1]);
    case 'ALIAS_PROPS':
      return { message: 'an alias (`*name`) cannot have an anchor or tag of its own', hint: 'remove the `&anchor` or `!tag` in front of the alias' };
    case 'MULTIPLE_ANCHORS':
      return { message: 'a value has two anchors (`&a &b`); it can have one', hint: 'keep one `&anchor`' };
    case 'MULTIPLE_TAGS':
      return { message: 'a value has two tags; it can have one', hint: 'remove the extra `!tag`' };
    case 'BAD_PROP_ORDER':
      return { message: 'an anchor or tag stands before the `?` or `:` it should follow', hint: 'write the anchor or tag after the indicator: `key: &anchor value`' };
    case 'BLOCK_IN_FLOW':
      return blockInFlow;
    case 'KEY_OVER_1024_CHARS':
      return { message: 'a key is longer than 1,024 characters, or its line is missing the `: `', hint: 'add `: ` after the key, or shorten it' };
    case 'UNEXPECTED_TOKEN':
      return unexpectedWords(m, text, error.pos[0], line);
  }
  // A code no text makes yaml 2.9.1 report (IMPOSSIBLE), or one a later yaml adds: yaml's words.
  return undefined;
}

/** BAD_INDENT, BLOCK_AS_IMPLICIT_KEY and MULTILINE_IMPLICIT_KEY: which line is out of place, and why. */
function indentationWords(error: YAMLError, text: string, line: Line): Plain {
  const at = error.pos[0];
  if (error.message.startsWith('Implicit keys of flow sequence pairs')) {
    // `[- a]`: yaml reads the block list as a key of a pair, and says so beside BLOCK_IN_FLOW; one explanation for both.
    if (text.charAt(at) === '-') return blockInFlow;
    return { message: 'a key inside brackets runs over more than one line', hint: 'inside `[...]` or `{...}`, separate items with commas and keep each `key: value` on one line' };
  }
  if (!line.item && error.code !== 'BAD_INDENT' && !line.text.includes(':')) {
    return { message: `\`${line.text.trim()}\` on line ${line.n} has no \`:\` after it, so it runs into the next line`, hint: `write \`${line.text.trim()}:\` if it is a key` };
  }
  if (error.message === 'Nested mappings are not allowed in compact mappings' && line.afterColon?.includes(': ') === true) {
    return { message: `the value of \`${line.key!}\` on line ${line.n} contains \`: \`, which starts another key`, hint: quoteHint(line) };
  }
  return describeIndentation(text, at);
}

const propsOnListLine: Plain = {
  message: 'an `&anchor` or `!tag` of a list stands on the line of its first `- `',
  hint: "end the line after the anchor or tag, and put the list's items on the lines below it, indented",
};

/** MISSING_CHAR messages whose words do not depend on the place, by how yaml's message starts. */
const missingChar: ReadonlyArray<readonly [string, Plain]> = [
  ['Missing , ', { message: 'two items inside brackets are not separated by a comma', hint: 'separate the items with `,`: `[a, b]`, `{a: 1, b: 2}`' }],
  ['Missing space after :', { message: 'a `:` inside brackets has no space after it', hint: 'put a space after the colon: `key: value`' }],
  ['Comments must be separated', { message: 'a `#` right after a value is read as part of it, not as a comment', hint: 'put a space before `#` to start a comment' }],
  ['Tags and anchors must be separated', { message: 'an `&anchor` or `!tag` is glued to the value after it', hint: 'put a space between the anchor or tag and the value' }],
  ['Missing newline after block sequence props', propsOnListLine],
  ['Sequence item without - indicator', { message: 'a list item has no `- ` in front of it', hint: 'start every item of a block list with `- `' }],
  ['Missing directives-end', { message: 'a directive (`%YAML`, `%TAG`) is not followed by a `---` line before the document', hint: 'put a line `---` after the directives' }],
  ['Block collection cannot start on same line', { message: 'a block list or mapping starts on the `---` line', hint: 'start it on the line after `---`' }],
  [
    'Block scalars with more-indented leading empty lines',
    { message: 'a `|` or `>` block starts with blank lines indented more than its first line of text', hint: 'remove the spaces from those blank lines, or give the indentation after the indicator: `|2`' },
  ],
];

/** MISSING_CHAR: yaml names the character; we name the mistake. */
function missingCharWords(m: string, text: string, at: number, line: Line): Plain | undefined {
  if (m.startsWith('Missing closing')) return { message: `a string opened with ${m.includes('"') ? '`"`' : "`'`"} is never closed`, hint: 'add the closing quote at the end of the value' };
  if (m === 'Implicit map keys need to be followed by map values') {
    if (/^(?:[&!]\S*\s+)*-\s/.test(line.afterColon ?? '')) return listOnKeyLine(line);
    return line.item ? describeIndentation(text, at) : { message: `\`${line.text.trim()}\` on line ${line.n} is neither \`key: value\` nor a list item`, hint: 'add `: ` after the key, or `- ` before a list item; check the indentation against the lines above' };
  }
  // `- &x - a`: yaml reports the anchor, then the item after it as one without a `- ` (the
  // anchor or tag follows the `- ` or `: ` of its own item or key).
  if (m === 'Sequence item without - indicator' && /\s[&!]\S*\s+-\s/.test(line.text)) return propsOnListLine;
  return missingChar.find(([start]) => m.startsWith(start))?.[1];
}

/** BAD_DQ_ESCAPE: yaml points at the backslash. `\x`, `\u` and `\U` are escapes, but take 2, 4 or 8 hexadecimal digits. */
function escapeWords(text: string, at: number): Plain {
  const letter = text.charAt(at + 1);
  const digits = letter === 'x' ? 2 : letter === 'u' ? 4 : letter === 'U' ? 8 : 0;
  if (digits === 0) {
    return { message: `\`${text.slice(at, at + 2)}\` is not an escape sequence inside double quotes`, hint: "write `\\\\` for a backslash, or use single quotes ('...') where a backslash is just a character" };
  }
  const written = /[^"\n]*/.exec(text.slice(at, at + 2 + digits))![0];
  return {
    message: `\`${written}\` is not a valid escape sequence: \`\\${letter}\` takes ${digits} hexadecimal digits`,
    hint: `write ${digits} hexadecimal digits after \`\\${letter}\`; for a backslash itself, write \`\\\\\` or use single quotes ('...')`,
  };
}

/**
 * BAD_ALIAS: an alias or anchor with no name, or one whose name ends in `:` (a warning in yaml). An
 * alias to no anchor is not this: aliases.ts reports it.
 */
function aliasWords(m: string, text: string, end: number): Plain {
  const alias = m.startsWith('Alias');
  const sigil = alias ? '*' : '&';
  if (m.endsWith('cannot be an empty string')) {
    return {
      message: `${alias ? 'an alias' : 'an anchor'} \`${sigil}\` has no name`,
      hint: alias ? 'write the name of an anchor defined above it (`*name`), or quote the value if the `*` is text' : 'write a name right after it (`&name`), or quote the value if the `&` is text',
    };
  }
  // yaml points at the colon; the name is the run of characters that ends there (no space or flow
  // indicator). Walked back by hand: a regex anchored at the end of the text would retry from every
  // `*` or `&` before it, quadratic in a line of them (17 s for 200,000).
  let start = end - 1;
  while (start > 0 && !/[\s,[\]{}]/.test(text.charAt(start - 1))) start--;
  const name = text.slice(start, end);
  return {
    message: `${alias ? 'the alias' : 'the anchor'} \`${name}\` ends in \`:\`, which is read as part of its name`,
    hint: alias ? `if the alias is a key, put a space before its colon: \`${name.slice(0, -1)} : value\`` : `leave the \`:\` out, and put the anchor after the key's colon: \`key: ${name.slice(0, -1)} value\``,
  };
}

/** UNEXPECTED_TOKEN: a character or token that cannot stand where it is. */
function unexpectedWords(m: string, text: string, at: number, line: Line): Plain {
  if (m.startsWith('Block scalar header includes extra characters')) return { message: 'text follows the `|` or `>` of a block scalar on its line', hint: 'start the text on the next line, indented; only a comment may follow `|` or `>`' };
  if (m === 'Unexpected block-seq-ind on same line with key') {
    // `a: 1` then `- b` at its column (yaml points at the line's first `- `): not a list on the
    // line of its key, but an item among keys.
    return at === text.lastIndexOf('\n', at - 1) + 1 + line.indent ? describeIndentation(text, at) : listOnKeyLine(line);
  }
  return { message: `unexpected ${tokenAt(text, at)} on line ${line.n}`, hint: 'look for an unmatched bracket or quote, or a stray character, on this line or the one before' };
}

/** yaml's findings past this many in one document are counted, not put in words (`yamlDiagnostics`). */
const WORDED = 200;

/**
 * yaml's errors and warnings as located diagnostics: the first `WORDED` in our words; the rest
 * (a hostile text gives tens of thousands: 20,000 `*a:` lines, 200,000 `\u` in one string) with
 * yaml's message only. Putting a finding in words reads its line, which costs the text's length:
 * every one in words made such a text take minutes. Only the first hundred are shown anyway
 * (`capYamlFindings`), the rest counted.
 */
export function yamlDiagnostics(errors: readonly YAMLError[], source: SourceText, file: string): Diagnostic[] {
  return errors.map((e, i) => yamlDiagnostic(e, source, file, i < WORDED));
}

/**
 * One of yaml's errors or warnings as a located diagnostic, in our words unless `inWords` is
 * false (then yaml's message, and yaml's code after it). yaml's warnings are findings too:
 * an unknown tag (`!!js/function`) is only a warning there, but nothing here loads code, so a tag
 * we do not know is an error (runtime-facts §1.2).
 */
export function yamlDiagnostic(error: YAMLError, source: SourceText, file: string, inWords = true): Diagnostic {
  const known = mapped[error.code];
  const code: Code = known?.code ?? 'yaml/syntax';
  const severity = known !== undefined ? codeInfo(code).severity : error.name === 'YAMLWarning' ? 'warning' : 'error';
  if (!inWords) return { code, severity, message: `${excerpt(error.message, 300)} (yaml ${error.code})`, file, range: source.range(error.pos[0], error.pos[1]) };
  // Both yaml's messages and our plain words may quote the source (a tag, a key, a line): cap them.
  const plain: Plain | undefined = known === undefined ? plainWords(error, source.text) : known.words?.(error, source.text);
  // yaml's messages are one line each: the loader composes with `prettyErrors: false` (parse.ts).
  const message = excerpt(plain?.message ?? known?.message ?? error.message, 300);
  const diagnostic: Diagnostic = {
    code,
    severity,
    message: known === undefined ? `${message} (yaml ${error.code})` : message,
    file,
    range: plain?.at !== undefined ? source.range(plain.at, plain.at + 1) : source.range(error.pos[0], error.pos[1]),
  };
  const hint = plain?.hint ?? known?.hint;
  if (hint !== undefined) diagnostic.hint = hint;
  if (plain?.line !== undefined) mistakeAbout(diagnostic, plain.line);
  return diagnostic;
}
