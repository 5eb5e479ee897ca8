import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { validateDocument } from './index.js';
import type { FoundSecret } from './mask.js';
import { valueAt } from './pointer.js';
import { classifySecret } from './rules/literal-api-key.js';
import { duplicateName } from './rules/duplicate-name.js';
import { projectDiagnostics, type ProjectChecks } from './project-checks.js';

/** Where a finding is, as a key: `env/` places mask other findings at the same place. */
export function placeKey(d: Diagnostic): string {
  return `${d.file ?? ''}\0${d.range?.start.line ?? 0}:${d.range?.start.col ?? 0}`;
}

/** The places of the loader's `${VAR}` findings. */
export function envPlaces(loaderDiagnostics: readonly Diagnostic[]): Set<string> {
  return new Set(loaderDiagnostics.filter((d) => d.code.startsWith('env/')).map(placeKey));
}

/** The literal secrets behind `rule/literal-api-key` findings of one document, for masking and redaction. */
export function secretsOf(diagnostics: readonly Diagnostic[], doc: ManifestDocument): FoundSecret[] {
  const out: FoundSecret[] = [];
  for (const d of diagnostics) {
    if (d.code !== 'rule/literal-api-key' || d.pointer === undefined || d.file === undefined || d.range === undefined) continue;
    const value = valueAt(doc.data, d.pointer);
    if (typeof value !== 'string') continue;
    const key = d.pointer.split('/').pop();
    out.push({ file: d.file, range: d.range, secret: classifySecret(value, key)?.secret ?? value });
  }
  return out;
}

/**
 * The findings beyond the loader's for documents loaded together: schema, YAML 1.1 and rule
 * findings of each document, with `checks` the catalogue's and the project's policies', and with
 * `acrossDocuments` the rules across them (duplicate names).
 * A value whose `${VAR}` could not be expanded still holds the reference text; its `env/` finding
 * says what is wrong, so other findings at that place would only be noise and are dropped.
 */
export async function checkLoaded(
  documents: readonly ManifestDocument[],
  loaderDiagnostics: readonly Diagnostic[],
  options: { acrossDocuments: boolean; checks?: ProjectChecks },
): Promise<{ diagnostics: Diagnostic[]; secrets: FoundSecret[] }> {
  const masked = envPlaces(loaderDiagnostics);
  const diagnostics: Diagnostic[] = [];
  const secrets: FoundSecret[] = [];
  for (const doc of documents) {
    const own = validateDocument(doc);
    if (options.checks !== undefined) own.push(...(await projectDiagnostics(doc, options.checks)));
    const found = own.filter((d) => !masked.has(placeKey(d)));
    diagnostics.push(...found);
    secrets.push(...secretsOf(found, doc));
  }
  if (options.acrossDocuments) diagnostics.push(...duplicateName.checkAll(documents).filter((d) => !masked.has(placeKey(d))));
  return { diagnostics, secrets };
}
