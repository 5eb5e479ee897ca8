/**
 * What a secret looks like: the formats real keys and tokens carry, and the names under which a
 * value is a secret. One list for the `literal-api-key` rule (a literal in a manifest), the
 * loader's sensitive values (`${VAR}` expanded from a secret) and `export` (a value written back
 * to a file meant for git).
 */

/** Well-known secret formats: a prefix that real keys carry, with the rest of the shape. */
const knownFormats: Array<{ label: string; pattern: RegExp }> = [
  { label: 'a Composio API key', pattern: /\b(?:ak|uak)_[A-Za-z0-9_-]{16,}/ },
  { label: 'an AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/ },
  { label: 'a GitHub token', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{40,}/ },
  { label: 'a Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/ },
  { label: 'a Stripe secret key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { label: 'an OpenAI-style API key', pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/ },
  { label: 'a Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/ },
  { label: 'a private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { label: 'a JSON Web Token', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/ },
];

/**
 * Names under which a value is a secret (case-insensitive): `*_KEY`, `*_TOKEN`, `*_SECRET`,
 * `*_AUTH`, `*PASSWORD*`, `*PASSWD*`, `*CREDENTIAL*`, and names that start with `KEY`, `TOKEN`,
 * `SECRET` or `PASSWORD`. The same test serves manifest keys and environment variable names.
 */
const secretName = /(?:^|[_-])(?:key|apikey|api_key|token|secret|auth)$|^(?:key|token|secret|password)|password|passwd|credential/i;

/** Whether a key or variable name says its value is a secret (`HOOK_TOKEN`, `DB_PASSWORD_FILE`). */
export function isSecretName(name: string): boolean {
  return secretName.test(name);
}

/** Shannon entropy in bits per character. Random base62 runs at ~5.9; English prose at ~4. */
export function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Every known format contains one of these; most strings contain none and skip the list. */
const anyKnownMarker = /ak_|AKIA|ASIA|gh[pousr]_|github_pat_|xox|_live_|_test_|sk-|AIza|-----BEGIN|eyJ/;

/** The known format a text contains, if any: its label and the matched text. */
export function knownSecretFormat(value: string): { label: string; secret: string } | undefined {
  // Every format below is at least 15 characters long (a Slack token: `xoxb-` and ten).
  if (value.length < 15 || !anyKnownMarker.test(value)) return undefined;
  for (const { label, pattern } of knownFormats) {
    const m = pattern.exec(value);
    if (m !== null) return { label, secret: label === 'a private key' ? value.trim() : m[0] };
  }
  return undefined;
}

/**
 * What a literal value looks like, if it looks like a secret: a known format, or a long random
 * value under a secret's name. The label and the matched text.
 */
export function classifySecret(value: string, keyName: string | undefined): { label: string; secret: string } | undefined {
  const known = knownSecretFormat(value);
  if (known !== undefined) return known;
  if (keyName !== undefined && isSecretName(keyName) && value.length >= 20 && !/\s/.test(value) && entropy(value) >= 3.5) {
    return { label: `a secret (a long random value under \`${keyName}\`)`, secret: value };
  }
  return undefined;
}

/**
 * Whether a value found under `key` should be kept out of a file meant for git (`export`): it has
 * a known secret format, or the key's name says it is a secret. Empty values never are.
 */
export function isSecretLooking(key: string | undefined, value: string): boolean {
  if (value === '') return false;
  return knownSecretFormat(value) !== undefined || (key !== undefined && isSecretName(key));
}
