/**
 * GET /api/v3.1/connected_accounts/{id}: the account a link flow made, as the SDK's
 * `waitForConnection()` polls it until ACTIVE (v3.1 facts). Only accounts of the caller's key; the
 * emulator keeps no credentials, so `state.val` carries the status and placeholder values where
 * the client's types require a field (an OAuth2 access token), never a secret.
 */
import type { ApiHandler } from '../context.js';
import { httpError } from '../errors.js';
import type { ConnectionRecord } from '../store.js';

function stateOf(c: ConnectionRecord): Record<string, unknown> {
  const scheme = c.auth_config.auth_scheme;
  const val: Record<string, unknown> = { status: c.status };
  if (c.status === 'ACTIVE' && scheme === 'OAUTH2') val['access_token'] = 'emulated';
  if (c.status === 'INITIATED' && scheme === 'OAUTH2') val['redirectUrl'] = '';
  return { authScheme: scheme, val };
}

export const getConnectedAccount: ApiHandler = (req, state) => {
  const id = req.params.nanoid ?? '';
  const c = state.store.connections.get(id);
  if (c === undefined || c.tenant !== req.tenant) throw httpError(404, `Connected account '${id}' not found`);
  return {
    status: 200,
    body: {
      id: c.id,
      word_id: null,
      alias: c.alias ?? null,
      user_id: c.user_id,
      status: c.status,
      status_reason: null,
      is_disabled: false,
      created_at: c.created_at,
      updated_at: c.updated_at ?? c.created_at,
      toolkit: { slug: c.toolkit },
      auth_config: { ...c.auth_config, is_disabled: false },
      state: stateOf(c),
      data: {},
      params: {},
      experimental: { account_type: c.account_type ?? 'PRIVATE' },
    },
  };
};
