import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve, isAbsolute } from 'node:path';

/**
 * The root of the repository the run is in, which GitHub annotations and SARIF paths are relative
 * to: in GitHub Actions the workspace (`GITHUB_WORKSPACE`, where the checks API resolves
 * annotation paths) when the working directory is inside it; else the nearest folder upwards that
 * holds `.git` (a folder, or a worktree's file). Undefined outside any repository.
 */
export function repositoryRoot(cwd: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const workspace = env['GITHUB_WORKSPACE'];
  if (workspace !== undefined && workspace !== '' && isInside(resolve(workspace), cwd)) return resolve(workspace);
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
