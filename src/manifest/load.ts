import type { Readable } from 'node:stream';
import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { DEFAULT_MAX_FILE_BYTES, tooLarge } from './decode.js';
import { expandManifestPaths, unreadable } from './list-files.js';
import { readFileBounded } from './read-bounded.js';
import { parseManifestText, STDIN_FILE, type ParsedSource } from './parse.js';
import type { LoadOptions, LoadResult, ManifestDocument } from './types.js';

export { expandManifestPaths } from './list-files.js';
export { parseManifestText, STDIN_FILE, type ParseOptions, type ParsedSource } from './parse.js';

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
 * Reads (bounded) and parses one file that `expandManifestPaths` listed, or `<stdin>`: what
 * `loadManifests` does for each file. A file that cannot be read is one located finding.
 */
export async function loadManifestFile(file: string, options: Omit<LoadOptions, 'cwd'>): Promise<ParsedSource> {
  const maxBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  const unsaved = options.texts?.get(file);
  const read = unsaved !== undefined ? unsavedBytes(file, unsaved, maxBytes) : file === STDIN_FILE ? await readStdin(options, maxBytes) : readManifestBytes(file, maxBytes);
  if ('problem' in read) return { file, text: undefined, documents: [], diagnostics: [read.problem] };
  return parseManifestText(read.bytes, file, {
    env: options.env,
    maxFileBytes: maxBytes,
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
    ...(options.sensitive !== undefined ? { sensitive: options.sensitive } : {}),
    ...(options.unsetVariables !== undefined ? { unsetVariables: options.unsetVariables } : {}),
  });
}

type Read = { bytes: Uint8Array } | { problem: Diagnostic };

function readManifestBytes(file: string, maxBytes: number): Read {
  const read = readFileBounded(file, maxBytes);
  if ('bytes' in read) return read;
  return { problem: 'tooLarge' in read ? tooLarge(file, read.tooLarge, maxBytes) : unreadable(file, read.error) };
}

/** An editor's buffer, refused past the limit as the file would be once saved. */
function unsavedBytes(file: string, text: string, maxBytes: number): Read {
  const bytes = Buffer.from(text, 'utf8');
  return bytes.length > maxBytes ? { problem: tooLarge(file, bytes.length, maxBytes) } : { bytes };
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
