/**
 * POST /session (create) and GET /session/{id} (retrieve). Create checks what the schema cannot:
 * toolkit slugs (in `toolkits`, and as keys of `tools`, `auth_configs`, `connected_accounts`) must be
 * in the catalogue (400 `ToolRouterV2_InvalidToolkitSlugs`), tool slugs in `tools.<tk>` must be tools
 * of that toolkit, and `preload.tools` real, non-meta tools (400 `ToolRouterV2_BadRequest`).
 * Connected-account ids are accepted when well formed: the emulator does not model accounts made
 * outside it, so pinning one cannot be checked against its owner.
 */
import type { ApiHandler, ApiRequest, ApiResponse, EmulatorState } from '../context.js';
import { requireSession } from '../context.js';
import type { CreateSessionRequest } from '../../wire/request.js';
import { effectiveConfig, metaToolsFor } from '../effective.js';
import { toolRouterErrors } from '../errors.js';
import { newId, type SessionRecord } from '../store.js';

/** The create/get answer. It shares the stored objects: the server serialises it before anything else runs. */
function sessionBody(s: SessionRecord, state: EmulatorState): Record<string, unknown> {
  return {
    session_id: s.id,
    mcp: { type: 'http', url: `${state.baseUrl}/tool_router/v3/${s.id}/mcp` },
    tool_router_tools: s.tool_router_tools,
    config: s.config,
    config_version: s.config_version,
  };
}

function checkSlugs(req: CreateSessionRequest, state: EmulatorState): void {
  const { catalog } = state;
  const badToolkits = new Set<string>();
  const toolkitErrors: string[] = [];
  const noteToolkit = (slug: string, field: string): void => {
    if (catalog.toolkit(slug) !== undefined) return;
    badToolkits.add(slug);
    toolkitErrors.push(`Error in ${field}: Unknown toolkit '${slug}'`);
  };
  if (req.toolkits !== undefined) {
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
  (req.preload?.tools ?? []).forEach((slug, n) => {
    if (slug.startsWith('COMPOSIO_')) toolErrors.push(`Error in payload.preload.tools[${n}]: Meta tool '${slug}' cannot be preloaded`);
    else if (catalog.tool(slug) === undefined) toolErrors.push(`Error in payload.preload.tools[${n}]: Unknown tool '${slug}'`);
  });
  if (toolErrors.length > 0) throw toolRouterErrors.badRequest(`Invalid tool slugs in the session config`, toolErrors);
}

function localSlug(...parts: string[]): string {
  return `LOCAL_${parts.map((p) => p.toUpperCase().replace(/[^A-Z0-9_]/g, '_')).join('_')}`.slice(0, 60);
}

/** The create-only `experimental` answer: an assistive prompt and the custom tools with their final slugs. */
function experimentalEcho(req: CreateSessionRequest, state: EmulatorState): Record<string, unknown> | undefined {
  const exp = req.experimental;
  if (exp === undefined) return undefined;
  const out: Record<string, unknown> = {};
  const tz = (exp['assistive_prompt_config'] as { user_timezone?: string } | undefined)?.user_timezone;
  out['assistive_prompt'] =
    'You can discover tools with COMPOSIO_SEARCH_TOOLS and run them with COMPOSIO_MULTI_EXECUTE_TOOL.' +
    (tz === undefined ? '' : ` The user's timezone is ${tz}.`);
  const customToolkits = exp['custom_toolkits'] as Array<Record<string, unknown>> | undefined;
  if (customToolkits !== undefined) {
    const clash = customToolkits.map((t) => String(t['slug'])).filter((slug) => state.catalog.toolkit(slug.toLowerCase()) !== undefined);
    if (clash.length > 0) throw toolRouterErrors.badRequest(`Custom toolkit slugs collide with existing toolkits: ${clash.join(', ')}`);
    out['custom_toolkits'] = customToolkits.map((tk) => ({
      ...tk,
      tools: (tk['tools'] as Array<Record<string, unknown>>).map((t) => ({ ...t, slug: localSlug(String(tk['slug']), String(t['slug'])), original_slug: t['slug'] })),
    }));
  }
  const customTools = exp['custom_tools'] as Array<Record<string, unknown>> | undefined;
  if (customTools !== undefined) {
    out['custom_tools'] = customTools.map((t) => ({
      ...t,
      slug: t['extends_toolkit'] === undefined ? localSlug(String(t['slug'])) : localSlug(String(t['extends_toolkit']), String(t['slug'])),
      original_slug: t['slug'],
    }));
  }
  return out;
}

export const createSession: ApiHandler = (req: ApiRequest, state: EmulatorState): ApiResponse => {
  const body = req.body as Record<string, unknown>;
  const create = body as unknown as CreateSessionRequest;
  checkSlugs(create, state);
  const experimental = experimentalEcho(create, state);
  const config = effectiveConfig(create);
  const record: SessionRecord = {
    id: newId('trs_'),
    tenant: req.tenant,
    created_at: new Date().toISOString(),
    config,
    tool_router_tools: metaToolsFor(config),
    config_version: 1,
    mounts: {},
    executions: 0,
  };
  state.store.addSession(record);
  const out = sessionBody(record, state);
  if (experimental !== undefined) out['experimental'] = experimental;
  return { status: 201, body: out };
};

export const getSession: ApiHandler = (req, state) => ({ status: 200, body: sessionBody(requireSession(req, state), state) });
