import { lstatSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The names a project file may have, in the order they are looked for in each folder. */
export const PROJECT_FILES = ['sessionctl.yaml', 'sessionctl.yml'] as const;

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether the folder has an entry of that name, whatever it is (a dangling link included). */
function hasEntry(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The checkout a folder belongs to: the nearest folder at or above it that holds `.git` (a
 * folder, or a worktree's file). Without one, the folder itself: a run outside any repository
 * (an unpacked archive, a temp folder) owns no more than the folder it runs in, so that a file
 * that happens to lie above it (in a shared /tmp, a home folder) never changes what it does.
 */
export function checkoutRoot(dir: string): string {
  for (let at = dir; ; at = dirname(at)) {
    if (exists(join(at, '.git'))) return at;
    if (dirname(at) === at) return dir;
  }
}

/**
 * The project file that applies in `cwd`: the first `sessionctl.yaml` (or `.yml`) found in `cwd`
 * or a folder above it inside its checkout (`checkoutRoot`: up to the folder holding `.git`, or
 * `cwd` alone outside any repository), so that a file outside the repository never changes what
 * a checkout does. An entry of that name that is no file (a link to nothing, a folder) is
 * returned too, for the loader to refuse: skipping it would run without the project's policies.
 */
export function findProjectFile(cwd: string): string | undefined {
  const root = checkoutRoot(cwd);
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const name of PROJECT_FILES) {
      const candidate = join(dir, name);
      if (hasEntry(candidate)) return candidate;
    }
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/** Why a path is not a file the project can be read from, or undefined when it is a regular file (after links). */
export function notAFile(path: string): string | undefined {
  try {
    const stat = statSync(path);
    if (stat.isFile()) return undefined;
    return stat.isDirectory() ? 'it is a folder' : 'it is not a regular file';
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return 'it is a loop of symbolic links';
    if (code === 'ENOENT' && hasEntry(path)) return 'it is a symbolic link to nothing';
    return code === 'ENOENT' ? 'it does not exist' : `it cannot be read (${code ?? 'error'})`;
  }
}
