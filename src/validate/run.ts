import { sortDiagnostics, tally, type Diagnostic } from '../diagnostics/diagnostic.js';
import { loadManifests } from '../manifest/load.js';
import type { LoadOptions, LoadResult, ManifestDocument } from '../manifest/types.js';
import type { Report } from '../report/types.js';
import { checkFile, placeKey, secretsOf, type NameRecord } from './check-file.js';
import { listManifestFiles } from './fast-path.js';
import { checkAllFiles, threadsFor } from './parallel.js';
import { validateDocument } from './index.js';
import { maskSecretsInSources, type FoundSecret } from './mask.js';
import { duplicateName } from './rules/duplicate-name.js';

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
   * most 4) for runs of 20,000 files or more, else 1. Results never depend on it.
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

  // Fast path: each file is checked on its own (fast reader, else the full loader), on worker
  // threads for big runs; only findings, name records and the sources of files with findings
  // come back, so memory stays flat however many files there are.
  const load = {
    cwd: options.cwd,
    env: options.env,
    ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
  };
  const results = await checkAllFiles(files, { threads: threadsFor(files.length, options.jobs), load });
  // A clean file whose name another manifest also uses needs positions for that finding.
  const nameCount = new Map<string, number>();
  for (const r of results) {
    if (r.kind === 'fast') nameCount.set(r.name, (nameCount.get(r.name) ?? 0) + 1);
    else for (const d of r.docs) nameCount.set(d.name, (nameCount.get(d.name) ?? 0) + 1);
  }
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    if (r.kind === 'fast' && (nameCount.get(r.name) ?? 0) > 1) results[i] = await checkFile(r.file, load, true);
  }

  const diagnostics: Diagnostic[] = [];
  const sources = new Map<string, string>();
  const secrets: FoundSecret[] = [];
  const envPlaces = new Set<string>();
  // Every document of the run in load order (the plain path's order), for the cross-document rule.
  const ordered: ManifestDocument[] = [];
  for (const r of results) {
    if (r.kind === 'fast') {
      ordered.push(nameOnly(r));
      continue;
    }
    diagnostics.push(...r.diagnostics);
    if (r.source !== undefined) sources.set(r.file, r.source);
    secrets.push(...r.secrets);
    for (const p of r.envPlaces) envPlaces.add(p);
    for (const d of r.docs) ordered.push(fromRecord(d));
  }
  diagnostics.push(...duplicateName.checkAll(ordered).filter((d) => !envPlaces.has(placeKey(d))));
  const sorted = sortDiagnostics(diagnostics);
  return {
    report: { command: 'validate', files, diagnostics: sorted, summary: { ...tally(sorted), files: files.length, manifests: ordered.length } },
    sources: maskSecretsInSources(sources, secrets),
    secrets: [...new Set(secrets.map((f) => f.secret))],
  };
}

/** A name record as the document the duplicate-name rule reads. */
function fromRecord(r: NameRecord): ManifestDocument {
  return {
    file: r.file,
    index: r.index,
    name: r.name,
    nameDeclared: r.nameDeclared,
    data: undefined,
    locate: (pointer) => (pointer === '/name' ? r.nameRange : r.whole),
    scalar: () => undefined,
  };
}

/** A clean document on the fast path: only its name takes part in the run rule. */
function nameOnly(p: { file: string; name: string; nameDeclared: boolean }): ManifestDocument {
  return new NameOnlyDocument(p.file, p.name, p.nameDeclared);
}

/** A class, not an object literal with closures: 100,000 of these are held until the run rule. */
class NameOnlyDocument implements ManifestDocument {
  readonly index = 0;
  readonly data = undefined;
  constructor(
    readonly file: string,
    readonly name: string,
    readonly nameDeclared: boolean,
  ) {}

  locate(): never {
    throw new Error(`internal: ${this.file} was checked on the fast path and has no positions`);
  }

  scalar(): undefined {
    return undefined;
  }
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
  const secrets = secretsOf(diagnostics, checked);
  return {
    report,
    sources: maskSecretsInSources(loaded.sources, secrets),
    secrets: [...new Set(secrets.map((f) => f.secret))],
  };
}



