import { sortDiagnostics, tally, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { UnsetVariables } from '../manifest/types.js';
import { envFilesOf, projectRunOptions } from '../project/run-options.js';
import type { ProjectConfig } from '../project/types.js';
import { validatePaths, type ValidateRun } from '../validate/run.js';

/**
 * A validate run's inputs beside its paths: the project, and the run's own choices (`validate`'s
 * flags, or an editor's settings in `sessionctl lsp`). Absent choices fall back to the project's.
 */
export interface ValidateRunOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The loaded `sessionctl.yaml` (or the empty project), and its warnings, reported with the run. */
  project: { config: ProjectConfig; warnings: readonly Diagnostic[] };
  /** `--env-file`: replaces the project's `env_files`. */
  envFile?: string;
  /** `--catalog`, absolute: replaces the project's `catalog`. */
  catalog?: string;
  /** `--sensitive` variables, joined with the project's `sensitive:` list. */
  sensitive?: readonly string[];
  /** `--unset-variables`; absent: the project's `unset_variables`, else `error`. */
  unsetVariables?: UnsetVariables;
  maxFileBytes?: number;
  jobs?: number;
  /** `false`: no fast path (`--no-fast-path`). */
  fastPath?: boolean;
  readStdin?: () => Promise<Buffer>;
  /** Unsaved texts by absolute path, checked instead of the files (an editor's open buffers). */
  texts?: ReadonlyMap<string, string>;
}

/**
 * `validate` over `paths` with a project's configuration: what the command runs and what the
 * language server runs for the buffers it has open, so that an editor shows exactly the findings
 * `validate` reports. The project's warnings join the report.
 */
export async function runValidate(paths: readonly string[], options: ValidateRunOptions): Promise<ValidateRun> {
  const { config, warnings } = options.project;
  const catalog = options.catalog ?? config.catalog;
  const envFiles = envFilesOf(options.envFile, config, options.cwd);
  const run = await validatePaths(paths, {
    cwd: options.cwd,
    env: options.env,
    ...(envFiles !== undefined ? { envFiles } : {}),
    ...(options.readStdin !== undefined ? { readStdin: options.readStdin } : {}),
    ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
    ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
    ...(options.fastPath === false ? { fastPath: false } : {}),
    project: projectRunOptions(config, catalog !== undefined ? { catalog } : {}),
    sensitive: [...new Set([...config.sensitive, ...(options.sensitive ?? [])])],
    ...((options.unsetVariables ?? config.unsetVariables) === 'placeholder' ? { unsetVariables: 'placeholder' as const } : {}),
    ...(options.texts !== undefined ? { texts: options.texts } : {}),
  });
  if (warnings.length > 0) {
    const report = run.report;
    report.diagnostics = sortDiagnostics([...warnings, ...report.diagnostics]);
    report.summary = { ...report.summary, ...tally(report.diagnostics) };
  }
  return run;
}
