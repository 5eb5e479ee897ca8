import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadEnvFile } from '../manifest/env-file.js';
import type { LoadOptions, ManifestDocument } from '../manifest/types.js';
import { validatePaths } from '../validate/run.js';

export interface ValidatedManifests {
  documents: ManifestDocument[];
  /** Env-file, load, YAML, interpolation, schema and rule findings, sorted. */
  diagnostics: Diagnostic[];
  files: string[];
  /** Source text per file for code frames, literal secrets masked. */
  sources: Map<string, string>;
  /** Literal secrets found in manifests, for the caller's redactor. */
  secrets: string[];
  /** True when any finding is an error: plan and apply stop before any request. */
  blocked: boolean;
}

export interface InputOptions extends LoadOptions {
  /** A dotenv file whose variables fill `${VAR}` under the environment's (`--env-file`). */
  envFile?: string;
}

/**
 * Loads manifests and validates them exactly as `validate` does (the same findings, the same
 * secret masking): the common first step of plan, apply and diff.
 */
export async function loadAndValidate(paths: readonly string[], options: InputOptions): Promise<ValidatedManifests> {
  const { envFile, ...load } = options;
  const found: Diagnostic[] = [];
  if (envFile !== undefined) {
    const loadedEnv = await loadEnvFile(envFile, { cwd: options.cwd, base: options.env });
    load.env = loadedEnv.env;
    found.push(...loadedEnv.diagnostics);
  }
  const run = await validatePaths(paths, load);
  const diagnostics = sortDiagnostics([...found, ...run.report.diagnostics]);
  return {
    documents: run.documents,
    diagnostics,
    files: run.report.files,
    sources: run.sources,
    secrets: run.secrets,
    blocked: diagnostics.some((d) => d.severity === 'error'),
  };
}
