import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadEnvFile } from '../manifest/env-file.js';
import { loadManifests } from '../manifest/load.js';
import type { LoadOptions, ManifestDocument } from '../manifest/types.js';
import { validateDocuments } from '../validate/index.js';
import { maskSecretsInSources, type FoundSecret } from '../validate/mask.js';
import { valueAt } from '../validate/pointer.js';
import { classifySecret } from '../validate/rules/literal-api-key.js';

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
 * Loads manifests and validates them as `validate` does (the same findings, the same secret
 * masking), keeping every document with its data and positions: the common first step of plan,
 * apply and diff. (`validate`'s own runner may skip loading clean files with positions; these
 * commands need every document whole, so they compose the same public pieces themselves.)
 */
export async function loadAndValidate(paths: readonly string[], options: InputOptions): Promise<ValidatedManifests> {
  const { envFile, ...load } = options;
  const found: Diagnostic[] = [];
  if (envFile !== undefined) {
    const loadedEnv = await loadEnvFile(envFile, { cwd: options.cwd, base: options.env });
    load.env = loadedEnv.env;
    found.push(...loadedEnv.diagnostics);
  }
  const loaded = await loadManifests(paths, load);
  // A value whose `${VAR}` could not be expanded still holds the reference text; its env/ error
  // says what is wrong, and a schema complaint about the placeholder would only be noise.
  const unexpanded = new Set(loaded.diagnostics.filter((d) => d.code.startsWith('env/')).map(placeKey));
  const checked = validateDocuments(loaded.documents).filter((d) => !unexpanded.has(placeKey(d)));
  const diagnostics = sortDiagnostics([...found, ...loaded.diagnostics, ...checked]);

  const secrets: FoundSecret[] = [];
  for (const d of diagnostics) {
    if (d.code !== 'rule/literal-api-key' || d.pointer === undefined || d.file === undefined || d.range === undefined) continue;
    for (const doc of loaded.documents.filter((x) => x.file === d.file)) {
      const value = valueAt(doc.data, d.pointer);
      if (typeof value !== 'string') continue;
      secrets.push({ file: d.file, range: d.range, secret: classifySecret(value, d.pointer.split('/').pop())?.secret ?? value });
    }
  }
  return {
    documents: loaded.documents,
    diagnostics,
    files: loaded.files,
    sources: maskSecretsInSources(loaded.sources, secrets),
    secrets: [...new Set(secrets.map((s) => s.secret))],
    blocked: diagnostics.some((d) => d.severity === 'error'),
  };
}

function placeKey(d: Diagnostic): string {
  return `${d.file ?? ''}\0${d.range?.start.line ?? 0}:${d.range?.start.col ?? 0}`;
}
