/**
 * A session's view of a toolkit's connection: an account pinned in the session config counts as
 * ACTIVE; otherwise the user's newest connection made through a link flow (INITIATED until its
 * redirect URL is visited, then ACTIVE). No-auth toolkits need none.
 */
import type { CatalogToolkit } from '../catalog/types.js';
import type { EmulatorState } from './context.js';
import type { SessionRecord } from './store.js';

export interface ConnectedAccountView {
  id: string;
  user_id: string;
  status: string;
  created_at: string;
  auth_config: { id: string; auth_scheme: string; is_composio_managed: boolean };
}

export function connectionOf(session: SessionRecord, toolkit: CatalogToolkit, state: EmulatorState): ConnectedAccountView | null {
  const pinned = session.config.connected_accounts[toolkit.slug]?.[0];
  if (pinned !== undefined) {
    return {
      id: pinned,
      user_id: session.config.user_id,
      status: 'ACTIVE',
      created_at: session.created_at,
      auth_config: {
        id: session.config.auth_configs[toolkit.slug] ?? `ac_pinned_${toolkit.slug.replace(/[^A-Za-z0-9_-]/g, '')}`,
        auth_scheme: toolkit.auth_schemes[0] ?? 'OAUTH2',
        is_composio_managed: false,
      },
    };
  }
  const c = state.store.connectionFor(session.tenant, session.config.user_id, toolkit.slug);
  if (c === undefined) return null;
  return { id: c.id, user_id: c.user_id, status: c.status, created_at: c.created_at, auth_config: { ...c.auth_config } };
}

/** Whether tools of this toolkit can run now. */
export function isConnected(session: SessionRecord, toolkit: CatalogToolkit, state: EmulatorState): boolean {
  return toolkit.no_auth || connectionOf(session, toolkit, state)?.status === 'ACTIVE';
}
