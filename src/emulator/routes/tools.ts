/** GET /session/{id}/tools: the session's meta tools (and preloaded app tools), alphabetical, in the contract's Tool shape. */
import type { ApiHandler } from '../context.js';
import { requireSession } from '../context.js';
import { appToolView, metaTool, metaToolView } from '../meta-tools.js';

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
  return { status: 200, body: { items } };
};
