import { tally, type Diagnostic, type Range, type SuppressedDiagnostic } from '../diagnostics/diagnostic.js';
import type { SuppressionDirective } from '../manifest/directives.js';
import { expandManifestPaths, loadManifestFile, loadManifests, STDIN_FILE } from '../manifest/load.js';
import type { LoadOptions, ManifestDocument } from '../manifest/types.js';
import type { PolicyRule, Report } from '../report/types.js';
import { NamePlaces, placeKey, secretsOf, type FileCheckOptions } from './check-file.js';
import { applyDiagnosticControls, directivesOf } from './controls.js';
import { checkAllFiles, threadsFor } from './parallel.js';
import { validateDocument } from './index.js';
import { maskSecretsInSources, type FoundSecret } from './mask.js';
import { projectDiagnostics, selectProjectFiles, type ProjectChecks, type ProjectRunOptions } from './project-checks.js';
import { duplicateName } from './rules/duplicate-name.js';

export interface ValidateRun {
  /** The report of the run (`command: 'validate'`), diagnostics sorted. */
  report: Report;
  /** Source text for code frames, with any literal secrets masked: every file that has a finding. */
  sources: Map<string, string>;
  /** The literal secrets found, so that callers can also redact them from anything else. */
  secrets: string[];
}

export interface ValidatePathsOptions extends LoadOptions {
  /**
   * Threads that check files: 1 is the main thread; more is that many worker threads, which the
   * main thread only feeds. Default: all cores (at most 4) for runs of `AUTO_PARALLEL_MIN_FILES`
   * (2,000) files or more, else 1. Results never depend on it.
   */
  jobs?: number;
  /**
   * `false` loads every file first (`loadManifests`) and validates the documents in memory: the
   * reference that tests compare the default with. It holds every document of the run at once,
   * so the default checks one file at a time and keeps only findings and name records.
   */
  perFile?: boolean;
  /**
   * What the project's `sessionctl.yaml` adds (see `loadProjectConfig` and `projectRunOptions`):
   * policies, severities, ignored files, the catalogue. Without it the run checks against the
   * bundled catalogue and applies only the files' own suppression comments.
   */
  project?: ProjectRunOptions;
}

/** The checks of a run: the project's, else the bundled catalogue and no policies. */
function checksOf(options: ValidatePathsOptions): ProjectChecks {
  return options.project?.checks ?? { dir: options.cwd, policies: [] };
}

/**
 * Loads the manifests named by `paths` (files, folders, globs, `-`) and validates them: YAML and
 * interpolation findings from the loader, then schema, YAML 1.1 and rule findings, then the rules
 * across documents (duplicate names).
 */
export async function validatePaths(paths: readonly string[], options: ValidatePathsOptions): Promise<ValidateRun> {
  if (options.perFile === false) return validateInMemory(paths, options);
  const listed = await expandManifestPaths(paths, options.cwd);
  const files = selectProjectFiles(listed.files, paths, options.cwd, options.project);
  const load: FileCheckOptions = {
    env: options.env,
    checks: checksOf(options),
    ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
    ...(options.readStdin !== undefined ? { readStdin: options.readStdin } : {}),
  };
  // Each file is loaded and checked on its own, on worker threads for big runs; only findings,
  // name records and the sources of files with findings come back, so memory stays flat however
  // many files there are. Only the main thread can read standard input.
  const threads = files.includes(STDIN_FILE) ? 1 : threadsFor(files.length, options.jobs);
  const results = await checkAllFiles(files, { threads, load });

  const diagnostics: Diagnostic[] = [...listed.diagnostics];
  const sources = new Map<string, string>();
  const secrets: FoundSecret[] = [];
  const envPlaces = new Set<string>();
  const directives = new Map<string, SuppressionDirective[]>();
  // Every document of the run in load order, for the rule across documents.
  const ordered: ManifestDocument[] = [];
  results.forEach((r, i) => {
    const file = files[i]!;
    if (r.diagnostics !== undefined) diagnostics.push(...r.diagnostics);
    if (r.directives !== undefined) directives.set(file, r.directives);
    if (r.source !== undefined) sources.set(file, r.source);
    if (r.secrets !== undefined) secrets.push(...r.secrets);
    if (r.envPlaces !== undefined) for (const p of r.envPlaces) envPlaces.add(p);
    r.names.forEach((name, n) => ordered.push(new NamedDocument(file, name, r.places, n * NamePlaces.Count)));
  });
  const duplicates = duplicateName.checkAll(ordered).filter((d) => !envPlaces.has(placeKey(d)));
  diagnostics.push(...duplicates);
  // A file that is clean but for a name another file also uses: its text, for the code frame.
  for (const file of new Set(duplicates.map((d) => d.file!))) {
    if (sources.has(file)) continue;
    const text = (await loadManifestFile(file, load)).text;
    if (text !== undefined) sources.set(file, text);
  }
  return finish(files, applyProject(diagnostics, directives, options.project), ordered.length, sources, secrets, options.project);
}

/** The project's severities and the files' suppression comments, applied to the run's findings. */
function applyProject(diagnostics: Diagnostic[], directives: ReadonlyMap<string, SuppressionDirective[]>, project: ProjectRunOptions | undefined) {
  return applyDiagnosticControls(diagnostics, {
    directives,
    ...(project?.severities !== undefined ? { severities: project.severities } : {}),
    policyCodes: project?.policyCodes ?? (project?.checks.policies ?? []).map((p) => `policy/${p.id}`),
  });
}

/** The reference path: every document in memory, checked by the same functions. */
async function validateInMemory(paths: readonly string[], options: ValidatePathsOptions): Promise<ValidateRun> {
  const listed = await expandManifestPaths(paths, options.cwd);
  const files = selectProjectFiles(listed.files, paths, options.cwd, options.project);
  const kept = new Set(files);
  const dropped = new Set(listed.files.filter((f) => !kept.has(f)));
  const loaded = await loadManifests(paths, options);
  const documents = loaded.documents.filter((d) => kept.has(d.file));
  const unexpanded = new Set(loaded.diagnostics.filter((d) => d.code.startsWith('env/')).map(placeKey));
  const diagnostics: Diagnostic[] = loaded.diagnostics.filter((d) => d.file === undefined || !dropped.has(d.file));
  const secrets: FoundSecret[] = [];
  const checks = checksOf(options);
  for (const doc of documents) {
    const found = [...validateDocument(doc), ...(await projectDiagnostics(doc, checks))].filter((d) => !unexpanded.has(placeKey(d)));
    diagnostics.push(...found);
    secrets.push(...secretsOf(found, doc));
  }
  diagnostics.push(...duplicateName.checkAll(documents).filter((d) => !unexpanded.has(placeKey(d))));
  const sources = new Map([...loaded.sources].filter(([file]) => !dropped.has(file)));
  const refused = new Set(diagnostics.filter((d) => d.code.startsWith('input/')).map((d) => d.file));
  const directives = directivesOf(new Map([...sources].filter(([file]) => !refused.has(file))));
  return finish(files, applyProject(diagnostics, directives, options.project), documents.length, sources, secrets, options.project);
}

/** The report, and the sources of the files with findings (the only ones a report shows). */
function finish(
  files: string[],
  controlled: { diagnostics: Diagnostic[]; suppressed: SuppressedDiagnostic[] },
  manifests: number,
  sources: Map<string, string>,
  secrets: FoundSecret[],
  project: ProjectRunOptions | undefined,
): ValidateRun {
  const { diagnostics, suppressed } = controlled;
  const withFindings = new Set(diagnostics.map((d) => d.file));
  const policies: PolicyRule[] = (project?.checks.policies ?? []).map((p) => ({ code: `policy/${p.id}`, severity: p.severity, description: p.message }));
  const report: Report = {
    command: 'validate',
    files,
    diagnostics,
    suppressed,
    summary: { ...tally(diagnostics), files: files.length, manifests, suppressed: suppressed.length },
  };
  if (policies.length > 0) report.policies = policies;
  return {
    report,
    sources: maskSecretsInSources(new Map([...sources].filter(([file]) => withFindings.has(file))), secrets),
    secrets: [...new Set(secrets.map((f) => f.secret))],
  };
}

/**
 * A document of a per-file run as the duplicate-name rule reads it: its name and the two places
 * the rule locates. A class, not an object literal with closures: 100,000 of these are held until
 * the rule runs.
 */
class NamedDocument implements ManifestDocument {
  readonly data = undefined;

  constructor(
    readonly file: string,
    readonly name: string,
    private readonly places: readonly number[],
    private readonly at: number,
  ) {}

  get index(): number {
    return this.places[this.at + NamePlaces.Index]!;
  }

  get nameDeclared(): boolean {
    return this.places[this.at + NamePlaces.Declared] === 1;
  }

  locate(pointer: string): Range {
    const p = (k: number): number => this.places[this.at + k]!;
    if (pointer === '/name' && this.nameDeclared) {
      return { start: { line: p(NamePlaces.NameStartLine), col: p(NamePlaces.NameStartCol) }, end: { line: p(NamePlaces.NameEndLine), col: p(NamePlaces.NameEndCol) } };
    }
    const start = { line: p(NamePlaces.StartLine), col: p(NamePlaces.StartCol) };
    return { start, end: start };
  }

  scalar(): undefined {
    return undefined;
  }
}
