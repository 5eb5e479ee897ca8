import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { readDirectives, type SuppressionDirective } from '../manifest/directives.js';
import { loadManifestFile, STDIN_FILE } from '../manifest/load.js';
import type { LoadOptions, ManifestDocument } from '../manifest/types.js';
import { validateDocument } from './index.js';
import type { FoundSecret } from './mask.js';
import { projectDiagnostics, type ProjectChecks } from './project-checks.js';
import { valueAt } from './pointer.js';
import { classifySecret } from './rules/literal-api-key.js';

/**
 * The outcome of one file, as plain data (it crosses from worker threads): its documents' names
 * and the places the duplicate-name rule locates, its findings, and for a file with findings its
 * source text (for code frames) and any literal secrets. A 100,000-file run holds one of these
 * per file, so it is kept to a few objects: no file path (the run knows it by position), numbers
 * in one flat list, empty lists left out.
 */
export interface FileResult {
  /** The `name` of each document that loaded, in order. */
  names: string[];
  /** `PLACES` numbers per name: see `NamePlaces`. */
  places: number[];
  diagnostics?: Diagnostic[];
  source?: string;
  secrets?: FoundSecret[];
  /** Places of `env/` findings, which mask other findings at the same place (see `placeKey`). */
  envPlaces?: string[];
  /** The file's suppression comments (`# sessionctl-ignore`); the run applies them at its end. */
  directives?: SuppressionDirective[];
}

/**
 * The numbers kept per document, in this order: its index in the file, 1 when it declares `name:`,
 * the line and column where it starts, and the range of its `name:` value (zeros when undeclared).
 */
export const NamePlaces = {
  Index: 0,
  Declared: 1,
  StartLine: 2,
  StartCol: 3,
  NameStartLine: 4,
  NameStartCol: 5,
  NameEndLine: 6,
  NameEndCol: 7,
  Count: 8,
} as const;

/** The options a file is loaded with: the run's `LoadOptions` without what only the main thread has. */
export type FileLoadOptions = Pick<LoadOptions, 'env' | 'maxFileBytes' | 'maxDepth' | 'readStdin'>;

/** How a file is checked: loaded as the run loads it, then the catalogue and the project's policies. */
export interface FileCheckOptions extends FileLoadOptions {
  /** Absent: no catalogue or policy checks (the reference the identity tests compare with). */
  checks?: ProjectChecks;
}

/** Where a finding is, as a key: `env/` places mask other findings at the same place. */
export function placeKey(d: Diagnostic): string {
  return `${d.file ?? ''}\0${d.range?.start.line ?? 0}:${d.range?.start.col ?? 0}`;
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
 * Loads one file with the manifest loader (bounded read, the one YAML profile and its limits) and
 * runs every per-document check on it: exactly what a whole run does for that file, except the
 * rules across files, which the run applies to the name records.
 */
export async function checkFile(file: string, options: FileCheckOptions): Promise<FileResult> {
  const parsed = await loadManifestFile(file, options);
  // A value whose `${VAR}` could not be expanded still holds the reference text; its env/ error
  // says what is wrong, and a schema complaint about the placeholder would only be noise.
  const envPlaces = parsed.diagnostics.filter((d) => d.code.startsWith('env/')).map(placeKey);
  const masked = new Set(envPlaces);
  const diagnostics = [...parsed.diagnostics];
  const secrets: FoundSecret[] = [];
  const names: string[] = [];
  const places: number[] = [];
  for (const doc of parsed.documents) {
    const own = validateDocument(doc);
    if (options.checks !== undefined) own.push(...(await projectDiagnostics(doc, options.checks)));
    const found = own.filter((d) => !masked.has(placeKey(d)));
    diagnostics.push(...found);
    secrets.push(...secretsOf(found, doc));
    const start = doc.locate('').start;
    const name = doc.nameDeclared ? doc.locate('/name') : undefined;
    names.push(doc.name);
    places.push(doc.index, doc.nameDeclared ? 1 : 0, start.line, start.col);
    places.push(name?.start.line ?? 0, name?.start.col ?? 0, name?.end.line ?? 0, name?.end.col ?? 0);
  }
  const result: FileResult = { names, places };
  if (diagnostics.length > 0) result.diagnostics = diagnostics;
  // A file the loader refused (too large, too many tokens, too deep) is not parsed again for comments.
  const directives = parsed.text === undefined || parsed.diagnostics.some((d) => d.code.startsWith('input/')) ? [] : readDirectives(parsed.text);
  if (directives.length > 0) result.directives = directives;
  // Standard input cannot be read again should a finding across files need its text later; a
  // file with suppression comments may get findings about them.
  if (parsed.text !== undefined && (diagnostics.length > 0 || directives.length > 0 || file === STDIN_FILE)) result.source = parsed.text;
  if (secrets.length > 0) result.secrets = secrets;
  if (envPlaces.length > 0) result.envPlaces = envPlaces;
  return result;
}
