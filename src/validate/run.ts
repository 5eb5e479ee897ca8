import { sortDiagnostics, tally, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadManifests } from '../manifest/load.js';
import type { LoadOptions, LoadResult, ManifestDocument } from '../manifest/types.js';
import type { Report } from '../report/types.js';
import { listManifestFiles, type FastPassed } from './fast-path.js';
import { checkAllFast, threadsFor } from './parallel.js';
import { validateDocument } from './index.js';
import { maskSecretsInSources, type FoundSecret } from './mask.js';
import { valueAt } from './pointer.js';
import { duplicateName } from './rules/duplicate-name.js';
import { classifySecret } from './rules/literal-api-key.js';

export interface ValidateRun {
  /** The report of the run (`command: 'validate'`), diagnostics sorted. */
  report: Report;
  /**
   * Source text for code frames, with any literal secrets masked: at least every file that has a
   * finding (the fast path does not keep the text of clean files).
   */
  sources: Map<string, string>;
  /** The literal secrets found, so that callers can also redact them from anything else. */
  secrets: string[];
}

export interface ValidatePathsOptions extends LoadOptions {
  /**
   * Check files first with the fast reader and load with positions only those that need it
   * (default true). The findings are the same either way; `false` is the plain reference path.
   */
  fast?: boolean;
  /**
   * Threads for the fast path: the main thread plus `jobs - 1` workers. Default: all cores (at
   * most 4) for runs of 1,500 files or more, else 1. Results never depend on it.
   */
  jobs?: number;
}

/**
 * Loads the manifests named by `paths` (files, folders, globs, `-`) and validates them: YAML and
 * interpolation findings from the loader, then schema, YAML 1.1 and rule findings, then the rules
 * across documents (duplicate names).
 */
export async function validatePaths(paths: readonly string[], options: ValidatePathsOptions): Promise<ValidateRun> {
  const files = options.fast === false ? undefined : listManifestFiles(paths, options.cwd);
  if (files === undefined) {
    const loaded = await loadManifests(paths, options);
    return finish(loaded.files, loaded, loaded.documents, loaded.documents);
  }

  // Fast path: keep only names of clean files; load the rest with positions, in one loader call.
  const passed = new Map<string, FastPassed>();
  const slow: string[] = [];
  const checked = await checkAllFast(files, {
    threads: threadsFor(files.length, options.jobs),
    ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
  });
  files.forEach((file, i) => {
    const ok = checked[i];
    if (ok === undefined) slow.push(file);
    else passed.set(file, ok);
  });
  // A clean file whose name another manifest also uses needs positions for that finding.
  const nameCount = new Map<string, number>();
  for (const p of passed.values()) nameCount.set(p.name, (nameCount.get(p.name) ?? 0) + 1);
  const empty: LoadResult = { documents: [], diagnostics: [], files: [], sources: new Map() };
  const first = slow.length > 0 ? await loadManifests(slow, options) : empty;
  for (const d of first.documents) nameCount.set(d.name, (nameCount.get(d.name) ?? 0) + 1);
  const again = [...passed.values()].filter((p) => (nameCount.get(p.name) ?? 0) > 1).map((p) => p.file);
  for (const f of again) passed.delete(f);
  const second = again.length > 0 ? await loadManifests(again, options) : empty;

  const loaded: LoadResult = {
    documents: [...first.documents, ...second.documents],
    diagnostics: [...first.diagnostics, ...second.diagnostics],
    files,
    sources: new Map([...first.sources, ...second.sources]),
  };
  // Every document of the run in load order (the plain path's order), for the cross-document rule.
  const byFile = new Map<string, ManifestDocument[]>();
  for (const d of loaded.documents) byFile.set(d.file, [...(byFile.get(d.file) ?? []), d]);
  const ordered: ManifestDocument[] = [];
  for (const file of files) {
    const p = passed.get(file);
    if (p !== undefined) ordered.push(nameOnly(p));
    else ordered.push(...(byFile.get(file) ?? []));
  }
  return finish(files, loaded, loaded.documents, ordered);
}

/** A clean document on the fast path: only its name takes part in the run rule. */
function nameOnly(p: FastPassed): ManifestDocument {
  return {
    file: p.file,
    index: 0,
    name: p.name,
    nameDeclared: p.nameDeclared,
    data: undefined,
    locate: () => {
      throw new Error(`internal: ${p.file} was checked on the fast path and has no positions`);
    },
    scalar: () => undefined,
  };
}

function finish(files: string[], loaded: LoadResult, checked: readonly ManifestDocument[], all: readonly ManifestDocument[]): ValidateRun {
  // A value whose `${VAR}` could not be expanded still holds the reference text; its env/ error
  // says what is wrong, and a schema complaint about the placeholder would only be noise.
  const unexpanded = new Set(loaded.diagnostics.filter((d) => d.code.startsWith('env/')).map(placeKey));
  const found: Diagnostic[] = [];
  for (const doc of checked) found.push(...validateDocument(doc));
  found.push(...duplicateName.checkAll(all));
  const diagnostics = sortDiagnostics([...loaded.diagnostics, ...found.filter((d) => !unexpanded.has(placeKey(d)))]);
  const report: Report = {
    command: 'validate',
    files,
    diagnostics,
    summary: { ...tally(diagnostics), files: files.length, manifests: all.length },
  };
  const secrets: FoundSecret[] = [];
  for (const d of diagnostics) {
    if (d.code !== 'rule/literal-api-key' || d.pointer === undefined || d.file === undefined || d.range === undefined) continue;
    const doc = checked.find((x) => x.file === d.file && rangeWithin(x.locate(''), d.range));
    const value = doc === undefined ? undefined : valueAt(doc.data, d.pointer);
    if (typeof value !== 'string') continue;
    const key = d.pointer.split('/').pop();
    secrets.push({ file: d.file, range: d.range, secret: classifySecret(value, key)?.secret ?? value });
  }
  return {
    report,
    sources: maskSecretsInSources(loaded.sources, secrets),
    secrets: [...new Set(secrets.map((f) => f.secret))],
  };
}

function rangeWithin(outer: { start: { line: number }; end: { line: number } }, inner: { start: { line: number } } | undefined): boolean {
  return inner !== undefined && inner.start.line >= outer.start.line && inner.start.line <= outer.end.line;
}

function placeKey(d: Diagnostic): string {
  return `${d.file ?? ''}\0${d.range?.start.line ?? 0}:${d.range?.start.col ?? 0}`;
}
