import { Lexer, Parser, type CST } from 'yaml';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { withoutYamlDebug } from './yaml-quiet.js';

/** At most this many of yaml's own findings per file; a binary-ish file can produce thousands. */
export const MAX_YAML_FINDINGS = 100;

/** More documents than this in one file are refused: each costs time, and no team needs so many. */
export const MAX_DOCUMENTS = 1000;

/**
 * More lexical tokens than this are refused. A 30-line manifest has about 150; a file of 1,000
 * such documents about 150,000. yaml parses about 250,000 tokens a second here (runtime-facts
 * §1.4), so a dense 1 MiB file (80,000 keys or 500,000 list items) would take 4 to 8 seconds.
 */
export const MAX_TOKENS = 250_000;

export interface TokenStream {
  tokens: CST.Token[];
  stop?: Omit<Diagnostic, 'file' | 'range'> & { offset: number };
}

/**
 * Runs yaml's lexer and (iterative) CST parser, as `Parser.parse` does, but stops early on
 * inputs that would only cost time: too many tokens or documents, or a stream that is mostly
 * errors (a binary-ish or non-YAML text). Without these stops a 1 MiB file of `---` lines or of
 * garbage takes 10 to 20 seconds to compose.
 */
export function readTokens(text: string, maxDepth: number): TokenStream {
  return withoutYamlDebug(() => readAll(text, maxDepth));
}

function readAll(text: string, maxDepth: number): TokenStream {
  const tokens: CST.Token[] = [];
  const parser = new Parser();
  let lexemes = 0;
  let documents = 0;
  let errors = 0;
  // Flow nesting is counted on the lexemes as well, so that a deep flow collection is reported
  // as too deep even when it is also past the token budget. Brackets inside quoted or plain
  // scalars are part of the scalar's lexeme, never a lexeme of their own.
  let flowDepth = 0;
  const take = (token: CST.Token): TokenStream['stop'] => {
    tokens.push(token);
    if (token.type === 'document' && ++documents > MAX_DOCUMENTS) {
      return { code: 'input/too-large', severity: 'error', message: `the file holds more than ${MAX_DOCUMENTS} YAML documents`, hint: 'split it into several files', offset: token.offset };
    }
    if (token.type === 'error' && ++errors > MAX_YAML_FINDINGS) {
      const first = tokens.find((t) => t.type === 'error') ?? token;
      const detail = first.type === 'error' ? first.message : 'unexpected token';
      return { code: 'yaml/syntax', severity: 'error', message: `the file is not YAML: more than ${MAX_YAML_FINDINGS} syntax errors, the first: ${detail}`, offset: first.offset };
    }
    return undefined;
  };
  for (const lexeme of new Lexer().lex(text)) {
    if (++lexemes > MAX_TOKENS) {
      return {
        tokens,
        stop: {
          code: 'input/too-large',
          severity: 'error',
          message: `the file has more than ${MAX_TOKENS.toLocaleString('en')} YAML tokens; a session manifest has a few hundred`,
          hint: 'split it into several files',
          offset: parser.offset,
        },
      };
    }
    if (lexeme === '[' || lexeme === '{') {
      if (++flowDepth > maxDepth) {
        // The parser's offset counts source characters only (the lexer adds control lexemes).
        return { tokens, stop: { ...tooDeep(maxDepth), offset: parser.offset } };
      }
    } else if ((lexeme === ']' || lexeme === '}') && flowDepth > 0) flowDepth--;
    for (const token of parser.next(lexeme)) {
      const stop = take(token);
      if (stop !== undefined) return { tokens, stop };
    }
  }
  for (const token of parser.end()) {
    const stop = take(token);
    if (stop !== undefined) return { tokens, stop };
  }
  return { tokens };
}

export function tooDeep(limit: number): Omit<Diagnostic, 'file' | 'range'> {
  return {
    code: 'input/too-deep',
    severity: 'error',
    message: `collections are nested more than ${limit} levels deep`,
    hint: 'a session manifest needs only a few levels; this looks like a generated or hostile file',
  };
}
