import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from './types.js';

/**
 * A diagnostic about a whole manifest (not applied, refused, gone ...), shown at its `name:`, or at
 * the start of the document when the name comes from the file stem.
 */
export function atDocument(doc: Pick<ManifestDocument, 'file' | 'locate' | 'nameDeclared'>, code: Diagnostic['code'], severity: Diagnostic['severity'], message: string): Diagnostic {
  const pointer = doc.nameDeclared ? '/name' : '';
  return { code, severity, message, file: doc.file, pointer, range: doc.locate(pointer, pointer === '' ? undefined : { key: true }) };
}
