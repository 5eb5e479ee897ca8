import { Lexer } from 'yaml';

/** A YAML comment as yaml's own parser found it: `text` is everything after the `#`. */
export interface Comment {
  /** Offset of the `#`. */
  offset: number;
  /** Offset just past the comment's last character. */
  end: number;
  text: string;
}

/** Lexemes of yaml's lexer that mark a state and stand for no source text (see yaml's `Parser.next`). */
const DOCUMENT = '\x02';
const FLOW_END = '\x18';
const SCALAR = '\x1f';

/**
 * Every comment of a YAML text, in source order, as yaml's own lexer reads them: a `#` inside a
 * quoted string, a block scalar or a plain value (`a#b`) is part of that value, never a comment,
 * exactly as every YAML parser reads it. Offsets are counted as yaml's parser counts them (the
 * lexer's control lexemes stand for no source text; the lexeme after SCALAR is a scalar's text).
 * Only texts that the loader accepted reach here (its size and token limits have run). With
 * `until`, reading stops at the first comment that starts after that offset.
 */
export function readComments(text: string, until: number = text.length): Comment[] {
  const out: Comment[] = [];
  let offset = 0;
  let atScalar = false;
  for (const lexeme of new Lexer().lex(text)) {
    // Comments past `until` are not wanted: the rest of the text need not be read.
    if (offset > until) break;
    if (atScalar) {
      atScalar = false;
      offset += lexeme.length;
      continue;
    }
    if (lexeme === SCALAR) {
      atScalar = true;
      continue;
    }
    if (lexeme === DOCUMENT || lexeme === FLOW_END) continue;
    if (lexeme.charCodeAt(0) === 35 /* # */) out.push({ offset, end: offset + lexeme.length, text: lexeme.slice(1) });
    offset += lexeme.length;
  }
  return out;
}
