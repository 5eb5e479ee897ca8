import type { Range } from '../diagnostics/diagnostic.js';
import { readComments } from './comments.js';
import { SourceText } from './source.js';

/** The word that starts a suppression comment; texts without it are not even parsed for comments. */
export const DIRECTIVE_MARKER = 'sessionctl-ignore';

/**
 * A suppression comment: `# sessionctl-ignore CODE[, CODE]: reason` silences findings of those
 * codes that start on the comment's line or the next; `# sessionctl-ignore-file CODE: reason`
 * silences them in the whole file. Plain data: it crosses from worker threads.
 */
export interface SuppressionDirective {
  scope: 'line' | 'file';
  /** Each code as written, with its place in the comment (where "unused" is reported). */
  codes: Array<{ code: string; range: Range }>;
  /** The text after the first `:`, trimmed; absent when there is none or it is empty. */
  reason?: string;
  /** The whole comment, `#` included. */
  range: Range;
}

const HEAD = /^(\s*)sessionctl-ignore(-file)?(?=[\s:,]|$)/;

/**
 * The suppression comments of a YAML text. Comments are read through yaml's own parser
 * (`readComments`), so `# sessionctl-ignore` inside a quoted string or a block scalar is text,
 * never a directive. Texts that do not contain the marker cost one `indexOf`.
 */
export function readDirectives(text: string): SuppressionDirective[] {
  const last = text.lastIndexOf(DIRECTIVE_MARKER);
  if (last === -1) return [];
  const source = new SourceText(text);
  const out: SuppressionDirective[] = [];
  // Comments after the last occurrence of the marker cannot be directives: the lexer stops there.
  for (const comment of readComments(text, last)) {
    const head = HEAD.exec(comment.text);
    if (head === null) continue;
    // Offsets below are into the source: the comment's text starts one past its `#`.
    const base = comment.offset + 1;
    const rest = comment.text.slice(head[0].length);
    const colon = rest.indexOf(':');
    const list = colon === -1 ? rest : rest.slice(0, colon);
    const codes: SuppressionDirective['codes'] = [];
    const listStart = base + head[0].length;
    for (const m of list.matchAll(/[^\s,]+/g)) {
      const start = listStart + (m.index ?? 0);
      codes.push({ code: m[0], range: source.range(start, start + m[0].length) });
    }
    const directive: SuppressionDirective = { scope: head[2] === undefined ? 'line' : 'file', codes, range: source.range(comment.offset, comment.end) };
    const reason = colon === -1 ? '' : rest.slice(colon + 1).trim();
    if (reason !== '') directive.reason = reason;
    out.push(directive);
  }
  return out;
}
