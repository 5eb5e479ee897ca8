import type { ManifestDocument } from '../../manifest/types.js';
import { finding, type DocumentRule } from '../rule.js';
import { asPlainObject } from '../../util/plain-object.js';

/**
 * `manage_connections.enable_wait_for_connections: true` with `manage_connections.enable: false`:
 * the agent gets COMPOSIO_WAIT_FOR_CONNECTIONS (api facts §5.2: it depends on its own flag) but no
 * COMPOSIO_MANAGE_CONNECTIONS to start an auth flow, so there is nothing for it to wait for.
 */
export const waitWithoutManageConnections: DocumentRule = {
  code: 'rule/wait-without-manage-connections',
  check(doc: ManifestDocument) {
    const mc = asPlainObject(asPlainObject(doc.data)?.['manage_connections']);
    if (mc?.['enable'] !== false || mc['enable_wait_for_connections'] !== true) return [];
    return [
      finding(
        doc,
        this.code,
        '/manage_connections/enable_wait_for_connections',
        '`manage_connections.enable_wait_for_connections` is true but connection management is off, so the agent cannot start the connections it would wait for',
        'Remove `enable_wait_for_connections`, or turn connection management on with `manage_connections.enable: true`.',
        { key: true, related: [{ pointer: '/manage_connections/enable', message: 'connection management is turned off here' }] },
      ),
    ];
  },
};
