import type { ManifestDocument } from '../../manifest/types.js';
import { finding, has, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

/** `toolkits: []` or `toolkits.enable: []`: an allowlist of nothing leaves the session no toolkit. */
export const emptyAllowlist: DocumentRule = {
  code: 'rule/empty-allowlist',
  check(doc: ManifestDocument) {
    const raw = asPlainObject(doc.data)?.['toolkits'];
    const obj = asPlainObject(raw);
    const pointer = Array.isArray(raw) ? '/toolkits' : obj !== undefined && has(obj, 'enable') && Array.isArray(obj['enable']) ? '/toolkits/enable' : undefined;
    const list = pointer === '/toolkits' ? raw : obj?.['enable'];
    if (pointer === undefined || !Array.isArray(list) || list.length > 0) return [];
    return [
      finding(
        doc,
        this.code,
        pointer,
        'the toolkit allowlist is empty, so the session can use no toolkit at all',
        'List the toolkits the session needs, or remove `toolkits` to allow every toolkit.',
      ),
    ];
  },
};
