import path from 'node:path';
import { Option } from 'commander';
import { UsageError } from '../diagnostics/errors.js';
import type { Io } from './io.js';

/** `--changed-since REF`, shared by validate, plan, apply and diff. */
export function changedSinceOption(): Option {
  return new Option(
    '--changed-since <ref>',
    'only manifests changed since the merge base with REF (git; committed, staged, modified or untracked), plus manifests that share a name with them',
  );
}

export interface NarrowOptions {
  io: Io;
  /** The run's env files: their variables count for `${VAR}` in `name:` as they do in the run. */
  envFiles?: readonly string[];
}

/**
 * Narrows the command's path arguments to the manifest files changed since `ref` (see
 * `selectChangedManifests`). Without a ref the paths come back unchanged. The result lists
 * absolute files, possibly none; the caller decides what an empty selection means (for
 * validate: nothing to check, exit 0). A line on stderr says what was selected.
 */
export async function narrowToChanged(paths: readonly string[], ref: string | undefined, options: NarrowOptions): Promise<string[]> {
  if (ref === undefined) return [...paths];
  const { io } = options;
  if (paths.includes('-')) throw new UsageError('--changed-since cannot be combined with - (standard input)', 'pass the manifest files or folders instead');
  // Loaded on use: every command registers this option, and start-up should not pay for yaml.
  const [{ execGit, selectChangedManifests }, { loadManifests }, { runVariables }] = await Promise.all([
    import('../git/changed-since.js'),
    import('../manifest/load.js'),
    import('../manifest/variables.js'),
  ]);
  // The env file's findings are the run's to report; here its variables only name manifests.
  const { env } = await runVariables({ cwd: io.cwd, env: io.env, ...(options.envFiles !== undefined ? { envFiles: options.envFiles } : {}) });
  const selection = await selectChangedManifests(ref, {
    cwd: io.cwd,
    git: execGit(io.env),
    load: async () => loadManifests(paths, { cwd: io.cwd, env }),
  });
  const shown = (files: readonly string[]): string => files.map((f) => path.relative(io.cwd, f).split(path.sep).join('/')).join(', ');
  const byName = selection.byName.length > 0 ? ` (${selection.byName.length} sharing a name: ${shown(selection.byName)})` : '';
  io.stderr.write(
    selection.selected.length === 0
      ? `--changed-since ${ref}: no manifest changed since ${selection.base.slice(0, 12)}\n`
      : `--changed-since ${ref}: ${selection.selected.length} manifest file(s) since ${selection.base.slice(0, 12)}${byName}\n`,
  );
  return selection.selected;
}
