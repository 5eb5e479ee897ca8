import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadManifests } from '../manifest/load.js';
import type { LoadOptions, ManifestDocument } from '../manifest/types.js';
import { validateDocuments } from '../validate/index.js';

export interface ValidatedManifests {
  documents: ManifestDocument[];
  /** Load, YAML, interpolation, schema and rule findings, sorted. */
  diagnostics: Diagnostic[];
  files: string[];
  sources: Map<string, string>;
  /** True when any finding is an error: plan and apply stop before any request. */
  blocked: boolean;
}

/** Loads manifests and runs every validation on them: the common first step of plan, apply and diff. */
export async function loadAndValidate(paths: readonly string[], options: LoadOptions): Promise<ValidatedManifests> {
  const loaded = await loadManifests(paths, options);
  const diagnostics = sortDiagnostics([...loaded.diagnostics, ...validateDocuments(loaded.documents)]);
  return {
    documents: loaded.documents,
    diagnostics,
    files: loaded.files,
    sources: loaded.sources,
    blocked: diagnostics.some((d) => d.severity === 'error'),
  };
}
