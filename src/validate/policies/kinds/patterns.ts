import type { ManifestDocument } from '../../../manifest/types.js';
import { dottedPath } from '../../pointer.js';
import { joinPointer } from '../../../util/json-pointer.js';
import { compilePattern } from '../safe-pattern.js';
import type { PolicyKind, Violation } from '../types.js';
import { asPlainObject } from '../../../util/plain-object.js';

/**
 * Longer values are not matched: the schema already bounds `user_id` (256) and auth config ids
 * (128), and a bounded input keeps even a slow pattern's cost bounded.
 */
const MAX_MATCHED = 1024;

/** The violations of string values (with their pointers, built lazily) against one pattern. */
function unmatched(doc: ManifestDocument, values: ReadonlyArray<[unknown, () => string]>, pattern: string, what: string): Violation[] {
  const re = compilePattern(pattern);
  const out: Violation[] = [];
  for (const [value, at] of values) {
    if (typeof value !== 'string' || value.length > MAX_MATCHED || re.test(value)) continue;
    const pointer = at();
    // A value that came from the environment is not repeated: it may be a secret.
    const fromEnv = doc.scalar(pointer)?.source.includes('${') === true;
    const shown = fromEnv ? 'set from the environment to a value that' : `\`${value.length > 60 ? `${value.slice(0, 57)}...` : value}\`, which`;
    out.push({ pointer, key: false, detail: `\`${dottedPath(pointer, doc.data)}\` is ${shown} does not match ${pattern}`, hint: `Use ${what} that matches ${pattern}.` });
  }
  return out;
}

/** `user_id` must match a regular expression (after `${VAR}` expansion). */
export const userIdPattern: PolicyKind = {
  name: 'user_id_pattern',
  example: {
    policy: 'id: user-ids\nmessage: Sessions act for users of our own directory\nuser_id_pattern: "^usr_[0-9a-f]{8}$"',
    manifest: 'name: demo\nuser_id: alice@example.com',
  },
  check(doc, value) {
    return unmatched(doc, [[asPlainObject(doc.data)?.['user_id'], () => '/user_id']], value as string, 'a user id');
  },
};

/** Every auth config id (`auth_configs.<toolkit>`) must match a regular expression. */
export const authConfigPattern: PolicyKind = {
  name: 'auth_config_pattern',
  example: {
    policy: 'id: prod-auth-configs\nmessage: Production sessions use the production auth configs\nauth_config_pattern: "^ac_prod"',
    manifest: 'name: mailer\nuser_id: u-1\nauth_configs:\n  gmail: ac_staging42',
  },
  check(doc, value) {
    const entries = Object.entries(asPlainObject(asPlainObject(doc.data)?.['auth_configs']) ?? {});
    return unmatched(doc, entries.map(([t, id]): [unknown, () => string] => [id, () => joinPointer('/auth_configs', t)]), value as string, 'an auth config id');
  },
};
