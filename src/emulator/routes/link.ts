/**
 * POST /session/{id}/link, and the hosted "connect" page it points to. The `redirect_url` is served
 * by the emulator itself (`GET /_emulator/link/{token}`); visiting it completes the flow: the
 * connected account becomes ACTIVE, and toolkits, search and execute see the toolkit connected.
 * Refusals follow the service (api facts §2.5): unknown toolkit, a no-auth toolkit, an account
 * already pinned for the toolkit in the session config, no Composio-managed auth and no auth config.
 */
import type { ServerResponse } from 'node:http';
import type { ApiHandler, EmulatorState } from '../context.js';
import { requireSession } from '../context.js';
import { envelope, httpError, toolRouterErrors } from '../errors.js';
import { sendJson } from '../http.js';
import type { CatalogToolkit } from '../../catalog/types.js';
import { newId, type ConnectionRecord, type SessionRecord } from '../store.js';

/** Starts a link flow for a session's user; throws the service's refusals. */
export function createLinkFor(
  session: SessionRecord,
  toolkit: CatalogToolkit,
  callbackUrl: string | undefined,
  alias: string | undefined,
  state: EmulatorState,
  accountType?: 'PRIVATE' | 'SHARED',
): { link_token: string; redirect_url: string; connected_account_id: string } {
  if (toolkit.no_auth) throw toolRouterErrors.toolkitIsNoAuth(toolkit.slug);
  if ((session.config.connected_accounts[toolkit.slug] ?? []).length > 0) {
    throw toolRouterErrors.badRequest(`A connected account is already pinned for toolkit '${toolkit.slug}' in this session`);
  }
  const authConfigId = session.config.auth_configs[toolkit.slug];
  const managed = toolkit.composio_managed_auth_schemes[0];
  if (authConfigId === undefined && managed === undefined) throw toolRouterErrors.noManagedAuth(toolkit.slug);
  const callback = callbackUrl ?? session.config.manage_connections.callback_url;
  const connection: ConnectionRecord = {
    id: newId('ca_'),
    tenant: session.tenant,
    user_id: session.config.user_id,
    toolkit: toolkit.slug,
    status: 'INITIATED',
    created_at: new Date().toISOString(),
    link_token: newId('lt_', 12),
    ...(callback === undefined ? {} : { callback_url: callback }),
    ...(alias === undefined ? {} : { alias }),
    ...(accountType === undefined ? {} : { account_type: accountType }),
    auth_config: {
      id: authConfigId ?? `ac_managed_${toolkit.slug.replace(/[^A-Za-z0-9_-]/g, '')}`,
      auth_scheme: authConfigId === undefined ? (managed as string) : (toolkit.auth_schemes[0] ?? 'OAUTH2'),
      is_composio_managed: authConfigId === undefined,
    },
  };
  state.store.addConnection(connection);
  return {
    link_token: connection.link_token,
    redirect_url: linkUrl(session, connection.link_token, state),
    connected_account_id: connection.id,
  };
}

/**
 * The hosted connect page: the emulator's own, or `<experimental.link_url_overwrite>/link/<token>`
 * (api facts §3.6), the application's page that hands the user on. The emulator cannot follow the
 * application's page; `POST /_emulator/connections/{id}/approve` completes such a link.
 */
function linkUrl(session: SessionRecord, token: string, state: EmulatorState): string {
  const overwrite = session.experimental_settings?.link_url_overwrite;
  return overwrite === undefined ? `${state.baseUrl}/_emulator/link/${token}` : `${overwrite.replace(/\/+$/, '')}/link/${token}`;
}

interface LinkBody {
  toolkit: string;
  callback_url?: string;
  alias?: string;
  experimental?: { account_type?: 'PRIVATE' | 'SHARED'; acl_config_for_shared?: { allow_all_users?: boolean; allowed_user_ids?: string[]; not_allowed_user_ids?: string[] } };
}

export const createLink: ApiHandler = (req, state) => {
  const session = requireSession(req, state);
  const body = req.body as LinkBody;
  const toolkit = state.catalog.toolkit(body.toolkit);
  if (toolkit === undefined) throw toolRouterErrors.invalidToolkitSlugs([body.toolkit], [`Error in payload.toolkit: Unknown toolkit '${body.toolkit}'`]);
  const accountType = body.experimental?.account_type;
  const link = createLinkFor(session, toolkit, body.callback_url, body.alias, state, accountType);
  if (req.version === '3') return { status: 201, body: link };
  // v3.1 echoes the sharing model (PRIVATE unless asked), with the ACL of a shared account.
  const acl = body.experimental?.acl_config_for_shared;
  const experimental: Record<string, unknown> = { account_type: accountType ?? 'PRIVATE' };
  if ((accountType ?? 'PRIVATE') === 'SHARED') {
    experimental['acl_config_for_shared'] = {
      allow_all_users: acl?.allow_all_users ?? false,
      allowed_user_ids: acl?.allowed_user_ids ?? [],
      not_allowed_user_ids: acl?.not_allowed_user_ids ?? [],
    };
  }
  return { status: 201, body: { ...link, experimental } };
};

/** The hosted connect page: completes the connection and sends the user on. */
export function completeLink(token: string, state: EmulatorState, res: ServerResponse, requestId: string): void {
  const connection = state.store.connectionByToken(token);
  if (connection === undefined) {
    sendJson(res, 404, envelope(httpError(404, 'Unknown or expired link'), requestId), { 'x-request-id': requestId });
    return;
  }
  approveConnection(connection, state);
  if (connection.callback_url !== undefined) {
    let target: URL | undefined;
    try {
      target = new URL(connection.callback_url);
    } catch {
      target = undefined;
    }
    if (target !== undefined && (target.protocol === 'http:' || target.protocol === 'https:')) {
      target.searchParams.set('status', 'success');
      target.searchParams.set('connected_account_id', connection.id);
      res.writeHead(302, { location: target.toString(), 'content-length': 0, 'x-request-id': requestId });
      res.end();
      return;
    }
  }
  sendJson(res, 200, { status: 'ACTIVE', connected_account_id: connection.id, toolkit: connection.toolkit }, { 'x-request-id': requestId });
}

/** Marks a link flow's connection ACTIVE, as finishing the hosted connect page does. */
export function approveConnection(connection: ConnectionRecord, state: EmulatorState): void {
  connection.status = 'ACTIVE';
  connection.updated_at = new Date().toISOString();
  state.store.changed();
}
