/** Quoting for generated shell scripts: every word the tree supplies passes through here. */

/** A single-quoted word for bash, zsh and fish (`'` closes, escapes, reopens). */
export function singleQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Fish single quotes escape `'` and `\` with a backslash instead. */
export function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The words as one single-quoted, space-separated list. */
export function wordList(words: readonly string[]): string {
  return singleQuote(words.join(' '));
}

/** A shell function name made from the program's: what is not a letter, digit or `_` becomes `_`. */
export function identifier(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}
