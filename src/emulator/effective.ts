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
 *   `multi_account.*`, `preload.tools`, `search.enable`, `execute.enable_multi_execute`.
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
 *   v3.1 only (§3.1): `search` and `execute` are always echoed (`{enable: true}`,
 *   `{enable_multi_execute: true}` where not given); v3 ignores both keys in a request.
 * - One store serves both versions, so the stored config is v3.1's: connected accounts as lists
 *   (a v3 request's single id becomes a list of one), `preload.tools` a list or `"all"`. What each
 *   version answers is `configView`.
 * - `config_version` starts at 1 and is bumped by each PATCH.
 * - Meta tools (§5.2), in this order: COMPOSIO_SEARCH_TOOLS unless `search.enable` is false,
 *   COMPOSIO_GET_TOOL_SCHEMAS always, COMPOSIO_MULTI_EXECUTE_TOOL unless
 *   `execute.enable_multi_execute` is false; COMPOSIO_MANAGE_CONNECTIONS when
 *   `manage_connections.enabled`; COMPOSIO_WAIT_FOR_CONNECTIONS when `enable_wait_for_connections`
 *   (independently of `enabled`, as the facts state it); COMPOSIO_REMOTE_WORKBENCH and
 *   COMPOSIO_REMOTE_BASH_TOOL when `workbench.enable`; then the preloaded tool slugs in the order
 *   given (`"all"` is expanded by the route, which knows the catalogue).
 */
import type { ApiVersion } from '../wire/json.js';
import type { CreateSessionRequest, CreateSessionRequestV31, ManageConnectionsRequest, MultiAccountRequest, TagFilterRequest, ToolFilterRequest, WorkbenchRequest } from '../wire/request.js';
import type { SessionConfig, TagFilter, ToolFilter } from '../wire/session.js';

type ManageConnections = { enabled: boolean; enable_wait_for_connections: boolean; enable_connection_removal: boolean; callback_url?: string };
type Workbench = { enable: boolean; proxy_execution_enabled: boolean; tool_execution_enabled: boolean; sandbox_size: string; auto_offload_threshold?: number };

/**
 * The effective config as the emulator stores it: the wire type in its v3.1 shapes, with every
 * block that the service always echoes present and filled with its defaults.
 */
export type EffectiveConfig = SessionConfig & {
  auth_configs: Record<string, string>;
  connected_accounts: Record<string, string[]>;
  manage_connections: ManageConnections;
  tools: Record<string, ToolFilter>;
  workbench: Workbench;
  preload: { tools: string[] | 'all' };
  search: { enable: boolean };
  execute: { enable_multi_execute: boolean };
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

export function tagFilter(req: TagFilterRequest): TagFilter {
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

export function toolFilters(req: Record<string, ToolFilterRequest>): Record<string, ToolFilter> {
  return Object.fromEntries(Object.entries(req).map(([tk, f]) => [tk, toolFilter(f)]));
}

export function toolkitFilter(req: { enable: string[] } | { disable: string[] }): NonNullable<SessionConfig['toolkits']> {
  return 'enable' in req ? { enabled: [...req.enable] } : { disabled: [...req.disable] };
}

/** A v3 single id or a v3.1 list, stored as a list. */
export function accountLists(req: Record<string, string | string[]>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(req).map(([tk, ids]) => [tk, Array.isArray(ids) ? [...ids] : [ids]]));
}

/** Request field -> [response field, default]; a default of `undefined` means "echoed only when given". */
const MANAGE_CONNECTION_FIELDS: Record<string, [string, unknown]> = {
  enable: ['enabled', true],
  callback_url: ['callback_url', undefined],
  enable_wait_for_connections: ['enable_wait_for_connections', false],
  enable_connection_removal: ['enable_connection_removal', true],
};
const WORKBENCH_FIELDS: Record<string, [string, unknown]> = {
  enable: ['enable', true],
  enable_proxy_execution: ['proxy_execution_enabled', true],
  enable_tool_execution: ['tool_execution_enabled', true],
  sandbox_size: ['sandbox_size', 'standard'],
  auto_offload_threshold: ['auto_offload_threshold', undefined],
};

/**
 * A block in response spelling: `current` with each field that `req` supplies renamed and set; a
 * `null` field goes back to its default (or away, when it has none).
 */
function mergeBlock(current: Record<string, unknown>, req: Record<string, unknown>, fields: Record<string, [string, unknown]>): Record<string, unknown> {
  const out = { ...current };
  for (const [name, value] of Object.entries(req)) {
    const field = fields[name];
    if (field === undefined || value === undefined) continue;
    const [to, fallback] = field;
    if (value !== null) out[to] = value;
    else if (fallback === undefined) delete out[to];
    else out[to] = fallback;
  }
  return out;
}

function defaults(fields: Record<string, [string, unknown]>): Record<string, unknown> {
  return Object.fromEntries(Object.values(fields).filter(([, v]) => v !== undefined));
}

export function manageConnections(current: ManageConnections | undefined, req: ManageConnectionsRequest | null): ManageConnections {
  return mergeBlock(current ?? defaults(MANAGE_CONNECTION_FIELDS), (req ?? {}) as Record<string, unknown>, MANAGE_CONNECTION_FIELDS) as ManageConnections;
}

export function workbench(current: Workbench | undefined, req: WorkbenchRequest | null): Workbench {
  return mergeBlock(current ?? defaults(WORKBENCH_FIELDS), (req ?? {}) as Record<string, unknown>, WORKBENCH_FIELDS) as Workbench;
}

export function multiAccount(req: MultiAccountRequest): NonNullable<SessionConfig['multi_account']> {
  const out = { ...req };
  if (req.enable === true && req.max_accounts_per_toolkit === undefined) out.max_accounts_per_toolkit = 5;
  return out;
}

/** The stored (v3.1-shaped) config for a create request of either version. */
export function storedConfig(req: CreateSessionRequest | CreateSessionRequestV31, version: ApiVersion = '3'): EffectiveConfig {
  const v31 = version === '3.1' ? (req as CreateSessionRequestV31) : undefined;
  const config: EffectiveConfig = {
    user_id: req.user_id,
    auth_configs: { ...(req.auth_configs ?? {}) },
    connected_accounts: accountLists(req.connected_accounts ?? {}),
    manage_connections: manageConnections(undefined, req.manage_connections ?? null),
    tools: toolFilters(req.tools ?? {}),
    workbench: workbench(undefined, req.workbench ?? null),
    preload: { tools: req.preload?.tools === 'all' ? 'all' : [...(req.preload?.tools ?? [])] },
    search: { enable: v31?.search?.enable ?? true },
    execute: { enable_multi_execute: v31?.execute?.enable_multi_execute ?? true },
  };
  if (req.toolkits !== undefined) config.toolkits = toolkitFilter(req.toolkits);
  if (req.tags !== undefined) config.tags = tagFilter(req.tags);
  if (req.multi_account !== undefined) config.multi_account = multiAccount(req.multi_account);
  return config;
}

/**
 * What a version answers for a stored config: v3.1 as stored; v3 with one connected-account id per
 * toolkit (the first), `preload.tools` as the list of preloaded tools, and no `search` / `execute`.
 */
export function configView(config: EffectiveConfig, version: ApiVersion, preloaded: readonly string[] = []): SessionConfig {
  if (version === '3.1') return config;
  // Key order kept, so answers read the same as before v3.1 existed. Blocks can be missing: the
  // admin API's drift injection may remove any of them.
  const view: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (key === 'search' || key === 'execute') continue;
    if (key === 'connected_accounts') {
      view[key] = Object.fromEntries(Object.entries(config.connected_accounts).flatMap(([tk, ids]) => (ids[0] === undefined ? [] : [[tk, ids[0]]])));
    } else if (key === 'preload') {
      view[key] = { tools: config.preload.tools === 'all' ? [...preloaded] : config.preload.tools };
    } else {
      view[key] = value;
    }
  }
  return view as SessionConfig;
}

/** The v3 answer for a v3 create request (what sessionctl's own expectedConfig is tested against). */
export function effectiveConfig(req: CreateSessionRequest): SessionConfig {
  return configView(storedConfig(req, '3'), '3');
}

/** `tool_router_tools` for an effective config (§5.2); `preloaded` replaces a `"all"` preload. */
export function metaToolsFor(config: SessionConfig, preloaded?: readonly string[]): string[] {
  const tools: string[] = [];
  if (config.search?.enable !== false) tools.push(META_TOOLS.search);
  tools.push(META_TOOLS.schemas);
  if (config.execute?.enable_multi_execute !== false) tools.push(META_TOOLS.multiExecute);
  if (config.manage_connections?.enabled !== false) tools.push(META_TOOLS.manageConnections);
  if (config.manage_connections?.enable_wait_for_connections === true) tools.push(META_TOOLS.waitForConnections);
  if (config.workbench?.enable !== false) tools.push(META_TOOLS.workbench, META_TOOLS.bash);
  const preload = config.preload?.tools ?? [];
  for (const slug of preload === 'all' ? (preloaded ?? []) : preload) if (!tools.includes(slug)) tools.push(slug);
  return tools;
}
