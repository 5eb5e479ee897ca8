/**
 * Request and response shapes of the 13 Tool Router v3 endpoints, from the contract
 * (`contract/tool-router-v3.openapi.json`) and the API facts (`api/tool-router-v3.md`).
 *
 * Responses are decoded leniently: the service has grown fields the 13-endpoint contract lacks
 * (`config_version`, `preload`, `warnings`, ...), so every response object keeps unknown keys
 * (the `Open` index signature) and nothing here is checked at run time beyond "it is a JSON object".
 * Requests are typed from the contract but also open, so newer request fields can be passed through.
 */

/** Unknown keys are kept and never fatal. */
export interface Open {
  [key: string]: unknown;
}

export type Tag = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';

/** A tag filter in request spelling: a list is the enable list. */
export type TagFilterRequest = Tag[] | { enable?: Tag[]; disable?: Tag[] };

/** `tools.<toolkit>` in request spelling: exactly one of enable, disable or tags. */
export type ToolFilterRequest = { enable: string[] } | { disable: string[] } | { tags: TagFilterRequest };

/**
 * POST /session request body (facts §3). Only `user_id` is required. The fields of the 13-endpoint
 * spec, plus the later v3 fields the service accepts on the same route (`enable_connection_removal`,
 * `multi_account`, `preload`, `workbench.sandbox_size`, `workbench.enable_tool_execution`).
 */
export interface CreateSessionFields {
  user_id: string;
  toolkits?: { enable: string[] } | { disable: string[] };
  auth_configs?: Record<string, string>;
  connected_accounts?: Record<string, string>;
  manage_connections?: {
    enable?: boolean | null;
    callback_url?: string;
    enable_wait_for_connections?: boolean | null;
    enable_connection_removal?: boolean | null;
  };
  tools?: Record<string, ToolFilterRequest>;
  tags?: TagFilterRequest;
  workbench?: {
    enable?: boolean;
    enable_proxy_execution?: boolean;
    auto_offload_threshold?: number;
    sandbox_size?: string;
    enable_tool_execution?: boolean;
  };
  multi_account?: { enable?: boolean; max_accounts_per_toolkit?: number; require_explicit_selection?: boolean };
  preload?: { tools?: string[] };
  experimental?: Open;
}

/** The create body as sent: the typed fields, and any newer field passed through. */
export interface CreateSessionRequest extends CreateSessionFields, Open {}

/** The effective config in response spelling (facts §4.1). */
export interface SessionConfig extends Open {
  user_id: string;
  toolkits?: { enabled: string[] } | { disabled: string[] };
  auth_configs?: Record<string, string>;
  connected_accounts?: Record<string, string>;
  manage_connections?: Open & {
    enabled?: boolean;
    callback_url?: string;
    enable_wait_for_connections?: boolean;
    enable_connection_removal?: boolean;
  };
  tools?: Record<string, Open>;
  tags?: { enabled?: Tag[]; disabled?: Tag[] };
  workbench?: Open & { enable?: boolean; proxy_execution_enabled?: boolean; auto_offload_threshold?: number };
  multi_account?: Open;
}

/** Body of 201 from create and 200 from GET /session/{id}. */
export interface Session extends Open {
  session_id: string;
  mcp: Open & { type: 'http'; url: string };
  tool_router_tools: string[];
  config: SessionConfig;
  experimental?: Open & { assistive_prompt?: string };
  config_version?: number;
}

export interface ExecuteRequest extends Open {
  tool_slug: string;
  arguments?: Record<string, unknown>;
  account?: string;
}

export type MetaToolSlug =
  | 'COMPOSIO_SEARCH_TOOLS'
  | 'COMPOSIO_MULTI_EXECUTE_TOOL'
  | 'COMPOSIO_MANAGE_CONNECTIONS'
  | 'COMPOSIO_WAIT_FOR_CONNECTIONS'
  | 'COMPOSIO_REMOTE_WORKBENCH'
  | 'COMPOSIO_REMOTE_BASH_TOOL'
  | 'COMPOSIO_GET_TOOL_SCHEMAS'
  | 'COMPOSIO_UPSERT_RECIPE'
  | 'COMPOSIO_GET_RECIPE';

export interface ExecuteMetaRequest extends Open {
  slug: MetaToolSlug | (string & {});
  arguments?: Record<string, unknown>;
}

/** execute and execute_meta: a failed tool run is still HTTP 200, with `error` set (facts §9.10). */
export interface ExecuteResult extends Open {
  data: Record<string, unknown>;
  error: string | null;
  log_id: string;
}

export interface LinkRequest extends Open {
  toolkit: string;
  callback_url?: string;
  alias?: string;
}

export interface LinkResult extends Open {
  link_token: string;
  redirect_url: string;
  connected_account_id: string;
}

export interface ProxyExecuteRequest extends Open {
  toolkit_slug: string;
  endpoint: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH' | 'HEAD';
  body?: unknown;
  binary_body?: { url: string; content_type?: string } | { base64: string; content_type?: string };
  parameters?: Array<{ name: string; value: string; type: 'header' | 'query' }>;
}

export interface ProxyExecuteResult extends Open {
  status: number;
  data?: unknown;
  headers?: Record<string, string>;
  binary_data?: Open & { url: string; content_type: string; size: number; expires_at?: string };
}

export interface ListToolkitsQuery {
  cursor?: string;
  limit?: number;
  /** Sent comma-joined in one parameter (facts §1). */
  toolkits?: string[];
  is_connected?: boolean;
  search?: string;
}

export interface ToolkitItem extends Open {
  name: string;
  slug: string;
  enabled: boolean;
  is_no_auth: boolean;
  composio_managed_auth_schemes: string[];
  meta: Open & { logo?: string; description?: string };
  connected_account: (Open & { id: string; status: string }) | null;
}

export interface ToolkitList extends Open {
  items: ToolkitItem[];
  next_cursor?: string | null;
  total_pages: number;
  current_page: number;
  total_items: number;
}

export interface Tool extends Open {
  slug: string;
  name: string;
  description: string;
  toolkit: Open & { slug: string; name: string };
  input_parameters: Open;
  output_parameters: Open;
  tags: string[];
}

export interface ToolList extends Open {
  items: Tool[];
}

export interface SearchRequest extends Open {
  queries: Array<{ use_case: string; known_fields?: string }>;
  model?: string;
}

export interface SearchResult extends Open {
  success: boolean;
  error: string | null;
  results: Array<Open & { index: number; use_case: string; primary_tool_slugs: string[]; related_tool_slugs: string[]; toolkits: string[] }>;
  toolkit_connection_statuses: Array<Open & { toolkit: string; has_active_connection: boolean }>;
  tool_schemas: Record<string, Open>;
  time_info: Open;
  session: Open & { id: string };
  next_steps_guidance: string[];
}

export interface ListMountItemsQuery {
  cursor?: string;
  limit?: number;
  mount_relative_prefix?: string;
}

export interface MountItem extends Open {
  mount_relative_path: string;
  sandbox_mount_prefix: string;
  size: number;
  last_modified: string;
}

export interface MountItemList extends Open {
  items: MountItem[];
  next_cursor?: string;
}

export interface MountDownloadUrl extends Open {
  download_url: string;
  mount_relative_path: string;
  sandbox_mount_prefix: string;
  expires_at: string;
}

export interface MountUploadUrl extends Open {
  upload_url: string;
  mount_relative_path: string;
  sandbox_mount_prefix: string;
  expires_at: string;
}

export interface MountDeleteResult extends Open {
  mount_relative_path: string;
  sandbox_mount_prefix: string;
}
