import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

export const SCHEMA_FILE = join('schemas', 'session-manifest.schema.json');
/** The schema as the package publishes it: `files` ships `schemas/`, `exports` names it `sessionctl/schema.json`. */
const PUBLISHED_SCHEMA = join('node_modules', 'sessionctl', SCHEMA_FILE);
/** A folder holding one of these is a project's root; the search for its schema stops there. */
const PROJECT_MARKERS = ['.git', 'package.json', 'sessionctl.yaml'];

/** The folders from `dir` up to its project's root (the first with a marker), or up to `fallbackRoot`. */
function foldersUp(dir: string, fallbackRoot: string): { folders: string[]; root: string } {
  const folders: string[] = [];
  for (let here = dir; ; here = dirname(here)) {
    folders.push(here);
    if (PROJECT_MARKERS.some((m) => existsSync(join(here, m)))) return { folders, root: here };
    if (dirname(here) === here) return { folders, root: fallbackRoot };
  }
}

/**
 * Where the modeline points, as seen from the new manifest's folder: the project's own copy of the
 * schema (`schemas/session-manifest.schema.json` in the folder or any folder above it, up to the
 * project's root) when there is one, else the copy the package publishes in the project's
 * `node_modules` (present once sessionctl is a dev dependency). Never the sessionctl that runs:
 * a global install's path means nothing on a colleague's machine or in CI.
 */
export function schemaReference(targetDir: string, cwd: string): { ref: string; present: boolean } {
  const { folders, root } = foldersUp(targetDir, cwd);
  const relativeRef = (file: string): string => {
    const rel = relative(targetDir, file).split(sep).join('/');
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  for (const candidate of [SCHEMA_FILE, PUBLISHED_SCHEMA]) {
    for (const folder of folders) {
      if (existsSync(join(folder, candidate))) return { ref: relativeRef(join(folder, candidate)), present: true };
    }
  }
  return { ref: relativeRef(join(root, PUBLISHED_SCHEMA)), present: false };
}

