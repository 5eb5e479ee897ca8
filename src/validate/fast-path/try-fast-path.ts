import { closeSync, openSync, readSync } from 'node:fs';
import type { Range } from '../../diagnostics/diagnostic.js';
import { DEFAULT_MAX_DEPTH } from '../../manifest/depth.js';
import { declaredName, defaultName, STDIN_FILE } from '../../manifest/parse.js';
import type { LoadOptions, ManifestDocument, ScalarSource } from '../../manifest/types.js';
import { validateDocument } from '../index.js';
import { projectDiagnostics, type ProjectChecks } from '../project-checks.js';
import { valueAt } from '../pointer.js';
import { FAST_MAX_BYTES, findHazard } from './hazards.js';

/**
 * js-yaml is loaded when the first file passes the byte scan: a run whose files all go to the
 * loader anyway (`validate one.yaml` of a manifest with `${VAR}`) does not pay for its start-up.
 */
let plainData: typeof import('./plain-data.js') | undefined;

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A clean file's result (a `FileResult` of `check-file.ts`): the name of its one document, and
 * nothing else. A bare string, not an object with a list of names and an empty list of places:
 * almost every file of a big run is clean, and a 100,000-file run holds one of these per file
 * (about 14 MB less to hold, and to copy from the workers, than the object was).
 */
export type CleanFile = string;

/**
 * The fast path of one file: a clean manifest checked without positions. js-yaml (about ten times
 * faster than yaml with its syntax tree, bench/RESULTS.md) reads the file into plain data, and
 * the data gets every per-document check the loader's would (`validateDocument`). The result is
 * returned only when it is certain to be what the loader would give: the file has none of the
 * hazards of `hazards.ts` and `plain-data.ts`, and no check finds anything, so there is nothing
 * to locate. Otherwise undefined: the caller loads the file with the loader, which reads it with
 * positions and reports every finding. So a file with a finding is always reported by the loader.
 *
 * Equivalence is held by construction where it can be (plain scalars resolve through yaml's own
 * core-schema resolvers) and by the differential test (`test/e2e/validate-fast-path.test.ts`).
 */
export async function tryFastPath(file: string, options: Pick<LoadOptions, 'maxFileBytes' | 'maxDepth' | 'texts'> & { checks?: ProjectChecks }): Promise<CleanFile | undefined> {
  // An editor's buffer is what is being typed: the loader reads it, with positions for what it finds.
  if (file === STDIN_FILE || options.texts?.has(file) === true) return undefined;
  const text = readFastText(file, options.maxFileBytes);
  // A suppression comment may be unused or lack its reason: findings only the loader's run reports.
  if (text === undefined || text.includes('sessionctl-ignore')) return undefined;
  const data = await readFastData(text, options.maxDepth);
  if (data === undefined) return undefined;
  const doc = new PlainDocument(file, data);
  if (validateDocument(doc).length > 0) return undefined;
  if (options.checks !== undefined && (await projectDiagnostics(doc, options.checks)).length > 0) return undefined;
  // No places: the run asks the loader for them only if another file uses the same name.
  return doc.name;
}

/**
 * The text of a file that may take the fast path: small, UTF-8, and free of every byte-level
 * hazard (`hazards.ts`); undefined for any other file, which the loader reads instead.
 */
export function readFastText(file: string, maxFileBytes: number = FAST_MAX_BYTES): string | undefined {
  const maxBytes = Math.min(maxFileBytes, FAST_MAX_BYTES);
  const bytes = readSmallFile(file, maxBytes);
  if (bytes === undefined || findHazard(bytes, maxBytes) !== undefined) return undefined;
  try {
    return fatalUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** `readPlainData` of a text from `readFastText`, js-yaml loaded on first use. */
export async function readFastData(text: string, maxDepth: number = DEFAULT_MAX_DEPTH): Promise<unknown> {
  plainData ??= await import('./plain-data.js');
  return plainData.readPlainData(text, maxDepth);
}

/** One buffer for every read of the fast path: files are read one at a time, and copied out of it as text. */
const buffer = Buffer.allocUnsafe(FAST_MAX_BYTES + 1);

/**
 * The bytes of a file of at most `maxBytes`, or undefined for anything else (larger, a folder, an
 * error): the loader then reads it and reports what is wrong. No `fstat`: one read of one byte
 * more than the limit tells a larger file, and reading a folder fails. The bytes are only valid
 * until the next call.
 */
function readSmallFile(file: string, maxBytes: number): Uint8Array | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const read = readSync(fd, buffer, 0, maxBytes + 1, 0);
    return read <= maxBytes ? buffer.subarray(0, read) : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

const start: Range = { start: { line: 1, col: 1 }, end: { line: 1, col: 1 } };

/**
 * One document read without positions (a manifest, or `sessionctl.yaml`: `src/project/load.ts`).
 * `locate` and `scalar` are only asked for to report a finding, and a finding sends the file to
 * the loader, so their answers are never shown: `scalar`
 * answers as if every string were written plain, so that the YAML 1.1 check flags every string
 * the loader might (the loader then decides, from the real source).
 */
export class PlainDocument implements ManifestDocument {
  readonly index = 0;
  readonly name: string;
  readonly nameDeclared: boolean;

  constructor(
    readonly file: string,
    readonly data: unknown,
  ) {
    const declared = declaredName(data);
    this.nameDeclared = declared !== undefined;
    this.name = declared ?? defaultName(file, 0);
  }

  locate(): Range {
    return start;
  }

  scalar(pointer: string): ScalarSource | undefined {
    const value = valueAt(this.data, pointer);
    return typeof value === 'string' ? { source: value, style: 'plain' } : undefined;
  }
}
