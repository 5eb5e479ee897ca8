import { resolve } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { loadProjectConfig } from '../project/load.js';
import { runValidate, type ValidateRunOptions } from '../runner/run-validate.js';
import { groupOf, type RunGroup } from './projects.js';
import type { Settings } from './settings.js';

/** A file's findings, and the folder the run had as its working directory (findings' relative paths are against it). */
export interface FileFindings {
  diagnostics: Diagnostic[];
  cwd: string;
}

export interface CheckContext {
  /** The workspace folders, absolute. */
  folders: readonly string[];
  /** Variables for `${VAR}`: the environment the server was started with. */
  env: Readonly<Record<string, string | undefined>>;
  settings: Settings;
}

/**
 * `validate`'s findings for each open file (`open`), unsaved text included (`texts`, by absolute path):
 * one run per group of files (`groupOf`) over the paths that `validate` with no arguments would
 * check there (the project's `paths`, else the folder), so that a name used twice is found across
 * the workspace and not only among open files. An open file those paths leave out is checked
 * alone, as `validate FILE` would. A file absent from the result keeps what it showed: its
 * project file has errors, and `validate` would then report nothing but those.
 */
export async function checkOpenFiles(open: ReadonlySet<string>, texts: ReadonlyMap<string, string>, context: CheckContext): Promise<Map<string, FileFindings>> {
  const groups = new Map<string, { group: RunGroup; files: string[] }>();
  for (const file of open) {
    const group = groupOf(file, context.folders);
    const entry = groups.get(group.key) ?? { group, files: [] };
    entry.files.push(file);
    groups.set(group.key, entry);
  }
  const out = new Map<string, FileFindings>();
  for (const { group, files } of groups.values()) await checkGroup(group, files, texts, context, out);
  return out;
}

async function checkGroup(group: RunGroup, files: readonly string[], texts: ReadonlyMap<string, string>, context: CheckContext, out: Map<string, FileFindings>): Promise<void> {
  const cwd = group.root;
  const loaded = await loadProjectConfig({ cwd, env: context.env, file: group.projectFile ?? false, texts });
  if (loaded.config === undefined) {
    if (group.projectFile !== undefined && files.includes(group.projectFile)) out.set(group.projectFile, { diagnostics: loaded.diagnostics, cwd });
    return;
  }
  const options: ValidateRunOptions = {
    cwd,
    env: context.env,
    project: { config: loaded.config, warnings: loaded.diagnostics },
    // The editor's default is a placeholder, unless the project (or the editor's setting) says error.
    unsetVariables: loaded.config.unsetVariables === 'error' ? 'error' : context.settings.unsetVariables,
    texts,
    // Worker threads pay off from thousands of files; an editor's run is one thread.
    jobs: 1,
  };
  const run = await runValidate(loaded.config.paths ?? [cwd], options);
  const found = byFile(run.report.diagnostics, cwd);
  const covered = new Set(run.report.files.map((f) => resolve(cwd, f)));
  for (const file of files) {
    if (file === group.projectFile || covered.has(file)) {
      out.set(file, { diagnostics: found.get(file) ?? [], cwd });
      continue;
    }
    const alone = await runValidate([file], options);
    out.set(file, { diagnostics: byFile(alone.report.diagnostics, cwd).get(file) ?? [], cwd });
  }
}

/** Findings by absolute file; those of no file (none a run over files reports) are left out. */
function byFile(diagnostics: readonly Diagnostic[], cwd: string): Map<string, Diagnostic[]> {
  const out = new Map<string, Diagnostic[]>();
  for (const d of diagnostics) {
    if (d.file === undefined) continue;
    const file = resolve(cwd, d.file);
    const list = out.get(file) ?? [];
    list.push(d);
    out.set(file, list);
  }
  return out;
}
