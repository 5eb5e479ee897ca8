/**
 * Requests and answers of the session's operations (api facts §2.2-2.13, §7): execute, meta tools,
 * link, proxy, toolkits, tools, search, mounts, attach and the connected-account read. Open objects,
 * as the session types are.
 */
import type { Open } from './json.js';

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
  | 'COMPOSIO_GET_RECIPE'
  | 'COMPOSIO_SUBMIT_FEEDBACK';

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

/** v3: `{items}`; v3.1 pages it (`limit` up to 500, `cursor`). */
export interface ToolList extends Open {
  items: Tool[];
  next_cursor?: string | null;
  total_pages?: number;
  current_page?: number;
  total_items?: number;
}

export interface ListToolsQuery {
  cursor?: string;
  /** 1..500 (v3.1 only). */
  limit?: number;
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

/** POST /api/v3.1/.../session/{id}/attach: inline custom tools and toolkits (re)supplied. */
export interface AttachRequest extends Open {
  experimental?: Open & { custom_tools?: Open[]; custom_toolkits?: Open[] };
}

/** GET /api/v3.1/connected_accounts/{id}: what the SDK's link flow polls until ACTIVE. */
export interface ConnectedAccount extends Open {
  id: string;
  status: string;
  user_id?: string;
  toolkit: Open & { slug: string };
  auth_config: Open & { id: string; auth_scheme?: string; is_composio_managed?: boolean };
  created_at?: string;
  updated_at?: string;
}
