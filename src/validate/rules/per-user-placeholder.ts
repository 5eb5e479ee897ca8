import { END_USER } from '../../manifest/per-user.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { finding, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

/** Placeholders people write for "each user" that sessionctl does not read as one. */
const LOOK_ALIKE = /<\s*(?:end|each|every|any|per)?[-_ ]?user(?:[-_ ]?id)?\s*>|\{\{\s*\.?(?:end[-_ ]?)?user(?:[-_]?id)?\s*\}\}/i;
/** A variable named for every user: a variable holds one user per run. */
const EVERY_USER_VARIABLE = /\$\{\s*((?:END|EACH|EVERY|ANY|PER)_?USERS?(?:_?ID)?)\s*(?::-[^}]*)?\}/i;

/**
 * A `user_id` that tries to make the manifest per-user and does not: the placeholder with other
 * text around it (the application's user id is sent as it is, so `tenant-<end-user>` would be a
 * literal user), the placeholder behind a variable (per-user only while the variable is unset),
 * a look-alike (`<user>`, `{{user}}`), or a variable named for every user (`${END_USER}`).
 * Each would make apply create one session for a user nobody has, instead of publishing.
 */
export const perUserPlaceholder: DocumentRule = {
  code: 'rule/per-user-placeholder',
  check(doc: ManifestDocument) {
    const value = asPlainObject(doc.data)?.['user_id'];
    if (typeof value !== 'string') return [];
    const source = doc.scalar('/user_id')?.source ?? value;
    const problem = problemOf(value, source);
    if (problem === undefined) return [];
    return [finding(doc, this.code, '/user_id', problem, `write \`user_id: ${END_USER}\` alone for a manifest that serves every end user (the application passes each user's id to ensure), or a literal or \`\${VAR}\` for the session of one user`)];
  },
};

function problemOf(value: string, source: string): string | undefined {
  if (value === END_USER) {
    return source.includes('${') ? `\`user_id\` is ${END_USER} only while the variable around it is unset; whether the manifest is per-user must not depend on the environment` : undefined;
  }
  if (value.includes(END_USER) || source.includes(END_USER)) return `\`user_id\` mixes ${END_USER} with other text (${JSON.stringify(value)}); the placeholder must be the whole value, or the manifest is the session of one literal user`;
  const variable = EVERY_USER_VARIABLE.exec(source);
  if (variable !== null) return `\`user_id\` comes from \${${variable[1]}}, which holds one user per run, not every user; a manifest that serves every end user is per-user: \`user_id: ${END_USER}\``;
  const alike = LOOK_ALIKE.exec(value);
  if (alike !== null) return `\`user_id\` holds ${JSON.stringify(alike[0])}, which looks like a placeholder but is sent as a literal user id; the per-user placeholder is ${END_USER}`;
  return undefined;
}
