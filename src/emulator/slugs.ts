/**
 * What the contract's schemas cannot check in a session config (create and PATCH): toolkit slugs (in
 * `toolkits`, and as keys of `tools`, `auth_configs`, `connected_accounts`) must be in the catalogue
 * (400 `ToolRouterV2_InvalidToolkitSlugs`); tool slugs in `tools.<tk>` must be tools of that toolkit,
 * and `preload.tools` real, non-meta tools (400 `ToolRouterV2_BadRequest`). Rules of the config as
 * a whole (preload against the filters, multi-account) are `config-rules.ts`. Connected-account ids are accepted when well formed: the
 * emulator does not model accounts made outside it, so pinning one cannot be checked against its owner.
 */
import type { UpdateSessionRequest } from '../wire/request.js';
import type { EmulatorState } from './context.js';
import { toolRouterErrors } from './errors.js';

/** The config keys both checks read: a create body's, or the non-null keys of a PATCH. */
type ConfigKeys = Pick<UpdateSessionRequest, 'toolkits' | 'tools' | 'auth_configs' | 'connected_accounts' | 'preload'>;

export function checkSlugs(req: ConfigKeys, state: EmulatorState): void {
  const { catalog } = state;
  const badToolkits = new Set<string>();
  const toolkitErrors: string[] = [];
  const noteToolkit = (slug: string, field: string): void => {
    if (catalog.toolkit(slug) !== undefined) return;
    badToolkits.add(slug);
    toolkitErrors.push(`Error in ${field}: Unknown toolkit '${slug}'`);
  };
  if (req.toolkits !== undefined && req.toolkits !== null) {
    const [key, list] = 'enable' in req.toolkits ? ['enable', req.toolkits.enable] : ['disable', req.toolkits.disable];
    list.forEach((slug, n) => noteToolkit(slug, `payload.toolkits.${key}[${n}]`));
  }
  for (const field of ['tools', 'auth_configs', 'connected_accounts'] as const) {
    for (const slug of Object.keys(req[field] ?? {})) noteToolkit(slug, `payload.${field}.${slug}`);
  }
  if (badToolkits.size > 0) throw toolRouterErrors.invalidToolkitSlugs([...badToolkits], toolkitErrors);

  const toolErrors: string[] = [];
  for (const [tk, filter] of Object.entries(req.tools ?? {})) {
    const [key, list] = 'enable' in filter ? ['enable', filter.enable] : 'disable' in filter ? ['disable', filter.disable] : ['', []];
    list.forEach((slug, n) => {
      if (catalog.tool(slug)?.toolkit !== tk) toolErrors.push(`Error in payload.tools.${tk}.${key}[${n}]: Unknown tool '${slug}' for toolkit '${tk}'`);
    });
  }
  const preload = req.preload?.tools;
  if (Array.isArray(preload)) {
    preload.forEach((slug, n) => {
      if (slug.startsWith('COMPOSIO_')) toolErrors.push(`Error in payload.preload.tools[${n}]: Meta tool '${slug}' cannot be preloaded`);
      else if (catalog.tool(slug) === undefined) toolErrors.push(`Error in payload.preload.tools[${n}]: Unknown tool '${slug}'`);
    });
  } else if (preload !== undefined && preload !== 'all') {
    toolErrors.push(`Error in payload.preload.tools: Expected an array of tool slugs or "all", received '${preload}'`);
  }
  if (toolErrors.length > 0) throw toolRouterErrors.badRequest(`Invalid tool slugs in the session config`, toolErrors);
}
