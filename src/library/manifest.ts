import { expectedConfig as expectedOf, type ExpectedConfig } from '../config/expected.js';
import { requestBody as bodyOf } from '../config/request.js';
import type { CreateSessionBody, ManifestData } from '../config/types.js';
import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import { parseManifestText } from '../manifest/load.js';
import type { ManifestDocument } from '../manifest/types.js';
import { validateDocuments } from '../validate/index.js';

export interface ParseManifestOptions {
  /** Variables for `${VAR}` interpolation, e.g. `{ USER_ID: user.id }`. Nothing is read from the process environment. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The name used in diagnostics and as the default manifest name (its stem). Default `manifest.yaml`. */
  file?: string;
  /** Variables whose values are sensitive whatever their names (see `LoadOptions.sensitive`). */
  sensitive?: readonly string[];
}

/**
 * Parses and validates one manifest text (one or more YAML documents) with the given variables:
 * the same YAML, schema and rule findings as `sessionctl validate`, positions 1-based. Build the
 * create body of a document with `requestBody(document.data)` once there is no error.
 */
export function parseManifest(text: string, options: ParseManifestOptions = {}): { documents: ManifestDocument[]; diagnostics: Diagnostic[] } {
  const parsed = parseManifestText(text, options.file ?? 'manifest.yaml', { env: options.env ?? {}, ...(options.sensitive !== undefined ? { sensitive: options.sensitive } : {}) });
  return { documents: parsed.documents, diagnostics: sortDiagnostics([...parsed.diagnostics, ...validateDocuments(parsed.documents)]) };
}

/** A document's data, whether given the document or its data. */
export function dataOf(input: ManifestDocument | ManifestData): ManifestData {
  return typeof (input as Partial<ManifestDocument>).locate === 'function' ? ((input as ManifestDocument).data as ManifestData) : (input as ManifestData);
}

/**
 * The wire body of POST /api/v3/tool_router/session for a validated manifest document (or its
 * data): `name` dropped, the bare-list shorthands of `toolkits` and `tools.<toolkit>` expanded to
 * `{enable: [...]}`, everything else as written, `${VAR}` already expanded at parse time.
 */
export function requestBody(manifest: ManifestDocument | ManifestData): CreateSessionBody {
  return bodyOf(dataOf(manifest));
}

/**
 * The config the service should answer with for a manifest document (or its data), in response
 * spelling with the documented defaults, the meta tools it should expose, and for every value the
 * manifest pointer that declared it (or that it is a default).
 */
export function expectedConfig(manifest: ManifestDocument | ManifestData): ExpectedConfig {
  return expectedOf(dataOf(manifest));
}
