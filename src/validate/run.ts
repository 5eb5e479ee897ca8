import { sortDiagnostics, tally, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadManifests } from '../manifest/load.js';
import type { LoadOptions } from '../manifest/types.js';
import type { Report } from '../report/types.js';
import { validateDocuments } from './index.js';
import { maskSecretsInSources } from './mask.js';
import { valueAt } from './pointer.js';

export interface ValidateRun {
  /** The report of the run (`command: 'validate'`), diagnostics sorted. */
  report: Report;
  /** Source text per file for code frames, with any literal secrets masked. */
  sources: Map<string, string>;
  /** The literal secrets found, so that callers can also redact them from anything else. */
  secrets: string[];
}

/**
 * Loads the manifests named by `paths` (files, folders, globs, `-`) and validates them: YAML and
 * interpolation findings from the loader, then schema, YAML 1.1 and rule findings.
 */
export async function validatePaths(paths: readonly string[], options: LoadOptions): Promise<ValidateRun> {
  const loaded = await loadManifests(paths, options);
  // A value whose `${VAR}` could not be expanded still holds the reference text; its env/ error
  // says what is wrong, and a schema complaint about the placeholder would only be noise.
  const unexpanded = new Set(loaded.diagnostics.filter((d) => d.code.startsWith('env/')).map(placeKey));
  const checked = validateDocuments(loaded.documents).filter((d) => !unexpanded.has(placeKey(d)));
  const diagnostics = sortDiagnostics([...loaded.diagnostics, ...checked]);
  const report: Report = {
    command: 'validate',
    files: loaded.files,
    diagnostics,
    summary: { ...tally(diagnostics), files: loaded.files.length, manifests: loaded.documents.length },
  };
  const secrets: string[] = [];
  for (const d of diagnostics) {
    if (d.code !== 'rule/literal-api-key' || d.pointer === undefined) continue;
    const doc = loaded.documents.find((x) => x.file === d.file && rangeWithin(x.locate(''), d.range));
    const value = doc === undefined ? undefined : valueAt(doc.data, d.pointer);
    if (typeof value === 'string') secrets.push(value);
  }
  return { report, sources: maskSecretsInSources(loaded.sources, diagnostics), secrets };
}

function rangeWithin(outer: { start: { line: number }; end: { line: number } }, inner: { start: { line: number } } | undefined): boolean {
  return inner !== undefined && inner.start.line >= outer.start.line && inner.start.line <= outer.end.line;
}

function placeKey(d: Diagnostic): string {
  return `${d.file ?? ''}\0${d.range?.start.line ?? 0}:${d.range?.start.col ?? 0}`;
}
