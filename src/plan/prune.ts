import { isAbsolute, relative, resolve, sep } from 'node:path';
import { hasGlobMagic, matchGlob, splitGlob } from '../manifest/glob.js';
import type { ManifestDocument } from '../manifest/types.js';
import { hasSession, type StateEntry } from '../state/entry.js';

/**
 * The recorded sessions whose manifest is gone from the paths of this run: the entry was applied
 * from a file inside those paths (the same file, a file below a folder, a file a glob matches), and
 * no manifest of the run has its name any more. Entries of files outside the paths, of manifests
 * that are still here for other users, and entries that do not say which file they came from are
 * never pruned: a run over `teams/a.yaml` must not delete what `teams/b.yaml` declares.
 */
export function prunable(entries: readonly StateEntry[], documents: readonly ManifestDocument[], consumed: ReadonlySet<StateEntry>, scope: PruneScope): StateEntry[] {
  const names = new Set(documents.map((d) => d.name));
  return entries.filter((e) => hasSession(e) && !consumed.has(e) && !names.has(e.name) && e.file !== undefined && inPruneScope(resolve(scope.cwd, e.file), scope));
}

/** The paths of a run, as `--prune` scopes by them. */
export interface PruneScope {
  /** Files, folders or globs, absolute or relative to `cwd`. */
  roots: readonly string[];
  cwd: string;
  /**
   * Whether a path exists as written: the loader reads such a root as that file or folder, glob
   * characters and all (`m/[ab].yaml`), so it must not be matched as a glob here either.
   */
  literal?: (absolutePath: string) => boolean;
  /**
   * Files the project's `ignore` covers: no command looks at them, so their sessions are never
   * pruned (a file moved under `drafts/` keeps its session until it is deleted or destroyed).
   */
  ignored?: (absolutePath: string) => boolean;
}

/** Whether a manifest file (absolute) lies inside a run's paths, so that `--prune` may delete what it made. */
export function inPruneScope(file: string, { roots, cwd, literal, ignored }: PruneScope): boolean {
  if (ignored?.(file) === true) return false;
  return roots.some((root) => {
    const abs = isAbsolute(root) ? root : resolve(cwd, root);
    if (hasGlobMagic(abs) && literal?.(abs) !== true) {
      const { base, rest } = splitGlob(abs.split(sep).join('/'));
      const rel = relative(base, file).split(sep).join('/');
      return !rel.startsWith('..') && matchGlob(rest, rel);
    }
    return file === abs || file.startsWith(abs.endsWith(sep) ? abs : abs + sep);
  });
}
