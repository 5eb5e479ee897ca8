import { Document, isMap, isPair, isScalar, visit } from 'yaml';
import type { ExportedManifest } from '../config/manifest-from-session.js';
import { classifySecret } from '../validate/rules/literal-api-key.js';
import type { Json } from '../wire/json.js';

export interface ManifestYamlOptions {
  /** Where the `$schema` modeline points, as seen from the file. */
  schemaRef: string;
  /** Where it came from, for the header comment. */
  source: string;
  /** Write secret-looking values as they are instead of `${VARIABLE}`. */
  showSensitive?: boolean;
}

/** `MCP_CALLBACK_URL` from a pointer such as `/manage_connections/callback_url`. */
function variableName(path: readonly string[]): string {
  return path.join('_').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'SECRET';
}

/**
 * A manifest file for exported data: the schema modeline, a header saying where it came from and
 * what it could not say, the data in the manifest's own order. A value that looks like a secret
 * (a known key format, or a key named like one) is written as `${VARIABLE}` with a comment saying
 * what to set, so the file can go to git as it is.
 */
export function renderManifestYaml(exported: ExportedManifest, options: ManifestYamlOptions): string {
  const doc = new Document(exported.data as unknown as Json);
  const unset: string[] = [];
  if (options.showSensitive !== true) {
    visit(doc, {
      Pair(_key, pair, path) {
        if (!isScalar(pair.value) || typeof pair.value.value !== 'string' || !isScalar(pair.key)) return;
        const key = String(pair.key.value);
        if (classifySecret(pair.value.value, key) === undefined) return;
        const keys = path.filter(isPair).map((p) => (isScalar(p.key) ? String(p.key.value) : ''));
        const name = variableName([...keys, key]);
        pair.value.value = `\${${name}}`;
        pair.value.comment = ` set ${name}: the exported value looked like a secret`;
        unset.push(name);
      },
    });
  }
  const header = [
    `yaml-language-server: $schema=${options.schemaRef}`,
    `Exported by sessionctl from ${options.source}. Documented defaults are left out.`,
    ...exported.notes.map((n) => `Not expressed: ${n}.`),
    ...(unset.length > 0 ? [`Set before validating or applying: ${unset.join(', ')}.`] : []),
  ];
  doc.commentBefore = header.map((l) => ` ${l}`).join('\n');
  if (isMap(doc.contents)) doc.contents.flow = false;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
