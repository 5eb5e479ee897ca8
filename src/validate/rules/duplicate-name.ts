import { capDiagnostic } from '../../diagnostics/excerpt.js';
import { codeInfo } from '../../diagnostics/codes.js';
import type { Diagnostic, Range } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';
import type { RunRule } from '../rule.js';

/** Where a manifest's name is shown: its `name:` value, or the document's first line. */
function locateName(doc: ManifestDocument): { pointer: string; range: Range } {
  if (doc.nameDeclared) return { pointer: '/name', range: doc.locate('/name') };
  // A derived name has no key of its own: point at the document's first line, not all of it.
  const { start } = doc.locate('');
  return { pointer: '', range: { start, end: start } };
}

/**
 * Two manifests of one run with the same name (declared, or derived from the file stem). Names
 * identify sessions in the state file, so the second would overwrite the first. Each later
 * manifest is reported, with the first as the related location.
 */
export const duplicateName: RunRule = {
  code: 'rule/duplicate-name',
  checkAll(docs: readonly ManifestDocument[]) {
    const first = new Map<string, ManifestDocument>();
    const out: Diagnostic[] = [];
    for (const doc of docs) {
      const earlier = first.get(doc.name);
      if (earlier === undefined) {
        first.set(doc.name, doc);
        continue;
      }
      const here = locateName(doc);
      out.push({
        code: this.code,
        severity: codeInfo(this.code).severity,
        message: `manifest name \`${doc.name}\` is already used by another manifest of this run${doc.nameDeclared ? '' : ' (the name comes from the file name)'}`,
        hint: 'Give each manifest a unique `name:`; names identify sessions in the state file.',
        file: doc.file,
        pointer: here.pointer,
        range: here.range,
        related: [{ message: `\`${doc.name}\` is first used here`, file: earlier.file, range: locateName(earlier).range }],
      });
    }
    return out.map(capDiagnostic);
  },
};
