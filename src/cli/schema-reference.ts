import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

export const MANIFEST_SCHEMA = 'session-manifest.schema.json';
export const CONFIG_SCHEMA = 'sessionctl-config.schema.json';
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
 * Where the modeline points, as seen from the new file's folder: the project's own copy of the
 * schema (`schemas/<name>` in the folder or any folder above it, up to the project's root) when
 * there is one, else the copy the package publishes in the project's `node_modules` (`files`
 * ships `schemas/`; present once sessionctl is a dev dependency). Never the sessionctl that runs:
 * a global install's path means nothing on a colleague's machine or in CI.
 */
export function schemaReference(targetDir: string, cwd: string, name: string = MANIFEST_SCHEMA): { ref: string; present: boolean } {
  const own = join('schemas', name);
  const published = join('node_modules', 'sessionctl', own);
  const { folders, root } = foldersUp(targetDir, cwd);
  const relativeRef = (file: string): string => {
    const rel = relative(targetDir, file).split(sep).join('/');
    return rel.startsWith('.') ? rel : `./${rel}`;
  };
  for (const candidate of [own, published]) {
    for (const folder of folders) {
      if (existsSync(join(folder, candidate))) return { ref: relativeRef(join(folder, candidate)), present: true };
    }
  }
  return { ref: relativeRef(join(root, published)), present: false };
}

