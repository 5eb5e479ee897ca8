import { isUtf8 } from 'node:buffer';
import { closeSync, fstatSync, opendirSync, openSync, readSync, statSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import type { Diagnostic, Range } from '../diagnostics/diagnostic.js';
import { DEFAULT_MAX_FILE_BYTES } from '../manifest/decode.js';
import { defaultName } from '../manifest/parse.js';
import type { ManifestDocument, ScalarSource } from '../manifest/types.js';
import { parseFast, type FastDocument } from './fast-yaml.js';
import { validateDocument } from './index.js';
import { valueAt } from './pointer.js';

/*
 * The fast path of bulk validation: most files in a big run are clean, and a clean file needs no
 * positions. So each file is first read with a tiny reader (`fast-yaml.ts`) and checked with the
 * same schema and rules against a document that cannot locate anything. Any finding, any attempt
 * to locate, or any YAML beyond the reader's subset sends the file to the full loader, which then
 * produces every finding exactly as the plain path does. A file passes the fast path only when
 * the plain path would report nothing for it either.
 */

/** Thrown by a fast document when a check wants a position: the file needs the full loader. */
class NeedsPositions extends Error {}
const needsPositions = new NeedsPositions('needs positions');

const SKIPPED_DIR = (name: string): boolean => name === 'node_modules' || name.startsWith('.');
const MANIFEST_FILE = /\.ya?ml$/i;

/** Most manifests are under a kilobyte: one buffer per thread, reused, saves an allocation and an fstat. */
const SMALL = 64 * 1024;
let shared: Buffer | undefined;

/**
 * The file's bytes, or undefined when it cannot be read here or is over the limit (the loader then
 * reads it and reports why). Small files are read into a shared buffer: the result is a view that
 * is valid until the next call, so callers copy what they keep.
 */
function readBounded(file: string, maxFileBytes: number): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    shared ??= Buffer.allocUnsafe(SMALL);
    let total = 0;
    for (;;) {
      const n = readSync(fd, shared, total, SMALL - total, null);
      if (n === 0) break;
      total += n;
      if (total === SMALL) return readLarge(fd, maxFileBytes);
    }
    return total > maxFileBytes ? undefined : shared.subarray(0, total);
  } finally {
    closeSync(fd);
  }
}

/** Files of 64 KiB or more: sized by fstat, read whole into their own buffer. */
function readLarge(fd: number, maxFileBytes: number): Buffer | undefined {
  const s = fstatSync(fd);
  if (!s.isFile() || s.size > maxFileBytes) return undefined;
  const bytes = Buffer.allocUnsafe(s.size);
  let read = 0;
  while (read < s.size) {
    const n = readSync(fd, bytes, read, s.size - read, read);
    if (n === 0) break;
    read += n;
  }
  // A file that changed while read is left to the loader, which reports what it finds.
  return read === s.size ? bytes : undefined;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function walkDir(root: string): string[] | undefined {
  const found: string[] = [];
  const pending = [root];
  while (pending.length > 0) {
    const dir = pending.pop()!;
    // Entry by entry: `readdirSync` of a 100,000-file folder holds every Dirent at once (~60 MB).
    const handle = opendirSync(dir);
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    try {
      for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) {
        // Symbolic links need the loader's cycle handling: not this path's business.
        if (entry.isSymbolicLink()) return undefined;
        // `dir` is absolute and normalised and a name holds no separator, so concatenation is
        // what `join` would return, without `join`'s normalising garbage (~45 MB at 100,000 files).
        if (entry.isDirectory()) {
          if (!SKIPPED_DIR(entry.name)) pending.push(prefix + entry.name);
        } else if (entry.isFile() && MANIFEST_FILE.test(entry.name)) {
          found.push(prefix + entry.name);
        }
      }
    } finally {
      handle.closeSync();
    }
  }
  return found.sort(compareCodeUnits);
}

/**
 * The files the loader would read for `paths`, in its order, when every path is an existing file
 * or a folder without symbolic links that holds manifests. Anything else (stdin, globs, missing
 * paths, empty folders) returns undefined: the plain path handles and reports it.
 */
export function listManifestFiles(paths: readonly string[], cwd: string): string[] | undefined {
  const out: string[] = [];
  const seen = new Set<string>();
  try {
    for (const path of paths) {
      if (path === '-') return undefined;
      const absolute = resolve(cwd, path);
      const s = statSync(absolute, { throwIfNoEntry: false });
      if (s === undefined) return undefined;
      const files = s.isDirectory() ? walkDir(absolute) : s.isFile() ? [absolute] : undefined;
      if (files === undefined || files.length === 0) return undefined;
      for (const f of files) {
        if (seen.has(f)) continue;
        seen.add(f);
        out.push(f);
      }
    }
  } catch {
    return undefined;
  }
  return out;
}

/** What the run keeps of a document that passed the fast path: enough for duplicate names. */
export interface FastPassed {
  file: string;
  name: string;
  nameDeclared: boolean;
}

function fastDocument(file: string, parsed: FastDocument): ManifestDocument {
  const data = parsed.data;
  const declared = Object.prototype.hasOwnProperty.call(data, 'name') ? data['name'] : undefined;
  const nameDeclared = typeof declared === 'string' && declared !== '';
  return {
    file,
    index: 0,
    name: nameDeclared ? declared : defaultName(file, 0),
    nameDeclared,
    data,
    locate(): Range {
      throw needsPositions;
    },
    scalar(pointer: string): ScalarSource | undefined {
      const value = valueAt(data, pointer);
      if (typeof value !== 'string') throw needsPositions;
      // The reader keeps plain scalars only in forms whose source is the value itself.
      return parsed.quoted.has(pointer) ? { source: JSON.stringify(value), style: 'quoted' } : { source: value, style: 'plain' };
    },
  };
}

/**
 * A document read by the fast reader with positions: it locates scalars and keys as the loader
 * does (same ranges: scalar text with its quotes, key text, 1-based, end exclusive), the document
 * itself by its start (every use of `locate('')` reads only the start), and asks for the full
 * loader (by throwing) for anything else: collections, empty values, missing keys.
 */
export function locatedDocument(file: string, parsed: FastDocument): ManifestDocument {
  const positions = parsed.positions!;
  const data = parsed.data;
  const declared = Object.prototype.hasOwnProperty.call(data, 'name') ? data['name'] : undefined;
  const nameDeclared = typeof declared === 'string' && declared !== '';
  const span = (p: { line: number; startCol: number; endCol: number }): Range => ({
    start: { line: p.line, col: p.startCol },
    end: { line: p.line, col: p.endCol },
  });
  // The root mapping starts at its first key, at the start of its line.
  const firstKey = positions.keys.get(`/${Object.keys(data)[0]!.replace(/~/g, '~0').replace(/\//g, '~1')}`)!;
  const docStart = { line: firstKey.line, col: firstKey.startCol };
  return {
    file,
    index: 0,
    name: nameDeclared ? declared : defaultName(file, 0),
    nameDeclared,
    data,
    locate(pointer: string, options: { key?: boolean } = {}): Range {
      if (pointer === '') return { start: docStart, end: docStart };
      const key = options.key === true ? positions.keys.get(pointer) : undefined;
      if (key !== undefined) return span(key);
      const value = positions.values.get(pointer);
      if (value !== undefined) return span(value);
      throw needsPositions;
    },
    scalar(pointer: string): ScalarSource | undefined {
      const value = positions.values.get(pointer);
      if (value !== undefined) return { source: value.source, style: value.style };
      // A collection or an absent key is no scalar, as the loader says; an empty value is unknown here.
      const v = valueAt(data, pointer);
      if (v === undefined || (v !== null && typeof v === 'object')) return undefined;
      throw needsPositions;
    },
  };
}

/** A file the fast reader could also locate: its findings, its text, and its one document. */
export interface FastLocated {
  located: { doc: ManifestDocument; findings: Diagnostic[]; text: string };
}

/**
 * Checks one file on the fast path. Returns what the run needs to keep when the file is clean;
 * otherwise the bytes read (for the full parser, so the file is read once), or undefined when the
 * file could not be read here and the loader must read (and report on) it itself.
 */
export function checkFastOrBytes(file: string, maxFileBytes: number = DEFAULT_MAX_FILE_BYTES): FastPassed | FastLocated | { bytes: Buffer } | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readBounded(file, maxFileBytes);
  } catch {
    return undefined;
  }
  if (bytes === undefined) return undefined;
  // The bytes may be a view of the shared buffer: a fallback keeps its own copy.
  const fallback = (): { bytes: Buffer } => ({ bytes: Buffer.from(bytes) });
  // Invalid UTF-8 is the loader's finding (input/invalid-utf8), never silently replaced here.
  // Large files too: the loader's budgets (250,000 tokens, ...) decide about them, and a
  // manifest is a few kilobytes.
  if (bytes.length >= SMALL || !isUtf8(bytes)) return fallback();
  const text = bytes.toString('utf8');
  const parsed = parseFast(text);
  if (parsed === undefined) return fallback();
  const doc = fastDocument(file, parsed);
  let findings: Diagnostic[];
  let needed = false;
  try {
    findings = validateDocument(doc, { yaml11: parsed.yaml11Candidates });
  } catch (err) {
    needed = true;
    if (!(err instanceof NeedsPositions)) throw err;
    findings = [];
  }
  if (findings.length === 0 && !needed) return { file, name: doc.name, nameDeclared: doc.nameDeclared };
  return locateOrFallback(file, text, fallback);
}

/**
 * A file with findings: read again with positions (still far cheaper than yaml) and checked again;
 * the full loader only when a finding needs a place the fast reader does not record.
 */
function locateOrFallback(file: string, text: string, fallback: () => { bytes: Buffer }): FastLocated | { bytes: Buffer } {
  const parsed = parseFast(text, { positions: true });
  if (parsed === undefined) return fallback();
  const doc = locatedDocument(file, parsed);
  try {
    return { located: { doc, findings: validateDocument(doc), text } };
  } catch (err) {
    if (err instanceof NeedsPositions) return fallback();
    throw err;
  }
}

/** `checkFastOrBytes` for callers that only want to know whether a file is clean. */
export function checkFast(file: string, maxFileBytes: number = DEFAULT_MAX_FILE_BYTES): FastPassed | undefined {
  const r = checkFastOrBytes(file, maxFileBytes);
  return r === undefined || 'bytes' in r || 'located' in r ? undefined : r;
}
