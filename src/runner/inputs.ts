import type { Diagnostic, SuppressedDiagnostic } from '../diagnostics/diagnostic.js';
import type { PolicyRule } from '../diagnostics/report-base.js';
import type { ManifestDocument } from '../manifest/types.js';
import { checkInMemory, policyRulesOf, type InMemoryOptions } from '../validate/in-memory.js';
import { maskSecretsInSources } from '../validate/mask.js';

export interface ValidatedManifests {
  documents: ManifestDocument[];
  /** Env-file, load, YAML, interpolation, schema, rule, catalogue and policy findings, at the project's severities, sorted. */
  diagnostics: Diagnostic[];
  /** The findings that suppression comments silenced. */
  suppressed: SuppressedDiagnostic[];
  /** The project's policies, for the report's rules. */
  policies: PolicyRule[];
  files: string[];
  /** Source text per file for code frames, literal secrets masked. */
  sources: Map<string, string>;
  /** Literal secrets found in manifests, for the caller's redactor. */
  secrets: string[];
  /** True when any finding is an error: plan and apply stop before any request. */
  blocked: boolean;
}

export type InputOptions = InMemoryOptions;

/**
 * Loads manifests and validates them as `validate` does (the same checks, the project's controls,
 * the same secret masking), keeping every document with its data and positions: the common first
 * step of plan, apply and diff. (`validate` itself checks file by file and keeps only findings;
 * these commands need every document whole.)
 */
export async function loadAndValidate(paths: readonly string[], options: InputOptions): Promise<ValidatedManifests> {
  const checked = await checkInMemory(paths, options);
  return {
    documents: checked.documents,
    diagnostics: checked.diagnostics,
    suppressed: checked.suppressed,
    policies: policyRulesOf(options.project),
    files: checked.files,
    sources: maskSecretsInSources(checked.sources, checked.secrets),
    secrets: [...new Set(checked.secrets.map((s) => s.secret))],
    blocked: checked.diagnostics.some((d) => d.severity === 'error'),
  };
}
