import { tally, type Diagnostic, type Range, type SuppressedDiagnostic } from '../diagnostics/diagnostic.js';
import type { SuppressionDirective } from '../manifest/directives.js';
import { expandManifestPaths, loadManifestFile, STDIN_FILE } from '../manifest/load.js';
import type { ManifestDocument } from '../manifest/types.js';
import { runVariables } from '../manifest/variables.js';
import type { ReportBase } from '../diagnostics/report-base.js';
import { checkFile, NamePlaces, type FileCheckOptions, type FileResult } from './check-file.js';
import { placeKey } from './check-loaded.js';
import { applyDiagnosticControls } from './controls.js';
import { checkInMemory, policyCodesOf, policyRulesOf, type InMemoryOptions } from './in-memory.js';
import { checkAllFiles, threadsFor } from './parallel.js';
import { maskSecretsInSources, type FoundSecret } from './mask.js';
import { selectProjectFiles, type ProjectRunOptions } from './project-checks.js';
import { duplicateName } from './rules/duplicate-name.js';
import { declaredValues } from '../manifest/sensitive.js';
import { ValueMasker, type SensitiveValue } from '../util/sensitive.js';

export interface ValidateRun {
  /** The report of the run (`command: 'validate'`), diagnostics sorted. */
  report: ReportBase;
  /** Source text for code frames, with any literal secrets masked: every file that has a finding. */
  sources: Map<string, string>;
  /** The literal secrets found, so that callers can also redact them from anything else. */
  secrets: string[];
  /**
   * The sensitive values of the run (expanded from secrets, or of variables declared sensitive),
   * already masked in the report: for the caller's other outputs (GitHub's `::add-mask::`).
   */
  sensitive: SensitiveValue[];
}

export interface ValidatePathsOptions extends InMemoryOptions {
  /**
   * Threads that check files: 1 is the main thread alone; more is the main thread and one worker
   * thread fewer than that. Default: all cores (at most 4) for runs of `AUTO_PARALLEL_MIN_FILES`
   * (5,000) files or more, else 1. Results never depend on it.
   */
  jobs?: number;
  /**
   * `false` loads every file first and validates the documents in memory (`checkInMemory`): the
   * reference that tests compare the default with. It holds every document of the run at once,
   * so the default checks one file at a time and keeps only findings and name records.
   */
  perFile?: boolean;
  /**
   * `false` reads every file with the loader alone. By default a clean file is checked on the
   * fast path (js-yaml into plain data, no positions; `fast-path/`), with the same results.
   */
  fastPath?: boolean;
}

/**
 * Loads the manifests named by `paths` (files, folders, globs, `-`) and validates them: YAML and
 * interpolation findings from the loader, then schema, YAML 1.1 and rule findings, then the rules
 * across documents (duplicate names).
 */
export async function validatePaths(paths: readonly string[], options: ValidatePathsOptions): Promise<ValidateRun> {
  if (options.perFile === false) {
    const checked = await checkInMemory(paths, options);
    return finish(checked.files, checked, checked.documents.length, checked.sources, checked.secrets, checked.sensitive, options.project);
  }
  const variables = await runVariables({ cwd: options.cwd, ...(options.env !== undefined ? { env: options.env } : {}), ...(options.envFiles !== undefined ? { envFiles: options.envFiles } : {}) });
  const listed = await expandManifestPaths(paths, options.cwd, options.texts);
  const files = selectProjectFiles(listed.files, paths, options.cwd, options.project);
  const load: FileCheckOptions = {
    env: variables.env,
    checks: options.project?.checks ?? { dir: options.cwd, policies: [] },
    ...(options.maxFileBytes !== undefined ? { maxFileBytes: options.maxFileBytes } : {}),
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
    ...(options.readStdin !== undefined ? { readStdin: options.readStdin } : {}),
    ...(options.fastPath === false ? { fastPath: false } : {}),
    ...(options.sensitive !== undefined ? { sensitive: options.sensitive } : {}),
    ...(options.unsetVariables !== undefined ? { unsetVariables: options.unsetVariables } : {}),
    ...(options.texts !== undefined ? { texts: options.texts } : {}),
  };
  // Each file is loaded and checked on its own, on worker threads for big runs; only findings,
  // name records and the sources of files with findings come back, so memory stays flat however
  // many files there are. Only the main thread can read standard input.
  const threads = files.includes(STDIN_FILE) ? 1 : threadsFor(files.length, options.jobs);
  const results = await checkAllFiles(files, { threads, load });
  await placeRepeatedNames(files, results, load);

  const diagnostics: Diagnostic[] = [...variables.diagnostics, ...listed.diagnostics];
  const sources = new Map<string, string>();
  const secrets: FoundSecret[] = [];
  const sensitive: SensitiveValue[] = declaredValues(variables.env, options.sensitive);
  const envPlaces = new Set<string>();
  const directives = new Map<string, SuppressionDirective[]>();
  // Every document of the run in load order, for the rule across documents.
  const ordered: ManifestDocument[] = [];
  results.forEach((r, i) => {
    const file = files[i]!;
    // A clean file's name has no places: `placeRepeatedNames` gave them to every name that is repeated.
    if (typeof r === 'string') return void ordered.push(new NamedDocument(file, r, NO_PLACES, 0));
    if (r.diagnostics !== undefined) diagnostics.push(...r.diagnostics);
    if (r.directives !== undefined) directives.set(file, r.directives);
    if (r.source !== undefined) sources.set(file, r.source);
    if (r.secrets !== undefined) secrets.push(...r.secrets);
    if (r.envPlaces !== undefined) for (const p of r.envPlaces) envPlaces.add(p);
    if (r.sensitive !== undefined) sensitive.push(...r.sensitive);
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
  return finish(files, applyProject(diagnostics, directives, options.project), ordered.length, sources, secrets, sensitive, options.project);
}

/** The project's severities and the files' suppression comments, applied to the run's findings. */
function applyProject(diagnostics: Diagnostic[], directives: ReadonlyMap<string, SuppressionDirective[]>, project: ProjectRunOptions | undefined) {
  return applyDiagnosticControls(diagnostics, {
    directives,
    ...(project?.severities !== undefined ? { severities: project.severities } : {}),
    policyCodes: policyCodesOf(project),
    ...(project?.policiesLocked === true ? { policiesLocked: true } : {}),
  });
}

/**
 * The duplicate-name rule locates names, and the fast path reads none: a file that took it and
 * whose name another file also uses is checked again by the loader, for its places. Rare (two
 * manifests with one name are a finding), so clean runs never pay for positions.
 */
async function placeRepeatedNames(files: readonly string[], results: FileResult[], load: FileCheckOptions): Promise<void> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  const see = (name: string): void => void (seen.has(name) ? repeated : seen).add(name);
  for (const r of results) {
    if (typeof r === 'string') see(r);
    else r.names.forEach(see);
  }
  if (repeated.size === 0) return;
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    if (typeof r === 'string' && repeated.has(r)) results[i] = await checkFile(files[i]!, { ...load, fastPath: false });
  }
}

/** The report, and the sources of the files with findings (the only ones a report shows). */
function finish(
  files: string[],
  controlled: { diagnostics: Diagnostic[]; suppressed: SuppressedDiagnostic[] },
  manifests: number,
  sources: Map<string, string>,
  secrets: FoundSecret[],
  sensitive: SensitiveValue[],
  project: ProjectRunOptions | undefined,
): ValidateRun {
  const masker = new ValueMasker();
  masker.addAll(sensitive);
  // Each file's findings mask its own values already; across files (a duplicate name) they may not.
  const diagnostics = masker.json(controlled.diagnostics);
  const suppressed = masker.json(controlled.suppressed);
  const withFindings = new Set(diagnostics.map((d) => d.file));
  const policies = policyRulesOf(project);
  const report: ReportBase = {
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
    sensitive: masker.entries(),
  };
}

/** The places of a clean file's name: none (see `placeRepeatedNames`). */
const NO_PLACES: readonly number[] = [];

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
