import { isAbsolute, normalize, relative, sep } from 'node:path';

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
