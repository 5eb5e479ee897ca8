/**
 * GET /session/{id}/tools: the session's meta tools (and preloaded app tools), alphabetical, in the
 * contract's Tool shape. v3 answers `{items}`; v3.1 pages them (`limit` up to 500, default 100).
 */
import type { ApiHandler } from '../context.js';
import { requireSession } from '../context.js';
import { appToolView, metaTool, metaToolView } from '../meta-tools.js';
import { page } from '../paging.js';

export const listTools: ApiHandler = (req, state) => {
  const session = requireSession(req, state);
  const items: Record<string, unknown>[] = [];
  for (const slug of [...session.tool_router_tools].sort()) {
    const meta = metaTool(slug);
    if (meta !== undefined) {
      items.push(metaToolView(meta));
      continue;
    }
    const tool = state.catalog.tool(slug);
    if (tool !== undefined) items.push(appToolView(tool, state.catalog.toolkit(tool.toolkit)));
  }
  if (req.version === '3') return { status: 200, body: { items } };
  return { status: 200, body: page(items, req.query as { cursor?: string; limit?: number }, 100, 500) };
};
