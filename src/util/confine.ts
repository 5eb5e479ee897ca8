import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';

/** More links than this on the way to a file is a loop (Linux's own limit, ELOOP). */
const MAX_LINKS = 40;

/** Whether `path` (absolute) is `root` or below it, by name alone. */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Where a path leads once every symbolic link on the way is followed, whether or not the file at
 * its end exists yet: a file about to be written through a link to nothing (`report.txt ->
 * /home/u/.bashrc`) is created where the link points, so that is where it is. Undefined for a
 * loop of links.
 */
export function realTarget(path: string): string | undefined {
  let current = resolve(path);
  const rest: string[] = [];
  for (let links = 0; links <= MAX_LINKS; ) {
    try {
      return join(realpathSync(current), ...rest);
    } catch {
      // Missing, a link to nothing, or not a folder: look at the entry itself.
    }
    let isLink = false;
    try {
      isLink = lstatSync(current).isSymbolicLink();
    } catch {
      // Nothing there: what is created will be created below the nearest folder that exists.
    }
    if (isLink) {
      links += 1;
      current = resolve(dirname(current), readlinkSync(current));
      continue;
    }
    const parent = dirname(current);
    if (parent === current) return join(current, ...rest);
    rest.unshift(basename(current));
    current = parent;
  }
  return undefined;
}

/**
 * Why `path` (relative to `root`, or absolute) is not inside `root`, or undefined when it is: by
 * name (`..`, an absolute path elsewhere), or through a symbolic link on the way, to a file that
 * exists or one that would be created. The one check for everything a committed file names
 * (sessionctl.yaml's report files, state, catalogue, env files, paths; a saved plan's files), so
 * that a pull request cannot make a run read, print or overwrite files outside its checkout.
 */
export function outsideOf(root: string, path: string): string | undefined {
  const absolute = resolve(root, path);
  if (!isWithin(resolve(root), absolute)) return 'it is outside the folder';
  const real = realTarget(absolute);
  if (real === undefined) return 'it is a loop of symbolic links';
  const realRoot = realTarget(root) ?? resolve(root);
  return isWithin(realRoot, real) ? undefined : 'a symbolic link on the way leads out of the folder';
}
