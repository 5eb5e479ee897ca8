import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { dottedPath } from '../pointer.js';
import { joinPointer } from '../../util/json-pointer.js';
import { finding, type DocumentRule } from '../rule.js';
import { classifySecret } from '../../manifest/secret-shapes.js';

export { classifySecret, entropy } from '../../manifest/secret-shapes.js';

/** `****` plus the last four characters: enough to recognise a key, never enough to use it. */
export function maskSecret(secret: string): string {
  return `****${secret.slice(-4)}`;
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
            `\`${dottedPath(pointer, doc.data)}\` holds what looks like ${hit.label} (${maskSecret(hit.secret)})`,
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
