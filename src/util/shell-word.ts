/**
 * A word as a POSIX shell reads it back unchanged: as it is when it holds only safe characters,
 * else in single quotes (a quote inside closed, escaped and reopened). Double quotes would not do:
 * a user id such as `$(rm -rf ~)` would run when the suggested command is pasted.
 */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
