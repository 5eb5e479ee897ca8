import type { Diagnostic, Range } from '../diagnostics/diagnostic.js';
import { loadManifests } from '../manifest/load.js';
import { parseManifestText } from '../manifest/parse.js';
import { DEFAULT_MAX_FILE_BYTES } from '../manifest/decode.js';
import type { LoadOptions, LoadResult, ManifestDocument } from '../manifest/types.js';
import { checkFastOrBytes } from './fast-path.js';
import { validateDocument } from './index.js';
import type { FoundSecret } from './mask.js';
import { valueAt } from './pointer.js';
import { classifySecret } from './rules/literal-api-key.js';

/** A document reduced to its identity and the two places the duplicate-name rule locates. */
export interface NameRecord {
  file: string;
  index: number;
  name: string;
  nameDeclared: boolean;
  whole: Range;
  nameRange: Range;
}

/**
 * The outcome of one file, as plain data (it crosses from worker threads): clean on the fast
 * path (only the name is kept), or loaded with positions and checked (its findings, its source
 * text for code frames, its documents' name records and any literal secrets).
 */
export type FileResult =
  | { kind: 'fast'; file: string; name: string; nameDeclared: boolean }
  | { kind: 'full'; file: string; diagnostics: Diagnostic[]; source?: string; docs: NameRecord[]; secrets: FoundSecret[]; envPlaces: string[] };

/** Where a finding is, as a key: `env/` places mask other findings at the same place. */
export function placeKey(d: Diagnostic): string {
  return `${d.file ?? ''}\0${d.range?.start.line ?? 0}:${d.range?.start.col ?? 0}`;
}

/** The literal secrets behind `rule/literal-api-key` findings, for masking and redaction. */
export function secretsOf(diagnostics: readonly Diagnostic[], docs: readonly ManifestDocument[]): FoundSecret[] {
  const out: FoundSecret[] = [];
  for (const d of diagnostics) {
    if (d.code !== 'rule/literal-api-key' || d.pointer === undefined || d.file === undefined || d.range === undefined) continue;
    const range = d.range;
    // One document: it is the one. Several: the last that starts at or before the finding.
    const doc = docs.length === 1 ? docs[0] : docs.filter((x) => x.file === d.file && x.locate('').start.line <= range.start.line).pop();
    const value = doc === undefined ? undefined : valueAt(doc.data, d.pointer);
    if (typeof value !== 'string') continue;
    const key = d.pointer.split('/').pop();
    out.push({ file: d.file, range: d.range, secret: classifySecret(value, key)?.secret ?? value });
  }
  return out;
}

/**
 * Checks one file of a run that lists its files itself: the fast path first (unless `full`),
 * else the full loader and every per-document check, exactly as the plain path does for it.
 */
export async function checkFile(file: string, options: LoadOptions, full = false): Promise<FileResult> {
  const fast = checkFastOrBytes(file, options.maxFileBytes);
  if (!full && fast !== undefined && 'name' in fast) return { kind: 'fast', file, name: fast.name, nameDeclared: fast.nameDeclared };
  if (fast !== undefined && 'located' in fast) {
    const { doc, findings, text } = fast.located;
    const whole = doc.locate('');
    return {
      kind: 'full',
      file,
      diagnostics: findings,
      source: text,
      docs: [{ file, index: 0, name: doc.name, nameDeclared: doc.nameDeclared, whole, nameRange: doc.nameDeclared ? doc.locate('/name') : whole }],
      secrets: secretsOf(findings, [doc]),
      envPlaces: [],
    };
  }
  // The bytes already read go to the same parser the loader uses, with the loader's options;
  // a file this path could not read is left to the loader, which reports why.
  const loaded =
    fast !== undefined && 'bytes' in fast ? parsedAsLoaded(file, fast.bytes, options) : await loadManifests([file], options);
  const envPlaces = loaded.diagnostics.filter((d) => d.code.startsWith('env/')).map(placeKey);
  const masked = new Set(envPlaces);
  const diagnostics = [...loaded.diagnostics];
  const secrets: FoundSecret[] = [];
  const docs: NameRecord[] = [];
  for (const doc of loaded.documents) {
    const found = validateDocument(doc).filter((d) => !masked.has(placeKey(d)));
    diagnostics.push(...found);
    secrets.push(...secretsOf(found, [doc]));
    const whole = doc.locate('');
    docs.push({ file: doc.file, index: doc.index, name: doc.name, nameDeclared: doc.nameDeclared, whole, nameRange: doc.nameDeclared ? doc.locate('/name') : whole });
  }
  const source = loaded.sources.get(file);
  return { kind: 'full', file, diagnostics, ...(source !== undefined ? { source } : {}), docs, secrets, envPlaces };
}

/** What `loadManifests([file])` returns, from bytes already read (loader.ts does the same per file). */
function parsedAsLoaded(file: string, bytes: Uint8Array, options: LoadOptions): LoadResult {
  const parsed = parseManifestText(bytes, file, {
    env: options.env,
    maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    ...(options.maxDepth !== undefined ? { maxDepth: options.maxDepth } : {}),
  });
  const sources = new Map<string, string>();
  if (parsed.text !== undefined) sources.set(file, parsed.text);
  return { documents: parsed.documents, diagnostics: parsed.diagnostics, files: [file], sources };
}
