import type { Diagnostic, SuppressedDiagnostic } from '../diagnostics/diagnostic.js';
import type { PolicyRule } from '../diagnostics/report-base.js';
import type { ManifestDocument } from '../manifest/types.js';
import { isSensitiveVariable, withSecretInside } from '../manifest/sensitive.js';
import { ValueMasker } from '../util/sensitive.js';
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
  /**
   * The sensitive variables the manifests used (and those declared sensitive), with their values:
   * a saved plan keeps their digests. Their values, and every sensitive value of the documents,
   * are in the run's masker.
   */
  sensitive: Map<string, string>;
  /** Masks every sensitive value of the run (the one given in the options, filled). */
  masker: ValueMasker;
  /** True when any finding is an error: plan and apply stop before any request. */
  blocked: boolean;
}

export interface InputOptions extends InMemoryOptions {
  /**
   * Receives every sensitive value as soon as the manifests are loaded, before any request or
   * output (the CLI registers each with GitHub's `::add-mask::`); the run masks its report with it.
   * Default: a masker of the run's own.
   */
  masker?: ValueMasker;
}

/**
 * Loads manifests and validates them as `validate` does (the same checks, the project's controls,
 * the same secret masking), keeping every document with its data and positions: the common first
 * step of plan, apply and diff. (`validate` itself checks file by file and keeps only findings;
 * these commands need every document whole.)
 */
export async function loadAndValidate(paths: readonly string[], options: InputOptions): Promise<ValidatedManifests> {
  const { masker: given, ...rest } = options;
  const checked = await checkInMemory(paths, rest);
  const sensitive = sensitiveVariables(checked.documents, checked.env, options.sensitive ?? []);
  const masker = given ?? new ValueMasker();
  // The documents' values and the declared ones came with the check; then each variable's own value.
  masker.addAll(checked.sensitive);
  for (const [name, value] of sensitive) masker.addAll(withSecretInside(value, [name]));
  return {
    documents: checked.documents,
    diagnostics: checked.diagnostics,
    suppressed: checked.suppressed,
    policies: policyRulesOf(options.project),
    files: checked.files,
    sources: maskSecretsInSources(checked.sources, checked.secrets),
    secrets: [...new Set(checked.secrets.map((s) => s.secret))],
    sensitive,
    masker,
    blocked: checked.diagnostics.some((d) => d.severity === 'error'),
  };
}

/** The sensitive variables the documents used, and the declared ones that are set, by name. */
export function sensitiveVariables(documents: readonly ManifestDocument[], env: Readonly<Record<string, string | undefined>>, declared: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const doc of documents) for (const s of doc.sensitive?.values() ?? []) for (const p of s.parts) out.set(p.name, p.value);
  const names = new Set(declared);
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value !== '' && isSensitiveVariable(name, value, names)) out.set(name, value);
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : 1)));
}
