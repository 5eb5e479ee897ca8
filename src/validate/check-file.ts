import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { loadManifestFile, STDIN_FILE } from '../manifest/load.js';
import type { LoadOptions, ManifestDocument } from '../manifest/types.js';
import { validateDocument } from './index.js';
import { tryFastPath } from './fast-path/try-fast-path.js';
import type { FoundSecret } from './mask.js';
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
  /**
   * `NamePlaces.Count` numbers per name: see `NamePlaces`. Empty when the file took the fast path,
   * which reads no positions: the run asks the loader for them if another file has the same name.
   */
  places: number[];
  diagnostics?: Diagnostic[];
  source?: string;
  secrets?: FoundSecret[];
  /** Places of `env/` findings, which mask other findings at the same place (see `placeKey`). */
  envPlaces?: string[];
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
export type FileLoadOptions = Pick<LoadOptions, 'env' | 'maxFileBytes' | 'maxDepth' | 'readStdin'> & {
  /** `false`: every file is read by the loader alone, never by the fast path (`fast-path/`). Default true. */
  fastPath?: boolean;
};

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
 * rules across files, which the run applies to the name records. A clean file usually takes the
 * fast path instead (`tryFastPath`: the same result, without positions, several times faster);
 * any file with a finding, or that the fast path cannot vouch for, is read by the loader.
 */
export async function checkFile(file: string, options: FileLoadOptions): Promise<FileResult> {
  const fast = options.fastPath === false ? undefined : await tryFastPath(file, options);
  if (fast !== undefined) return fast;
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
    const found = validateDocument(doc).filter((d) => !masked.has(placeKey(d)));
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
  // Standard input cannot be read again should a finding across files need its text later.
  if (parsed.text !== undefined && (diagnostics.length > 0 || file === STDIN_FILE)) result.source = parsed.text;
  if (secrets.length > 0) result.secrets = secrets;
  if (envPlaces.length > 0) result.envPlaces = envPlaces;
  return result;
}
