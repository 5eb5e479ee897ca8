import type { Code } from '../diagnostics/codes.js';
import { codeInfo } from '../diagnostics/codes.js';
import type { Diagnostic, Fix, RelatedLocation } from '../diagnostics/diagnostic.js';
import type { Catalog } from '../catalog/catalog.js';
import type { CatalogSlugs } from './slug-types.js';
import type { ManifestDocument } from '../manifest/types.js';

/** A semantic rule that looks at one document at a time. */
export interface DocumentRule {
  readonly code: Code;
  check(doc: ManifestDocument): Diagnostic[];
}

/**
 * A rule that checks slugs against the toolkit and tool catalogue. It runs only on documents
 * that name toolkits or tools, so that the catalogue is loaded only for those.
 */
export interface CatalogRule {
  readonly code: Code;
  /** `slugs` are the document's, read once for all catalogue rules (`catalogSlugs`). */
  check(doc: ManifestDocument, catalog: Catalog, slugs: CatalogSlugs): Diagnostic[];
}

/** A rule that looks at every document of a run together (duplicate names). */
export interface RunRule {
  readonly code: Code;
  checkAll(docs: readonly ManifestDocument[]): Diagnostic[];
}

export function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;
}

/** An own key (not one inherited, such as `constructor`). */
export function has(obj: Record<string, unknown>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(obj, key);
}

/** A located diagnostic of `code` with the code's catalogue severity. */
export function finding(
  doc: ManifestDocument,
  code: Code,
  pointer: string,
  message: string,
  hint: string,
  options: { key?: boolean; related?: Array<{ pointer: string; message: string; key?: boolean }>; replacement?: string | undefined } = {},
): Diagnostic {
  const d: Diagnostic = {
    code,
    severity: codeInfo(code).severity,
    message,
    file: doc.file,
    pointer,
    range: doc.locate(pointer, { key: options.key ?? false }),
    hint,
  };
  if (options.replacement !== undefined) d.fix = replaceFix(doc, pointer, options.key ?? false, options.replacement);
  if (options.related !== undefined && options.related.length > 0) {
    d.related = options.related.map(
      (r): RelatedLocation => ({ message: r.message, file: doc.file, range: doc.locate(r.pointer, { key: r.key ?? false }) }),
    );
  }
  return d;
}

/** Compares two source positions of one document: which key was written first. */
export function before(doc: ManifestDocument, a: string, b: string): boolean {
  const ra = doc.locate(a, { key: true }).start;
  const rb = doc.locate(b, { key: true }).start;
  return ra.line < rb.line || (ra.line === rb.line && ra.col <= rb.col);
}

/**
 * The fix that writes `text` in place of the value (or key) at `pointer`: a did-you-mean. A quoted
 * value keeps its quotes.
 */
export function replaceFix(doc: { locate(pointer: string, options?: { key?: boolean }): Diagnostic['range']; scalar?: ManifestDocument['scalar'] }, pointer: string, key: boolean, text: string): Fix {
  const written = key ? undefined : doc.scalar?.(pointer);
  const quote = written?.style === 'quoted' ? written.source[0]! : '';
  return { title: `Replace with \`${text}\``, edits: [{ range: doc.locate(pointer, { key })!, text: `${quote}${text}${quote}` }] };
}
