/**
 * A session's view of a toolkit's connection: the account pinned in the session config (its own
 * status: INITIATED until its link flow is finished); otherwise the user's newest connection,
 * ACTIVE ones first. No-auth toolkits need none.
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
  // A pin was checked when it was set (`account-pins.ts`); one that is not an account of this
  // user now (a config injected through the admin API) connects nothing.
  const c =
    pinned !== undefined ? state.store.connection(pinned, session.tenant) : state.store.connectionFor(session.tenant, session.config.user_id, toolkit.slug);
  if (c === undefined || c.user_id !== session.config.user_id || c.toolkit !== toolkit.slug) return null;
  return { id: c.id, user_id: c.user_id, status: c.status, created_at: c.created_at, auth_config: { ...c.auth_config } };
}

/** Whether tools of this toolkit can run now. */
export function isConnected(session: SessionRecord, toolkit: CatalogToolkit, state: EmulatorState): boolean {
  return toolkit.no_auth || connectionOf(session, toolkit, state)?.status === 'ACTIVE';
}
