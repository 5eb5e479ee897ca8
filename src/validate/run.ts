import { sortDiagnostics, tally, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadManifests } from '../manifest/load.js';
import type { LoadOptions, ManifestDocument } from '../manifest/types.js';
import type { Report } from '../report/types.js';
import { validateDocuments } from './index.js';
import { maskSecretsInSources, type FoundSecret } from './mask.js';
import { classifySecret } from './rules/literal-api-key.js';
import { valueAt } from './pointer.js';

export interface ValidateRun {
  /** The report of the run (`command: 'validate'`), diagnostics sorted. */
  report: Report;
  /** Source text per file for code frames, with any literal secrets masked. */
  sources: Map<string, string>;
  /** The literal secrets found, so that callers can also redact them from anything else. */
  secrets: string[];
  /** The loaded documents, for the commands that go on to plan, apply or diff them. */
  documents: ManifestDocument[];
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
  const found: FoundSecret[] = [];
  for (const d of diagnostics) {
    if (d.code !== 'rule/literal-api-key' || d.pointer === undefined || d.file === undefined || d.range === undefined) continue;
    const doc = loaded.documents.find((x) => x.file === d.file && rangeWithin(x.locate(''), d.range));
    const value = doc === undefined ? undefined : valueAt(doc.data, d.pointer);
    if (typeof value !== 'string') continue;
    const key = d.pointer.split('/').pop();
    const secret = classifySecret(value, key)?.secret ?? value;
    found.push({ file: d.file, range: d.range, secret });
  }
  const secrets = [...new Set(found.map((f) => f.secret))];
  return { report, sources: maskSecretsInSources(loaded.sources, found), secrets, documents: loaded.documents };
}

function rangeWithin(outer: { start: { line: number }; end: { line: number } }, inner: { start: { line: number } } | undefined): boolean {
  return inner !== undefined && inner.start.line >= outer.start.line && inner.start.line <= outer.end.line;
}

function placeKey(d: Diagnostic): string {
  return `${d.file ?? ''}\0${d.range?.start.line ?? 0}:${d.range?.start.col ?? 0}`;
}
