import { dirname, sep } from 'node:path';
import { findProjectFile } from '../project/find.js';

/**
 * Which run a file belongs to: the project whose `sessionctl.yaml` applies to it (found from the
 * file's folder upwards, as `validate` finds it from its working directory), or without one, the
 * workspace folder that holds it. Every open file of one group is checked by one run of
 * `validate`, so that findings across files (a name used twice) are those of the whole group.
 */
export interface RunGroup {
  /** The group's identity: its project file, or its folder. */
  key: string;
  /** The project file, absolute, when there is one. */
  projectFile?: string;
  /** Where the run happens: the project file's folder, else the workspace folder (else the file's own folder). */
  root: string;
}

/** The group of `file` among the workspace's folders (absolute paths). */
export function groupOf(file: string, folders: readonly string[]): RunGroup {
  const projectFile = findProjectFile(dirname(file));
  if (projectFile !== undefined) return { key: projectFile, projectFile, root: dirname(projectFile) };
  const root = folderOf(file, folders) ?? dirname(file);
  return { key: root, root };
}

/** The innermost workspace folder that holds `file`. */
function folderOf(file: string, folders: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const folder of folders) {
    const inside = file.startsWith(folder.endsWith(sep) ? folder : folder + sep);
    if (inside && (best === undefined || folder.length > best.length)) best = folder;
  }
  return best;
}
