import type { EmulatorState } from '../context.js';
import { newId, type ConnectionRecord } from '../store.js';

type Toolkit = NonNullable<ReturnType<EmulatorState['catalog']['toolkit']>>;

/**
 * Records a connected account made without a link flow (an admin route's), on the toolkit's
 * managed auth config, and answers it as the admin routes do: 201 with its id, toolkit, user and
 * status.
 */
export function addAdminConnection(state: EmulatorState, toolkit: Toolkit, owner: { id?: string; tenant: string; userId: string; status: ConnectionRecord['status'] }): { status: 201; body: unknown } {
  const connection: ConnectionRecord = {
    id: owner.id ?? newId('ca_'),
    tenant: owner.tenant,
    user_id: owner.userId,
    toolkit: toolkit.slug,
    status: owner.status,
    created_at: new Date().toISOString(),
    link_token: newId('lt_', 12),
    auth_config: {
      id: `ac_managed_${toolkit.slug.replace(/[^A-Za-z0-9_-]/g, '')}`,
      auth_scheme: toolkit.composio_managed_auth_schemes[0] ?? toolkit.auth_schemes[0] ?? 'OAUTH2',
      is_composio_managed: toolkit.composio_managed_auth_schemes.length > 0,
    },
  };
  state.store.addConnection(connection);
  return { status: 201, body: { connected_account_id: connection.id, toolkit: connection.toolkit, user_id: connection.user_id, status: connection.status } };
}
