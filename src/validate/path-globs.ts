import { isAbsolute, relative, sep } from 'node:path';
import { compileGlob } from '../manifest/glob.js';

/**
 * The one adapter between project settings that name files by glob (`ignore`, `overrides[].files`,
 * `policies[].files`) and the glob matcher of `manifest/glob.ts`. Globs are relative to one folder
 * (the folder of `sessionctl.yaml`), as eslint's are to its config file:
 *
 * - `teams/finance/**` matches everything below `teams/finance`;
 * - a plain folder name (`drafts`, `drafts/`) matches the files below it as well;
 * - `*` stays within one path segment, `**` crosses segments; a leading `./` is dropped.
 *
 * The project's loader has refused globs that do not compile (`globProblem`), so none throws here.
 */
export type PathMatcher = (relativePath: string) => boolean;

export function pathMatcher(globs: readonly string[]): PathMatcher {
  const patterns = globs.flatMap((glob) => {
    const g = glob.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
    return g === '' || g === '.' ? [compileGlob('**')] : [compileGlob(g), compileGlob(`${g}/**`)];
  });
  return (path) => patterns.some((glob) => glob.match(path));
}

/**
 * `file` relative to `dir` with forward slashes, or undefined when it is not below `dir` (or is
 * standard input): such files match no glob of the project.
 */
export function relativePath(dir: string, file: string): string | undefined {
  if (!isAbsolute(file)) return undefined;
  // The common case without path.relative (which normalises both sides, per file): a file below dir.
  const prefix = dir.endsWith(sep) ? dir : dir + sep;
  if (file.startsWith(prefix) && !file.includes(`${sep}..${sep}`) && !file.includes(`${sep}.${sep}`)) {
    const rel = file.slice(prefix.length);
    return sep === '/' ? rel : rel.split(sep).join('/');
  }
  const rel = relative(dir, file);
  if (rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return sep === '/' ? rel : rel.split(sep).join('/');
}
