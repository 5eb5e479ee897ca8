import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The names a project file may have, in the order they are looked for in each folder. */
export const PROJECT_FILES = ['sessionctl.yaml', 'sessionctl.yml'] as const;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * The project file that applies in `cwd`: the first `sessionctl.yaml` (or `.yml`) found in `cwd`
 * or a folder above it. The search stops at the root of the repository (a folder holding `.git`,
 * itself included) or of the file system, so that a file outside the repository never changes
 * what a checkout does.
 */
export function findProjectFile(cwd: string): string | undefined {
  for (let dir = cwd; ; dir = dirname(dir)) {
    for (const name of PROJECT_FILES) {
      const candidate = join(dir, name);
      if (isFile(candidate)) return candidate;
    }
    if (exists(join(dir, '.git')) || dirname(dir) === dir) return undefined;
  }
}
