/**
 * GET /session/{id}/toolkits (api facts §2.7): the session's toolkits (its allowlist, or every
 * catalogue toolkit minus its denylist), or those named by `toolkits=` (which overrides the session's
 * filter; `enabled` then says whether the session allows each), filtered by `search` (slug or name,
 * case-insensitive) and `is_connected=true` (ACTIVE connections only). Paged with `limit` (default 20)
 * and an opaque cursor (base64url of `page:limit`); `next_cursor` is null on the last page.
 */
import type { CatalogToolkit } from '../../catalog/types.js';
import type { ApiHandler } from '../context.js';
import { requireSession } from '../context.js';
import { connectionOf } from '../connections.js';
import { httpError } from '../errors.js';
import { toolkitAllowed } from '../policy.js';

const DEFAULT_LIMIT = 20;

function decodeCursor(cursor: string): { page: number; limit: number } {
  const m = /^(\d+):(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const page = Number(m?.[1]);
  const limit = Number(m?.[2]);
  if (m === null || page < 1 || limit < 1 || limit > 50) throw httpError(400, 'Invalid cursor', ['Error in query.cursor: Invalid cursor']);
  return { page, limit };
}

export const listToolkits: ApiHandler = (req, state) => {
  const session = requireSession(req, state);
  const q = req.query as { cursor?: string; limit?: number; toolkits?: string[] | null; is_connected?: boolean | null; search?: string };
  const { page, limit } = q.cursor !== undefined && q.cursor !== '' ? decodeCursor(q.cursor) : { page: 1, limit: q.limit ?? DEFAULT_LIMIT };
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
  const totalPages = Math.max(1, Math.ceil(rows.length / limit));
  const slice = rows.slice((page - 1) * limit, page * limit);
  return {
    status: 200,
    body: {
      items: slice.map(({ toolkit: t, connected }) => ({
        name: t.name,
        slug: t.slug,
        enabled: toolkitAllowed(session.config, t.slug),
        is_no_auth: t.no_auth,
        composio_managed_auth_schemes: [...t.composio_managed_auth_schemes],
        meta: { logo: `https://logos.composio.dev/api/${encodeURIComponent(t.slug)}`, description: t.description ?? `${t.name} toolkit` },
        connected_account: connected,
      })),
      next_cursor: page < totalPages ? Buffer.from(`${page + 1}:${limit}`).toString('base64url') : null,
      total_pages: totalPages,
      current_page: page,
      total_items: rows.length,
    },
  };
};
