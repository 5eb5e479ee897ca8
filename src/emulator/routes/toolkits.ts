/**
 * GET /session/{id}/toolkits (api facts §2.7): the session's toolkits (its allowlist, or every
 * catalogue toolkit minus its denylist), or those named by `toolkits=` (which overrides the session's
 * filter; `enabled` then says whether the session allows each), filtered by `search` (slug or name,
 * case-insensitive) and `is_connected=true` (ACTIVE connections only). Paged with `limit` (default 20,
 * at most 50) and an opaque cursor (`paging.ts`).
 */
import type { CatalogToolkit } from '../../catalog/types.js';
import type { ApiHandler } from '../context.js';
import { requireSession } from '../context.js';
import { connectionOf } from '../connections.js';
import { page } from '../paging.js';
import { toolkitAllowed } from '../policy.js';

export const listToolkits: ApiHandler = (req, state) => {
  const session = requireSession(req, state);
  const q = req.query as { cursor?: string; limit?: number; toolkits?: string[] | null; is_connected?: boolean | null; search?: string };
  // Always in catalogue order (by slug), so pages are stable whatever order the lists were given in.
  let base: readonly CatalogToolkit[];
  if (q.toolkits !== undefined && q.toolkits !== null && q.toolkits.length > 0) {
    const wanted = new Set(q.toolkits);
    base = state.catalog.toolkits.filter((t) => wanted.has(t.slug));
  } else {
    base = state.catalog.toolkits.filter((t) => toolkitAllowed(session.config, t.slug));
  }
  const needle = q.search?.toLowerCase();
  const rows = base
    .filter((t) => needle === undefined || t.slug.toLowerCase().includes(needle) || t.name.toLowerCase().includes(needle))
    .map((t) => ({ toolkit: t, connected: connectionOf(session, t, state) }))
    .filter((r) => q.is_connected !== true || r.connected?.status === 'ACTIVE');
  const paged = page(rows, q, 20, 50);
  return {
    status: 200,
    body: {
      ...paged,
      items: paged.items.map(({ toolkit: t, connected }) => ({
        name: t.name,
        slug: t.slug,
        enabled: toolkitAllowed(session.config, t.slug),
        is_no_auth: t.no_auth,
        composio_managed_auth_schemes: [...t.composio_managed_auth_schemes],
        meta: { logo: `https://logos.composio.dev/api/${encodeURIComponent(t.slug)}`, description: t.description ?? `${t.name} toolkit` },
        connected_account: connected,
      })),
    },
  };
};
