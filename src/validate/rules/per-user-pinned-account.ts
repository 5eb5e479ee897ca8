import { isPerUser } from '../../manifest/per-user.js';
import type { ManifestDocument } from '../../manifest/types.js';
import { finding, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

/**
 * A per-user manifest that pins connected accounts: an account belongs to one user, so every end
 * user's session would be refused (another user's account) or, worse, act through that one user's
 * account. Each user connects their own; auth configs, which are per project, stay.
 */
export const perUserPinnedAccount: DocumentRule = {
  code: 'rule/per-user-pinned-account',
  check(doc: ManifestDocument) {
    const data = asPlainObject(doc.data);
    if (!isPerUser(data)) return [];
    const accounts = asPlainObject(data?.['connected_accounts']);
    if (accounts === undefined || Object.keys(accounts).length === 0) return [];
    return [
      finding(
        doc,
        this.code,
        '/connected_accounts',
        `a per-user manifest pins connected accounts (${Object.keys(accounts).slice(0, 5).join(', ')}): an account belongs to one user, and every end user's session would use it`,
        'remove `connected_accounts`: each end user connects their own (`manage_connections`); pin accounts only in the manifest of one user',
        { key: true },
      ),
    ];
  },
};
