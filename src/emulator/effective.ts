/**
 * Create request (request spelling) -> effective config (response spelling) + meta tools.
 *
 * Pure, and written from `api/tool-router-v3.md` literally, because sessionctl's own
 * `expectedConfig` is written independently from the same facts and the two are tested against each
 * other over HTTP. Choices, each from the facts:
 *
 * - Renames (§4.2): `toolkits.enable|disable` -> `enabled|disabled`; the same inside `tools.<tk>`;
 *   a tag array (global or per toolkit) -> `{enabled: [...]}`; tag objects `enable|disable` ->
 *   `enabled|disabled`; `manage_connections.enable` -> `enabled`; `workbench.enable_proxy_execution`
 *   -> `proxy_execution_enabled`; `workbench.enable_tool_execution` -> `tool_execution_enabled`.
 *   Not renamed: `workbench.enable`, `manage_connections.enable_wait_for_connections` and
 *   `enable_connection_removal`, `callback_url`, `auth_configs`, `connected_accounts`,
 *   `multi_account.*`, `preload.tools`.
 * - Defaults (§4.3, and §4.1's published example response):
 *   `manage_connections` is always echoed in full: `{enabled: true, enable_wait_for_connections: false,
 *   enable_connection_removal: true}` where not given (a `null` counts as not given), plus
 *   `callback_url` only when given.
 *   `workbench` is always echoed: `{enable: true, proxy_execution_enabled: true,
 *   tool_execution_enabled: true, sandbox_size: "standard"}` where not given, plus
 *   `auto_offload_threshold` only when given (its default is "chosen automatically").
 *   `auth_configs`, `connected_accounts` and `tools` are echoed as given or `{}`.
 *   `preload` is always `{tools: [...]}` (`[]` when not given).
 *   `toolkits` and `tags` are echoed only when given (omitted toolkits = all toolkits; omitted tags =
 *   no filter). Lists keep the order they were sent in.
 *   `multi_account` is echoed only when given; `max_accounts_per_toolkit` defaults to 5 once
 *   `enable` is true.
 * - `config_version` starts at 1 (it is bumped by PATCH, which the 13-endpoint surface lacks).
 * - Meta tools (§5.2), in this order: COMPOSIO_SEARCH_TOOLS, COMPOSIO_GET_TOOL_SCHEMAS,
 *   COMPOSIO_MULTI_EXECUTE_TOOL always; COMPOSIO_MANAGE_CONNECTIONS when `manage_connections.enabled`;
 *   COMPOSIO_WAIT_FOR_CONNECTIONS when `enable_wait_for_connections` (independently of `enabled`,
 *   as the facts state it); COMPOSIO_REMOTE_WORKBENCH and COMPOSIO_REMOTE_BASH_TOOL when
 *   `workbench.enable`; then the preloaded tool slugs in the order given.
 */
import type { CreateSessionRequest, TagFilterRequest, ToolFilterRequest } from '../wire/request.js';
import type { SessionConfig, TagFilter, ToolFilter } from '../wire/session.js';

/**
 * The effective config as the emulator stores it: the wire type, with every block that the service
 * always echoes present and filled with its defaults.
 */
export type EffectiveConfig = SessionConfig & {
  auth_configs: Record<string, string>;
  connected_accounts: Record<string, string>;
  manage_connections: NonNullable<SessionConfig['manage_connections']> & {
    enabled: boolean;
    enable_wait_for_connections: boolean;
    enable_connection_removal: boolean;
  };
  tools: Record<string, ToolFilter>;
  workbench: NonNullable<SessionConfig['workbench']> & {
    enable: boolean;
    proxy_execution_enabled: boolean;
    tool_execution_enabled: boolean;
    sandbox_size: string;
  };
  preload: { tools: string[] };
};

export const META_TOOLS = {
  search: 'COMPOSIO_SEARCH_TOOLS',
  schemas: 'COMPOSIO_GET_TOOL_SCHEMAS',
  multiExecute: 'COMPOSIO_MULTI_EXECUTE_TOOL',
  manageConnections: 'COMPOSIO_MANAGE_CONNECTIONS',
  waitForConnections: 'COMPOSIO_WAIT_FOR_CONNECTIONS',
  workbench: 'COMPOSIO_REMOTE_WORKBENCH',
  bash: 'COMPOSIO_REMOTE_BASH_TOOL',
} as const;

function tagFilter(req: TagFilterRequest): TagFilter {
  if (Array.isArray(req)) return { enabled: [...req] };
  const out: TagFilter = {};
  if (req.enable !== undefined) out.enabled = [...req.enable];
  if (req.disable !== undefined) out.disabled = [...req.disable];
  return out;
}

function toolFilter(req: ToolFilterRequest): ToolFilter {
  if ('enable' in req) return { enabled: [...req.enable] };
  if ('disable' in req) return { disabled: [...req.disable] };
  return { tags: tagFilter(req.tags) };
}

/** The effective config the service answers with for `req`. */
export function effectiveConfig(req: CreateSessionRequest): EffectiveConfig {
  const mc = req.manage_connections ?? {};
  const wb = req.workbench ?? {};
  const config: EffectiveConfig = {
    user_id: req.user_id,
    auth_configs: { ...(req.auth_configs ?? {}) },
    connected_accounts: { ...(req.connected_accounts ?? {}) },
    manage_connections: {
      enabled: mc.enable ?? true,
      ...(mc.callback_url === undefined || mc.callback_url === null ? {} : { callback_url: mc.callback_url }),
      enable_wait_for_connections: mc.enable_wait_for_connections ?? false,
      enable_connection_removal: mc.enable_connection_removal ?? true,
    },
    tools: Object.fromEntries(Object.entries(req.tools ?? {}).map(([tk, f]) => [tk, toolFilter(f)])),
    workbench: {
      enable: wb.enable ?? true,
      proxy_execution_enabled: wb.enable_proxy_execution ?? true,
      tool_execution_enabled: wb.enable_tool_execution ?? true,
      sandbox_size: wb.sandbox_size ?? 'standard',
      ...(wb.auto_offload_threshold === undefined ? {} : { auto_offload_threshold: wb.auto_offload_threshold }),
    },
    preload: { tools: [...(req.preload?.tools ?? [])] },
  };
  if (req.toolkits !== undefined) {
    config.toolkits = 'enable' in req.toolkits ? { enabled: [...req.toolkits.enable] } : { disabled: [...req.toolkits.disable] };
  }
  if (req.tags !== undefined) config.tags = tagFilter(req.tags);
  if (req.multi_account !== undefined) {
    const ma = req.multi_account;
    config.multi_account = { ...ma };
    if (ma.enable === true && ma.max_accounts_per_toolkit === undefined) config.multi_account.max_accounts_per_toolkit = 5;
  }
  return config;
}

/** `tool_router_tools` for an effective config (§5.2). */
export function metaToolsFor(config: EffectiveConfig): string[] {
  const tools: string[] = [META_TOOLS.search, META_TOOLS.schemas, META_TOOLS.multiExecute];
  if (config.manage_connections.enabled) tools.push(META_TOOLS.manageConnections);
  if (config.manage_connections.enable_wait_for_connections) tools.push(META_TOOLS.waitForConnections);
  if (config.workbench.enable) tools.push(META_TOOLS.workbench, META_TOOLS.bash);
  for (const slug of config.preload.tools) if (!tools.includes(slug)) tools.push(slug);
  return tools;
}
