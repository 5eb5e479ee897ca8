import { opendir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { DEFAULT_MAX_FILE_BYTES, tooLarge } from './decode.js';
import { globToRegExp, hasGlobMagic, splitGlob } from './glob.js';
import { readFileBounded } from './read-bounded.js';
import { parseManifestText, STDIN_FILE, type ParsedSource } from './parse.js';
import type { LoadOptions, LoadResult, ManifestDocument } from './types.js';

export { parseManifestText, STDIN_FILE, type ParseOptions, type ParsedSource } from './parse.js';

/** Folder search: these names are manifests. */
const MANIFEST_FILE = /\.ya?ml$/i;
/** Folder and `**` search skip these (dependencies and tool folders such as `.git`, `.sessionctl`). */
const SKIPPED_DIR = (name: string): boolean => name === 'node_modules' || name.startsWith('.');

/**
 * Loads every manifest named by `paths`: files (any extension), folders (every `*.yaml` and
 * `*.yml` below them, skipping `node_modules` and hidden folders), globs (`manifests/**\/*.yaml`,
 * matched by sessionctl itself so quoting works the same in every shell) and `-` for stdin.
 *
 * Paths are loaded in the order given; a folder's or glob's files are sorted by path, and a file
 * named twice is loaded once. Nothing is thrown for bad input: a path that matches nothing, an
 * unreadable file and every YAML problem are diagnostics, sorted (see `sortDiagnostics`).
 * Documents with YAML errors are not returned (their data is not reliable); documents with only
 * `env/` errors are, with the unexpanded `${VAR}` text left in place.
 */
export async function loadManifests(paths: readonly string[], options: LoadOptions): Promise<LoadResult> {
  const listed = await expandManifestPaths(paths, options.cwd);
  const diagnostics: Diagnostic[] = [...listed.diagnostics];
  const documents: ManifestDocument[] = [];
  const sources = new Map<string, string>();
  for (const file of listed.files) {
    const parsed = await loadManifestFile(file, options);
    if (parsed.text !== undefined) sources.set(file, parsed.text);
    documents.push(...parsed.documents);
    diagnostics.push(...parsed.diagnostics);
  }
  return { documents, diagnostics: sortDiagnostics(diagnostics), files: listed.files, sources };
}

/**
 * The files `paths` name, as `loadManifests` loads them: in the order given, a folder's or glob's
 * files sorted, each file once, `-` as `<stdin>`; plus a finding for each path that names nothing.
 * For callers that load the files one by one (bulk validation on worker threads).
 */
export async function expandManifestPaths(paths: readonly string[], cwd: string): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  const seen = new Set<string>();
  const add = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    files.push(file);
  };
  for (const path of paths) {
    if (path === '-') {
      add(STDIN_FILE);
      continue;
    }
    const expanded = await expandPath(path, cwd);
    if ('problem' in expanded) diagnostics.push(expanded.problem);
    else expanded.files.forEach(add);
  }
  return { files, diagnostics };
}

/**
 * Reads (bounded) and parses one file that `expandManifestPaths` listed, or `<stdin>`: what
 * `loadManifests` does for each file. A file that cannot be read is one located finding.
 */
export async function loadManifestFile(file: string, options: Omit<LoadOptions, 'cwd'>): Promise<ParsedSource> {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const read = file === STDIN_FILE ? await readStdin(options, maxBytes) : readManifestBytes(file, maxBytes);
  if ('problem' in read) return { file, text: undefined, documents: [], diagnostics: [read.problem] };
  return parseManifestText(read.bytes, file, { env: options.env, maxFileBytes: maxBytes, ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}) });
}

type Expanded = { files: string[] } | { problem: Diagnostic };

async function expandPath(path: string, cwd: string): Promise<Expanded> {
  const absolute = resolve(cwd, path);
  let kind: 'file' | 'dir' | 'missing';
  try {
    const s = await stat(absolute);
    kind = s.isDirectory() ? 'dir' : 'file';
  } catch (err) {
    if (!isMissing(err)) return { problem: unreadable(absolute, err) };
    kind = 'missing';
  }
  if (kind === 'file') return { files: [absolute] };
  if (kind === 'dir') {
    const files = await walk(absolute, (rel) => MANIFEST_FILE.test(rel));
    if (files.length === 0) return { problem: notFound(absolute, `the folder ${path} holds no *.yaml or *.yml file`) };
    return { files };
  }
  if (hasGlobMagic(path)) {
    const posix = path.split(sep).join('/');
    const { base, rest } = splitGlob(posix);
    const root = resolve(cwd, base === '' ? '.' : base);
    const re = globToRegExp(rest);
    let files: string[] = [];
    try {
      if ((await stat(root)).isDirectory()) files = await walk(root, (rel) => re.test(rel));
    } catch (err) {
      if (!isMissing(err)) return { problem: unreadable(root, err) };
    }
    if (files.length === 0) return { problem: notFound(isAbsolute(path) ? path : absolute, `the pattern ${path} matched no file`) };
    return { files };
  }
  return { problem: notFound(absolute, `${path} does not exist`) };
}

/**
 * Files below `root` (following symbolic links, each real folder once) whose relative path passes
 * `match`, sorted. Entry by entry, with paths built by concatenation: a folder of 100,000 files read
 * whole by `readdir` held ~60 MB of entries at once, and `join`/`relative` per entry ~45 MB of
 * garbage. (`dir` is absolute and normalised and an entry name holds no separator, so `prefix +
 * name` is what `join` returns, and the part after the root's prefix is what `relative` returns.)
 */
async function walk(root: string, match: (relativePath: string) => boolean): Promise<string[]> {
  const found: string[] = [];
  const visited = new Set<string>();
  const pending = [root];
  const rootPrefix = root.endsWith(sep) ? root : root + sep;
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let real: string;
    try {
      real = await realpath(dir);
    } catch {
      continue;
    }
    if (visited.has(real)) continue;
    visited.add(real);
    let handle;
    try {
      handle = await opendir(dir, { bufferSize: 256 });
    } catch {
      // An unreadable sub-folder holds nothing we can load; named explicitly, it is reported.
      continue;
    }
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    const relPrefix = dir === root ? '' : prefix.slice(rootPrefix.length).split(sep).join('/');
    try {
      for await (const entry of handle) {
        const full = prefix + entry.name;
        let isDir = entry.isDirectory();
        let isFile = entry.isFile();
        if (entry.isSymbolicLink()) {
          try {
            const s = await stat(full);
            isDir = s.isDirectory();
            isFile = s.isFile();
          } catch {
            continue;
          }
        }
        if (isDir) {
          if (!SKIPPED_DIR(entry.name)) pending.push(full);
        } else if (isFile && match(relPrefix + entry.name)) {
          found.push(full);
        }
      }
    } catch {
      // A folder that fails while it is read: what was read so far is kept, as with any unreadable sub-folder.
    }
  }
  return found.sort(compareCodeUnits);
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

type Read = { bytes: Uint8Array } | { problem: Diagnostic };

function readManifestBytes(file: string, maxBytes: number): Read {
  const read = readFileBounded(file, maxBytes);
  if ('bytes' in read) return read;
  return { problem: 'tooLarge' in read ? tooLarge(file, read.tooLarge, maxBytes) : unreadable(file, read.error) };
}

async function readStdin(options: Pick<LoadOptions, 'readStdin'>, maxBytes: number): Promise<Read> {
  if (options.readStdin === undefined) return { problem: unreadable(STDIN_FILE, new Error('standard input is not available here')) };
  try {
    const bytes = await options.readStdin();
    if (bytes.length > maxBytes) return { problem: tooLarge(STDIN_FILE, bytes.length, maxBytes) };
    return { bytes };
  } catch (err) {
    return { problem: unreadable(STDIN_FILE, err) };
  }
}

/**
 * Reads a stream to its end, or until it passes `maxBytes` (then the excess is not kept and the
 * result is `maxBytes + 1` bytes long, which the loader reports as too large). For `readStdin`.
 */
export async function readStreamBounded(stream: Readable, maxBytes: number = DEFAULT_MAX_FILE_BYTES): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of stream) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk as Uint8Array);
    chunks.push(b);
    total += b.length;
    if (total > maxBytes) {
      stream.destroy();
      break;
    }
  }
  return Buffer.concat(chunks, Math.min(total, maxBytes + 1));
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function notFound(file: string, message: string): Diagnostic {
  return { code: 'input/not-found', severity: 'error', message, file };
}

function unreadable(file: string, err: unknown): Diagnostic {
  const code = (err as { code?: string } | null)?.code;
  const reason = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'is a folder' : err instanceof Error ? err.message : String(err);
  return { code: 'input/unreadable', severity: 'error', message: `cannot read the file: ${reason}`, file, range: { start: { line: 1, col: 1 }, end: { line: 1, col: 1 } } };
}
