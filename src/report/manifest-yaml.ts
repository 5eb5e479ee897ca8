import { Document, isMap, isPair, isScalar, visit } from 'yaml';
import type { ExportedManifest } from '../config/manifest-from-session.js';
import { classifySecret } from '../validate/rules/literal-api-key.js';
import type { Json } from '../wire/json.js';

export interface ManifestYamlOptions {
  /** Where the `$schema` modeline points, as seen from the file. */
  schemaRef: string;
  /** Where it came from, for the header comment. */
  source: string;
  /**
   * Write secret-looking values as they are instead of `${VARIABLE}`. (Values masked before they
   * get here, `(sensitive: VAR)`, are written as `${VAR}` whatever this says.)
   */
  showSensitive?: boolean;
}

/** A sensitive value as the masker writes it (`(sensitive: HOOK_TOKEN)`), whole or inside a text. */
const SENSITIVE_MARK = /\(sensitive: ([A-Za-z0-9_]+(?:, [A-Za-z0-9_]+)*)\)/;

const SENSITIVE_MARKS = new RegExp(SENSITIVE_MARK.source, 'g');

/**
 * A text whose only masks each name one variable (`...?token=(sensitive: HOOK_TOKEN)`), as the
 * manifest template that makes it (`...?token=${HOOK_TOKEN}`, a literal `${` escaped as `$${`),
 * or undefined when a mask names several (which part is which is unknown).
 */
function templateOf(value: string): { text: string; names: string[] } | undefined {
  const names: string[] = [];
  let text = '';
  let last = 0;
  for (const m of value.matchAll(SENSITIVE_MARKS)) {
    const labels = m[1]!.split(', ');
    if (labels.length !== 1) return undefined;
    text += value.slice(last, m.index).replaceAll('${', '$${') + `\${${labels[0]!}}`;
    last = m.index + m[0].length;
    if (!names.includes(labels[0]!)) names.push(labels[0]!);
  }
  return { text: text + value.slice(last).replaceAll('${', '$${'), names };
}

/** `MCP_CALLBACK_URL` from a pointer such as `/manage_connections/callback_url`. */
function variableName(path: readonly string[]): string {
  return path.join('_').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_+|_+$/g, '').toUpperCase() || 'SECRET';
}

/**
 * A manifest file for exported data: the schema modeline, a header saying where it came from and
 * what it could not say, the data in the manifest's own order. A value that looks like a secret
 * (a known key format, or a key named like one) is written as `${VARIABLE}` with a comment saying
 * what to set, so the file can go to git as it is; so is a value masked as sensitive, under the
 * name of the variable it came from.
 */
export function renderManifestYaml(exported: ExportedManifest, options: ManifestYamlOptions): string {
  const doc = new Document(exported.data as unknown as Json);
  const unset: string[] = [];
  if (options.showSensitive !== true) {
    visit(doc, {
      Pair(_key, pair, path) {
        if (!isScalar(pair.value) || typeof pair.value.value !== 'string' || !isScalar(pair.key)) return;
        const key = String(pair.key.value);
        const value = pair.value.value;
        const masked = SENSITIVE_MARK.exec(value);
        const keys = path.filter(isPair).map((p) => (isScalar(p.key) ? String(p.key.value) : ''));
        let name: string;
        const template = masked !== null && value !== masked[0] ? templateOf(value) : undefined;
        if (template !== undefined) {
          // The literal text was the manifest's own and each variable is named: the template goes back as it was written.
          pair.value.value = template.text;
          pair.value.comment = ` set ${template.names.join(', ')}: ${template.names.length === 1 ? 'a sensitive value' : 'sensitive values'}`;
          unset.push(...template.names);
          return;
        }
        if (masked !== null) {
          // Recorded by apply as coming from these variables: the manifest names them again.
          const labels = masked[1]!.split(', ');
          name = labels.length === 1 && value === masked[0] ? labels[0]! : variableName([...keys, key]);
          pair.value.comment = name === labels[0] ? ` set ${name}: a sensitive value` : ` set ${name}: a sensitive value made from ${labels.join(', ')}`;
        } else if (classifySecret(value, key) !== undefined) {
          name = variableName([...keys, key]);
          pair.value.comment = ` set ${name}: the exported value looked like a secret`;
        } else return;
        pair.value.value = `\${${name}}`;
        unset.push(name);
      },
    });
  }
  const header = [
    `yaml-language-server: $schema=${options.schemaRef}`,
    `Exported by sessionctl from ${options.source}. Documented defaults are left out.`,
    ...exported.notes.map((n) => `Not expressed: ${n}.`),
    ...(unset.length > 0 ? [`Set before validating or applying: ${[...new Set(unset)].join(', ')}.`] : []),
  ];
  doc.commentBefore = header.map((l) => ` ${l}`).join('\n');
  if (isMap(doc.contents)) doc.contents.flow = false;
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}
