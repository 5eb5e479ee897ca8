import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { displayPath, joinPointer } from '../pointer.js';
import { finding, type DocumentRule } from '../rule.js';

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

/** Key names under which a long random value is most likely a secret. */
const secretName = /(?:^|[_-])(?:key|apikey|api_key|token|secret|password|passwd|credential|credentials|auth)$|^(?:key|token|secret|password)/i;

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

/** `****` plus the last four characters: enough to recognise a key, never enough to use it. */
export function maskSecret(secret: string): string {
  return `****${secret.slice(-4)}`;
}

/** Every known format contains one of these; most strings contain none and skip the list. */
const anyKnownMarker = /ak_|AKIA|ASIA|gh[pousr]_|github_pat_|xox|_live_|_test_|sk-|AIza|-----BEGIN|eyJ/;

/** What a string looks like, if it looks like a secret: the label and the matched text. */
export function classifySecret(value: string, keyName: string | undefined): { label: string; secret: string } | undefined {
  // Every format below is at least 15 characters long (a Slack token: `xoxb-` and ten).
  if (value.length < 15) return undefined;
  if (anyKnownMarker.test(value)) for (const { label, pattern } of knownFormats) {
    const m = pattern.exec(value);
    if (m !== null) return { label, secret: label === 'a private key' ? value.trim() : m[0] };
  }
  if (keyName !== undefined && secretName.test(keyName) && value.length >= 20 && !/\s/.test(value) && entropy(value) >= 3.5) {
    return { label: `a secret (a long random value under \`${keyName}\`)`, secret: value };
  }
  return undefined;
}

/**
 * A literal that looks like an API key or other secret. Manifests live in git, so a key written
 * into one is leaked; `${VAR}` references (checked on the source text, before interpolation) are
 * the fix and are never reported. The secret is shown masked, never in full.
 */
export const literalApiKey: DocumentRule = {
  code: 'rule/literal-api-key',
  check(doc: ManifestDocument) {
    const out: Diagnostic[] = [];
    // The pointer is built only for a hit: most manifests have none, and this walks every node.
    const path: Array<string | number> = [];
    const visit = (value: unknown, keyName: string | undefined): void => {
      if (typeof value === 'string') {
        const hit = classifySecret(value, keyName);
        if (hit === undefined) return;
        const pointer = joinPointer('', ...path);
        // Interpolated from the environment: exactly what we recommend.
        const source = doc.scalar(pointer)?.source;
        if (source !== undefined && source.includes('${')) return;
        out.push(
          finding(
            doc,
            this.code,
            pointer,
            `\`${displayPath(pointer, doc.data)}\` holds what looks like ${hit.label} (${maskSecret(hit.secret)})`,
            'Never commit secrets: reference an environment variable instead, such as `${MY_SECRET}`, and rotate this one if it was real.',
          ),
        );
      } else if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          path.push(i);
          visit(value[i], keyName);
          path.pop();
        }
      } else if (value !== null && typeof value === 'object') {
        for (const k of Object.keys(value)) {
          path.push(k);
          visit((value as Record<string, unknown>)[k], k);
          path.pop();
        }
      }
    };
    visit(doc.data, undefined);
    return out;
  },
};
