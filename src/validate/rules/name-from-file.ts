import type { ManifestDocument } from '../../manifest/types.js';
import { finding, type DocumentRule } from '../rule.js';
import { manifestSchema } from '../schema.js';

let namePattern: RegExp | undefined;

/** The schema's own pattern for `name`, so that both kinds of name obey one rule. */
function validName(name: string): boolean {
  namePattern ??= new RegExp((manifestSchema() as { properties: { name: { pattern: string } } }).properties.name.pattern);
  return name.length <= 63 && namePattern.test(name);
}

/**
 * A manifest without `name:` is named after its file (`support-agent.yaml` -> `support-agent`).
 * That name identifies the session in the state, in reports and in `$GITHUB_OUTPUT` keys, so it
 * must obey the rule a declared `name:` obeys: a file named `evil\nINJECT=1.yaml` would otherwise
 * write a line of its choosing into the step outputs.
 */
export const nameFromFile: DocumentRule = {
  code: 'rule/name-from-file',
  check(doc: ManifestDocument) {
    if (doc.nameDeclared) return [];
    const stem = doc.index === 0 ? doc.name : doc.name.replace(/#\d+$/, '');
    if (validName(stem)) return [];
    const d = finding(
      doc,
      this.code,
      '',
      `the manifest has no \`name:\`, and its file name gives ${JSON.stringify(stem)}, which is not a valid manifest name`,
      'Declare `name:` (lowercase letters, digits and hyphens, at most 63 characters), or rename the file.',
    );
    d.range = { start: d.range!.start, end: d.range!.start };
    return [d];
  },
};
