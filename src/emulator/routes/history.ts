/**
 * GET /session/{id}/config_history (v3.1): every config version, newest first, the current one
 * with `is_current: true` and the time it began, the replaced ones with the time they were
 * replaced (the rc.6 client's description of `created_at`). Paged: `limit` up to 100 (default 20).
 */
import type { ApiHandler } from '../context.js';
import { requireSession } from '../context.js';
import { page } from '../paging.js';
import { configOf } from '../session-view.js';

export const configHistory: ApiHandler = (req, state) => {
  const s = requireSession(req, state);
  const rows = [
    { version: s.config_version, created_at: s.updated_at, config: configOf(s, req.version), is_current: true },
    ...[...s.history].reverse().map((h) => ({ version: h.version, created_at: h.archived_at, config: configOf(h, req.version), is_current: false })),
  ];
  return { status: 200, body: page(rows, req.query as { cursor?: string; limit?: number }, 20, 100) };
};
