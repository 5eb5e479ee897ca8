import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { readDirectives, type SuppressionDirective } from '../manifest/directives.js';
import { loadManifestFile, STDIN_FILE } from '../manifest/load.js';
import type { LoadOptions } from '../manifest/types.js';
import { checkLoaded, envPlaces } from './check-loaded.js';
import { tryFastPath, type CleanFile } from './fast-path/try-fast-path.js';
import type { FoundSecret } from './mask.js';
import type { ProjectChecks } from './project-checks.js';
import { sensitiveValues } from '../manifest/sensitive.js';
import type { SensitiveValue } from '../util/sensitive.js';

/**
 * The outcome of one file, as plain data (it crosses from worker threads): the bare name of a
 * file the fast path found clean (`CleanFile`), or what the loader read (`LoadedFile`).
 */
export type FileResult = CleanFile | LoadedFile;

/**
 * A file read by the loader: its documents' names and the places the duplicate-name rule
 * locates, its findings, and for a file with findings its source text (for code frames) and any
 * literal secrets. Kept to a few objects: no file path (the run knows it by position), numbers in
 * one flat list, empty lists left out.
 */
export interface LoadedFile {
  /** The `name` of each document that loaded, in order. */
  names: string[];
  /** `NamePlaces.Count` numbers per name: see `NamePlaces`. */
  places: number[];
  diagnostics?: Diagnostic[];
  source?: string;
  secrets?: FoundSecret[];
  /** Places of `env/` findings, which mask other findings at the same place (see `placeKey`). */
  envPlaces?: string[];
  /** The file's suppression comments (`# sessionctl-ignore`); the run applies them at its end. */
  directives?: SuppressionDirective[];
  /** The file's sensitive values (expanded from secrets), for the run's masker; its findings already mask them. */
  sensitive?: SensitiveValue[];
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
export type FileLoadOptions = Pick<LoadOptions, 'env' | 'maxFileBytes' | 'maxDepth' | 'readStdin' | 'sensitive' | 'unsetVariables' | 'texts'> & {
  /** `false`: every file is read by the loader alone, never by the fast path (`fast-path/`). Default true. */
  fastPath?: boolean;
};

/** How a file is checked: loaded as the run loads it, then the catalogue and the project's policies. */
export interface FileCheckOptions extends FileLoadOptions {
  /** Absent: no catalogue or policy checks (the reference the identity tests compare with). */
  checks?: ProjectChecks;
}

/**
 * Loads one file with the manifest loader (bounded read, the one YAML profile and its limits) and
 * runs every per-document check on it: exactly what a whole run does for that file, except the
 * rules across files, which the run applies to the name records. A clean file usually takes the
 * fast path instead (`tryFastPath`: the same result, without positions, several times faster);
 * any file with a finding, or that the fast path cannot vouch for, is read by the loader.
 */
export async function checkFile(file: string, options: FileCheckOptions): Promise<FileResult> {
  const fast = options.fastPath === false ? undefined : await tryFastPath(file, options);
  if (fast !== undefined) return fast;
  const parsed = await loadManifestFile(file, options);
  const checked = await checkLoaded(parsed.documents, parsed.diagnostics, { acrossDocuments: false, ...(options.checks !== undefined ? { checks: options.checks } : {}) });
  const diagnostics = [...parsed.diagnostics, ...checked.diagnostics];
  const secrets = checked.secrets;
  const names: string[] = [];
  const places: number[] = [];
  for (const doc of parsed.documents) {
    const start = doc.locate('').start;
    const name = doc.nameDeclared ? doc.locate('/name') : undefined;
    names.push(doc.name);
    places.push(doc.index, doc.nameDeclared ? 1 : 0, start.line, start.col);
    places.push(name?.start.line ?? 0, name?.start.col ?? 0, name?.end.line ?? 0, name?.end.col ?? 0);
  }
  const result: LoadedFile = { names, places };
  if (diagnostics.length > 0) result.diagnostics = diagnostics;
  // A file the loader refused (too large, too many tokens, too deep) is not parsed again for comments.
  const directives = parsed.text === undefined || parsed.diagnostics.some((d) => d.code.startsWith('input/')) ? [] : readDirectives(parsed.text);
  if (directives.length > 0) result.directives = directives;
  // Standard input cannot be read again should a finding across files need its text later; a
  // file with suppression comments may get findings about them.
  if (parsed.text !== undefined && (diagnostics.length > 0 || directives.length > 0 || file === STDIN_FILE)) result.source = parsed.text;
  if (secrets.length > 0) result.secrets = secrets;
  const masking = [...envPlaces(parsed.diagnostics)];
  if (masking.length > 0) result.envPlaces = masking;
  const sensitive = parsed.documents.flatMap((doc) => sensitiveValues(new Set(doc.sensitive?.values())));
  if (sensitive.length > 0) result.sensitive = sensitive;
  return result;
}
