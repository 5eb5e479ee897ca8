import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadManifests } from '../manifest/load.js';
import type { LoadOptions, ManifestDocument } from '../manifest/types.js';
import { runVariables } from '../manifest/variables.js';
import { checkLoaded } from '../validate/check-loaded.js';
import { maskSecretsInSources } from '../validate/mask.js';

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
 * Loads manifests and validates them as `validate` does (the same checks, the same secret
 * masking), keeping every document with its data and positions: the common first step of plan,
 * apply and diff. (`validate` itself checks file by file and keeps only findings; these commands
 * need every document whole.)
 */
export async function loadAndValidate(paths: readonly string[], options: InputOptions): Promise<ValidatedManifests> {
  const { envFile, ...load } = options;
  const variables = await runVariables({ cwd: options.cwd, ...(options.env !== undefined ? { env: options.env } : {}), ...(envFile !== undefined ? { envFile } : {}) });
  const loaded = await loadManifests(paths, { ...load, env: variables.env });
  const checked = checkLoaded(loaded.documents, loaded.diagnostics, { acrossDocuments: true });
  const diagnostics = sortDiagnostics([...variables.diagnostics, ...loaded.diagnostics, ...checked.diagnostics]);
  return {
    documents: loaded.documents,
    diagnostics,
    files: loaded.files,
    sources: maskSecretsInSources(loaded.sources, checked.secrets),
    secrets: [...new Set(checked.secrets.map((s) => s.secret))],
    blocked: diagnostics.some((d) => d.severity === 'error'),
  };
}
