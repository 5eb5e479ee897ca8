import type { ManifestDocument } from '../../manifest/types.js';
import { before, finding, has, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

/**
 * `toolkits` with both `enable` and `disable`. The service's variants are closed objects, so the
 * create would fail; one finding names both keys (at the later one, the earlier as related).
 * The schema keeps a `not` for editors; schema cleanup leaves this case to the rule.
 */
export const allowlistWithDenylist: DocumentRule = {
  code: 'rule/allowlist-with-denylist',
  check(doc: ManifestDocument) {
    const toolkits = asPlainObject(asPlainObject(doc.data)?.['toolkits']);
    if (toolkits === undefined || !has(toolkits, 'enable') || !has(toolkits, 'disable')) return [];
    const [first, second] = before(doc, '/toolkits/enable', '/toolkits/disable') ? ['enable', 'disable'] : ['disable', 'enable'];
    return [
      finding(
        doc,
        this.code,
        `/toolkits/${second}`,
        '`toolkits` sets both `enable` and `disable`; the service accepts only one of them',
        'Keep `enable` for an allowlist (only these toolkits) or `disable` for a denylist (all but these), not both.',
        { key: true, related: [{ pointer: `/toolkits/${first}`, key: true, message: `\`toolkits.${first}\` is set here` }] },
      ),
    ];
  },
};
