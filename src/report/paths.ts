import { isAbsolute, join, normalize, relative, sep } from 'node:path';

/** The name the loader gives standard input; shown as is. */
export const STDIN_NAME = '<stdin>';

/**
 * The one place where a file name becomes what a report shows: relative to `cwd`, with forward
 * slashes on every platform, so that reports are the same on Windows and in golden files.
 * `<stdin>` and other names in angle brackets stay as they are. Relative input is only
 * normalised: resolving it would read the process's own cwd, and reporters are pure.
 */
export function displayPath(file: string, cwd: string): string {
  if (file.startsWith('<') && file.endsWith('>')) return file;
  const rel = isAbsolute(file) ? relative(cwd, file) : normalize(file);
  const shown = rel === '' ? '.' : rel;
  return sep === '/' ? shown : shown.split(sep).join('/');
}

/**
 * A file as the repository names it, for what CI attaches to the repository's files (GitHub
 * annotations, SARIF): relative to `root` (the repository's root) whatever the working directory,
 * a relative input taken from `cwd`. Without a root, as `displayPath` shows it.
 */
export function repositoryPath(file: string, ctx: { cwd: string; root?: string | undefined }): string {
  if (ctx.root === undefined || (file.startsWith('<') && file.endsWith('>'))) return displayPath(file, ctx.cwd);
  return displayPath(isAbsolute(file) ? file : join(ctx.cwd, file), ctx.root);
}
