import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { secretsOf } from '../validate/check-loaded.js';
import type { FoundSecret } from '../validate/mask.js';
import { literalApiKey, maskSecret } from '../validate/rules/literal-api-key.js';
import { asPlainObject } from '../util/plain-object.js';

const hints = {
  state: 'Leave the password out of the URL: the PostgreSQL client reads it from PGPASSWORD (or ~/.pgpass). Rotate it if it was real.',
  base_url: 'The API key comes only from COMPOSIO_API_KEY or --api-key-file, never from a file in the repository. Rotate it if it was real.',
} as const;

/** Query parameters that carry credentials. */
const CREDENTIAL_PARAM = /^(?:api[_-]?key|key|token|access[_-]?token|secret|password|auth|x-api-key)$/i;

/**
 * Secrets written into `sessionctl.yaml`: anything that looks like a key or token (the manifest's
 * own `rule/literal-api-key` check, on every value), and credentials inside the two URLs, the
 * service's (a key in the query, a user and password) and the state database's (a password). The
 * file is committed, so each is a `config/secret` error, and each secret is masked in every output.
 */
export function configSecrets(doc: ManifestDocument): { diagnostics: Diagnostic[]; secrets: FoundSecret[] } {
  const found = literalApiKey.check(doc);
  const secrets = secretsOf(found, doc);
  // In the two URLs, the hint says where that credential belongs instead.
  const diagnostics: Diagnostic[] = found.map((d) => ({ ...d, code: 'config/secret', ...(d.pointer === '/base_url' || d.pointer === '/state' ? { hint: hints[d.pointer.slice(1) as 'base_url' | 'state'] } : {}) }));
  const root = asPlainObject(doc.data);
  for (const key of ['base_url', 'state'] as const) {
    const value = root?.[key];
    if (typeof value !== 'string' || doc.scalar(`/${key}`)?.source.includes('${') === true) continue;
    const credential = urlCredential(value, key);
    if (credential === undefined || diagnostics.some((d) => d.pointer === `/${key}`)) continue;
    const range = doc.locate(`/${key}`);
    secrets.push({ file: doc.file, range, secret: credential.secret });
    diagnostics.push({
      code: 'config/secret',
      severity: 'error',
      message: `\`${key}\` holds ${credential.what} (${maskSecret(credential.secret)})`,
      hint: hints[key],
      file: doc.file,
      pointer: `/${key}`,
      range,
    });
  }
  return { diagnostics, secrets };
}

/** The credential a URL carries, if any: a password (or a bare user token), or a key-like query parameter. */
function urlCredential(value: string, key: 'base_url' | 'state'): { what: string; secret: string } | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.password !== '') return { what: 'a password in its URL', secret: decodedOrRaw(url.password) };
  if (key === 'base_url' && url.username !== '') return { what: 'credentials in its URL', secret: decodedOrRaw(url.username) };
  for (const [name, param] of url.searchParams) {
    if (CREDENTIAL_PARAM.test(name) && param !== '') return { what: `a credential in its URL (\`${name}\`)`, secret: param };
  }
  return undefined;
}

/** A URL part as the secret it holds: decoded, or as written when its escapes are malformed (still refused, never thrown). */
function decodedOrRaw(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
