import type { Diagnostic } from '../../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { KEYWORDS, TOOLKIT_SECTIONS } from '../catalog-slugs.js';
import { intentHint } from '../intent.js';
import { joinPointer } from '../../util/json-pointer.js';
import { finding, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

/**
 * A keyword where a toolkit slug belongs: `tools.enable`, `auth_configs.disable`. The schema
 * accepts it (any slug is a key there), so it would be read as a toolkit named `enable`, and the
 * service would refuse the create. This is nearly always `toolkits.enable` written under the
 * wrong section, or a line that lost its indentation; the hint says which.
 */
export const misplacedKey: DocumentRule = {
  code: 'rule/misplaced-key',
  check(doc: ManifestDocument) {
    const root = asPlainObject(doc.data);
    const out: Diagnostic[] = [];
    for (const section of TOOLKIT_SECTIONS) {
      for (const key of Object.keys(asPlainObject(root?.[section]) ?? {})) {
        if (!KEYWORDS.has(key)) continue;
        const pointer = joinPointer(`/${section}`, key);
        const hint = intentHint(doc, { code: this.code, pointer }) ?? `Move \`${key}\` where it belongs, such as \`toolkits.${key}\`.`;
        out.push(finding(doc, this.code, pointer, `\`${section}.${key}\` is read as a toolkit named \`${key}\``, hint, { key: true }));
      }
    }
    return out;
  },
};
