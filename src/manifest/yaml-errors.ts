import { excerpt } from '../diagnostics/excerpt.js';
import type { YAMLError } from 'yaml';
import type { Code } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { describeIndentation, lineAt, type Line } from './yaml-lines.js';
import type { SourceText } from './source.js';

/** yaml's own codes that have a code of ours; every other one is `yaml/syntax`, naming yaml's code. */
const mapped: Partial<Record<YAMLError['code'], { code: Code; message?: string; hint?: string }>> = {
  DUPLICATE_KEY: { code: 'yaml/duplicate-key' },
  TAB_AS_INDENT: { code: 'yaml/tab-indent', hint: 'indent with spaces; YAML forbids tabs in indentation' },
  TAG_RESOLVE_FAILED: { code: 'yaml/unknown-tag', hint: 'remove the tag; manifests use plain YAML values only' },
  NON_STRING_KEY: { code: 'yaml/non-string-key', message: 'a key here is not a plain string (a list, a mapping or nothing is used as a key)', hint: 'keys are plain strings; quote the key or restructure the value' },
  BAD_DIRECTIVE: { code: 'yaml/directive' },
  RESOURCE_EXHAUSTION: { code: 'input/too-deep' },
};

const severities: Record<string, Diagnostic['severity']> = {
  'yaml/duplicate-key': 'error',
  'yaml/tab-indent': 'error',
  'yaml/unknown-tag': 'error',
  'yaml/non-string-key': 'error',
  'yaml/directive': 'warning',
  'input/too-deep': 'error',
};

/** Our words for one of yaml's syntax errors: what is wrong at this place, and what to do. */
interface Plain {
  message: string;
  hint?: string;
}

/** The first character of the error's span, as a message shows it. */
function tokenAt(text: string, offset: number): string {
  const ch = text.charAt(offset);
  if (ch === '') return 'the end of the file';
  return ch === '`' ? 'a backtick' : `\`${ch}\``;
}

/** `put the value in quotes: `key: "value"``, from the line the value is on. */
function quoteHint(line: Line): string {
  return line.key !== undefined ? `put the value in quotes: \`${line.key}: "${line.text.slice(line.text.indexOf(':') + 1).trim()}"\`` : 'put the value in quotes';
}

/**
 * Messages in plain words for the syntax errors a person can cause, with a hint each. Indentation
 * errors name the key the line was read as part of and where it probably belongs (see
 * `describeIndentation`). yaml's own code stays at the end of the message, for searching.
 */
function plainWords(error: YAMLError, text: string): Plain | undefined {
  const at = error.pos[0];
  const line = lineAt(text, at);
  const m = error.message;
  if (line.missingSpace !== undefined && error.code !== 'BAD_INDENT') {
    return { message: `\`${line.missingSpace}\` on line ${line.n} has no space after its \`:\`, so it is read as one plain value, not a key and its value`, hint: `put a space after the colon: \`${line.missingSpace.replace(':', ': ')}\`` };
  }
  if (/^\s*%/.test(line.text) && line.n > 1) {
    return { message: `\`${line.text.trim()}\` on line ${line.n} is a directive after content`, hint: 'directives (`%YAML`, `%TAG`) go at the top of the file, before the `---` of the first document' };
  }
  if (/flow (sequence|mapping|collection)|in flow/i.test(m) && (error.code === 'MULTILINE_IMPLICIT_KEY' || error.code === 'BLOCK_AS_IMPLICIT_KEY')) {
    return { message: 'a key inside brackets runs over more than one line', hint: 'inside `[...]` or `{...}`, separate items with commas and keep each `key: value` on one line' };
  }
  switch (error.code) {
    case 'BAD_INDENT':
    case 'BLOCK_AS_IMPLICIT_KEY':
    case 'MULTILINE_IMPLICIT_KEY': {
      if (/^Flow (sequence|mapping) in block collection/.test(m)) {
        const bracket = /sequence/.test(m) ? ['[', ']'] : ['{', '}'];
        return { message: `a \`${bracket[0]}\` opened above is not closed with \`${bracket[1]}\` before the next key`, hint: `close it with \`${bracket[1]}\` on the same line, or indent its continuation lines more than the key` };
      }
      if (line.key === undefined && line.item === false && /implicit|compact/i.test(m) && !line.text.includes(':')) {
        return { message: `\`${line.text.trim()}\` on line ${line.n} has no \`:\` after it, so it runs into the next line`, hint: `write \`${line.text.trim()}:\` if it is a key` };
      }
      if (error.code === 'BLOCK_AS_IMPLICIT_KEY' && /compact/.test(m) && line.afterColon?.includes(': ') === true) {
        return { message: `the value of \`${line.key!}\` on line ${line.n} contains \`: \`, which starts another key`, hint: quoteHint(line) };
      }
      return describeIndentation(text, at);
    }
    case 'MISSING_CHAR':
      if (/^Missing closing ("|')/.test(m)) return { message: `a string opened with ${m.includes('"') ? '`"`' : "`'`"} is never closed`, hint: 'add the closing quote at the end of the value' };
      if (/^Implicit map keys need to be followed by map values/.test(m)) {
        return line.item ? describeIndentation(text, at) : { message: `\`${line.text.trim()}\` on line ${line.n} is neither \`key: value\` nor a list item`, hint: 'add `: ` after the key, or `- ` before a list item; check the indentation against the lines above' };
      }
      if (/^Missing , (or : )?between/.test(m)) return { message: 'two items inside brackets are not separated by a comma', hint: 'separate the items with `,`: `[a, b]`, `{a: 1, b: 2}`' };
      if (/^Missing space after :/.test(m)) return { message: 'a `:` inside `{...}` has no space after it', hint: 'write `{key: value}` with a space after the colon' };
      if (/^Comments must be separated/.test(m)) return { message: 'a `#` right after a value is read as part of it, not as a comment', hint: 'put a space before `#` to start a comment' };
      if (/^Sequence item without - indicator/.test(m)) return { message: 'a list item has no `- ` in front of it', hint: 'start every item of a block list with `- `' };
      if (/^Tags and anchors must be separated/.test(m)) return { message: 'an `&anchor` or `!tag` is glued to the value after it', hint: 'put a space between the anchor or tag and the value' };
      return undefined;
    case 'BAD_SCALAR_START': {
      const ch = tokenAt(text, at);
      return { message: `a plain value cannot start with ${ch}: YAML reserves it`, hint: quoteHint(line) };
    }
    case 'BAD_DQ_ESCAPE':
      return { message: `\`${text.slice(error.pos[0], Math.max(error.pos[1], error.pos[0] + 2))}\` is not an escape sequence inside double quotes`, hint: "write `\\\\` for a backslash, or use single quotes ('...') where a backslash is just a character" };
    case 'BAD_ALIAS':
      return { message: `\`${text.slice(error.pos[0], error.pos[1]).trim() || '*'}\` refers to an anchor that is not defined before it in this document`, hint: 'define the anchor (`&name`) earlier in the same document, or quote the value if the `*` is literal text' };
    case 'ALIAS_PROPS':
      return { message: 'an alias (`*name`) cannot have an anchor or tag of its own', hint: 'remove the `&anchor` or `!tag` in front of the alias' };
    case 'MULTIPLE_ANCHORS':
      return { message: 'a value has two anchors (`&a &b`); it can have one', hint: 'keep one `&anchor`' };
    case 'MULTIPLE_TAGS':
      return { message: 'a value has two tags; it can have one', hint: 'remove the extra `!tag`' };
    case 'BAD_PROP_ORDER':
      return { message: 'an anchor or tag stands before the `?` or `:` it should follow', hint: 'write the anchor or tag after the indicator: `key: &anchor value`' };
    case 'BLOCK_IN_FLOW':
      return { message: 'a block list item (`- `) or block mapping is written inside brackets', hint: 'inside `[...]` or `{...}`, separate items with commas: `[a, b]`; or drop the brackets and write one `- item` per line' };
    case 'KEY_OVER_1024_CHARS':
      return { message: 'a key is longer than 1,024 characters, or its line is missing the `: `', hint: 'add `: ` after the key, or shorten it' };
    case 'UNEXPECTED_TOKEN': {
      if (/^Block scalar header includes extra characters/.test(m)) return { message: 'text follows the `|` or `>` of a block scalar on its line', hint: 'start the text on the next line, indented; only a comment may follow `|` or `>`' };
      return { message: `unexpected ${tokenAt(text, at)} on line ${line.n}`, hint: 'look for an unmatched bracket or quote, or a stray character, on this line or the one before' };
    }
    case 'BAD_COLLECTION_TYPE':
      return { message: 'a tag names another kind of collection than the value is', hint: 'remove the tag; manifests use plain YAML values only' };
    default:
      return undefined;
  }
}

/**
 * One of yaml's errors or warnings as a located diagnostic. yaml's warnings are findings too:
 * an unknown tag (`!!js/function`) is only a warning there, but nothing here loads code, so a tag
 * we do not know is an error (runtime-facts §1.2).
 */
export function yamlDiagnostic(error: YAMLError, source: SourceText, file: string): Diagnostic {
  const known = mapped[error.code];
  const code: Code = known?.code ?? 'yaml/syntax';
  const severity = known !== undefined ? (severities[code] ?? 'error') : error.name === 'YAMLWarning' ? 'warning' : 'error';
  // Both yaml's messages and our plain words may quote the source (a tag, a key, a line): cap them.
  const plain = known === undefined ? plainWords(error, source.text) : undefined;
  const message = excerpt(plain?.message ?? known?.message ?? firstLine(error.message), 300);
  const diagnostic: Diagnostic = {
    code,
    severity,
    message: known === undefined ? `${message} (yaml ${error.code})` : message,
    file,
    range: source.range(error.pos[0], error.pos[1]),
  };
  const hint = plain?.hint ?? known?.hint;
  if (hint !== undefined) diagnostic.hint = hint;
  return diagnostic;
}

/** yaml's message without the code frame that `prettyErrors` would append (we render our own). */
function firstLine(message: string): string {
  const line = message.split('\n', 1)[0] ?? message;
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

/**
 * One mistake, one finding. yaml often reports one indentation mistake two or three times (a
 * `BLOCK_AS_IMPLICIT_KEY` and a `MULTILINE_IMPLICIT_KEY` at the same place, a `MISSING_CHAR`
 * beside them), which our words explain alike: of the syntax findings that start on one line
 * with the same explanation and hint, the one that covers most of the source is kept. A key that
 * is "not a plain string" on a line with a syntax finding is that mistake read further (a
 * misplaced `- item` taken as a key), and goes too.
 */
export function oneFindingPerMistake(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const syntaxLines = new Set(diagnostics.filter((d) => d.code === 'yaml/syntax').map((d) => d.range?.start.line));
  const kept = new Map<string, Diagnostic>();
  const out: Diagnostic[] = [];
  for (const d of diagnostics) {
    const line = d.range?.start.line;
    if (d.code === 'yaml/non-string-key' && syntaxLines.has(line)) continue;
    if (d.code !== 'yaml/syntax' || d.range === undefined) {
      out.push(d);
      continue;
    }
    const key = `${line}\0${d.message.replace(/ \(yaml [A-Z0-9_]+\)$/, '')}\0${d.hint ?? ''}`;
    const first = kept.get(key);
    if (first === undefined) {
      kept.set(key, d);
      out.push(d);
    } else if (widerOrEarlier(d, first)) {
      out[out.indexOf(first)] = d;
      kept.set(key, d);
    }
  }
  return out;
}

/** Whether `a` covers more of the source than `b` (more lines, else more columns), or as much and starts first. */
function widerOrEarlier(a: Diagnostic, b: Diagnostic): boolean {
  const [ar, br] = [a.range!, b.range!];
  const lines = ar.end.line - ar.start.line - (br.end.line - br.start.line);
  if (lines !== 0) return lines > 0;
  const cols = ar.end.col - ar.start.col - (br.end.col - br.start.col);
  if (cols !== 0) return cols > 0;
  return ar.start.line < br.start.line || (ar.start.line === br.start.line && ar.start.col < br.start.col);
}
