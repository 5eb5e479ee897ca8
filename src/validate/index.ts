import { sortDiagnostics, type Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import type { DocumentRule, RunRule } from './rule.js';
import { allowlistWithDenylist } from './rules/allowlist-with-denylist.js';
import { duplicateName } from './rules/duplicate-name.js';
import { emptyAllowlist } from './rules/empty-allowlist.js';
import { intentHint } from './intent.js';
import { literalApiKey } from './rules/literal-api-key.js';
import { nameFromFile } from './rules/name-from-file.js';
import { perUserPinnedAccount } from './rules/per-user-pinned-account.js';
import { perUserPlaceholder } from './rules/per-user-placeholder.js';
import { misplacedKey } from './rules/misplaced-key.js';
import { proxyWithoutWorkbench } from './rules/proxy-without-workbench.js';
import { tagConflict } from './rules/tag-conflict.js';
import { toolkitNotEnabled } from './rules/toolkit-not-enabled.js';
import { toolsVariant } from './rules/tools-variant.js';
import { waitWithoutManageConnections } from './rules/wait-without-manage-connections.js';
import { schemaDiagnostics, yaml11Diagnostics } from './schema.js';
import { capDiagnostic } from '../diagnostics/excerpt.js';
import { documentMasker } from '../manifest/sensitive.js';

/** Rules that look at one document. Each reads data that may have failed the schema, defensively. */
export const documentRules: readonly DocumentRule[] = [
  allowlistWithDenylist,
  toolsVariant,
  toolkitNotEnabled,
  tagConflict,
  proxyWithoutWorkbench,
  waitWithoutManageConnections,
  emptyAllowlist,
  literalApiKey,
  nameFromFile,
  misplacedKey,
  perUserPlaceholder,
  perUserPinnedAccount,
];

/** Rules that look at all documents of a run together. */
export const runRules: readonly RunRule[] = [duplicateName];

/**
 * Schema, YAML 1.1 and rule findings of one document (without the cross-document rules). A
 * message that quotes a sensitive value (an enum's "got ...", a cut excerpt) names its variable instead.
 */
export function validateDocument(doc: ManifestDocument): Diagnostic[] {
  const rules: Diagnostic[] = [];
  for (const rule of documentRules) rules.push(...rule.check(doc));
  // A misplaced key (`tools.enable`) explains whatever the schema says about its value.
  const misplaced = rules.filter((d) => d.code === 'rule/misplaced-key').map((d) => d.pointer!);
  const schema = schemaDiagnostics(doc)
    .filter((d) => !misplaced.some((p) => d.pointer === p || d.pointer?.startsWith(`${p}/`) === true))
    .map((d) => {
      const hint = intentHint(doc, d);
      return hint === undefined ? d : { ...d, hint };
    });
  const capped = [...schema, ...yaml11Diagnostics(doc), ...rules].map(capDiagnostic);
  return doc.sensitive === undefined ? capped : documentMasker(doc).json(capped);
}

/**
 * Validates the documents of one run: the schema (cleaned ajv errors), YAML 1.1 ambiguities, the
 * semantic rules of each document, then the rules across documents (duplicate names). Returns the
 * findings sorted and de-duplicated. Loading findings (YAML, `${VAR}`) are the loader's.
 */
export function validateDocuments(docs: readonly ManifestDocument[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const doc of docs) out.push(...validateDocument(doc));
  for (const rule of runRules) out.push(...rule.checkAll(docs));
  return sortDiagnostics(out);
}

export { manifestSchemaText, manifestSchema, isSchemaValid } from './schema.js';
