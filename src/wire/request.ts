/**
 * Session request bodies in request spelling (api facts §3): create (v3 and v3.1) and update
 * (PATCH, §7). Typed from the contracts but open, so newer request fields can be passed through.
 * v3 and v3.1 differ only where the service's shapes differ: `connected_accounts` (one id per
 * toolkit in v3, a list in v3.1), `preload.tools` (v3.1 also `"all"`), and the v3.1-only
 * `search` and `execute` blocks.
 */
import type { Open } from './json.js';

export type Tag = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';

/** A tag filter in request spelling: a list is the enable list. */
export type TagFilterRequest = Tag[] | { enable?: Tag[]; disable?: Tag[] };

/** `tools.<toolkit>` in request spelling: exactly one of enable, disable or tags. */
export type ToolFilterRequest = { enable: string[] } | { disable: string[] } | { tags: TagFilterRequest };

/** `toolkits`: an allowlist or a denylist, never both. */
export type ToolkitFilterRequest = { enable: string[] } | { disable: string[] };

export interface ManageConnectionsRequest {
  enable?: boolean | null;
  callback_url?: string | null;
  enable_wait_for_connections?: boolean | null;
  enable_connection_removal?: boolean | null;
}

export interface WorkbenchRequest {
  enable?: boolean;
  enable_proxy_execution?: boolean;
  auto_offload_threshold?: number;
  sandbox_size?: string;
  enable_tool_execution?: boolean;
}

export interface MultiAccountRequest {
  enable?: boolean;
  max_accounts_per_toolkit?: number;
  require_explicit_selection?: boolean;
}

/**
 * POST /session request body, v3 (facts §3). Only `user_id` is required. The fields of the
 * 13-endpoint spec, plus the later v3 fields the service accepts on the same route
 * (`enable_connection_removal`, `multi_account`, `preload`, `workbench.sandbox_size`,
 * `workbench.enable_tool_execution`).
 */
export interface CreateSessionFields {
  user_id: string;
  toolkits?: ToolkitFilterRequest;
  auth_configs?: Record<string, string>;
  connected_accounts?: Record<string, string>;
  manage_connections?: ManageConnectionsRequest;
  tools?: Record<string, ToolFilterRequest>;
  tags?: TagFilterRequest;
  workbench?: WorkbenchRequest;
  multi_account?: MultiAccountRequest;
  preload?: { tools?: string[] };
  experimental?: Open;
}

/** The v3 create body as sent: the typed fields, and any newer field passed through. */
export interface CreateSessionRequest extends CreateSessionFields, Open {}

/** The v3.1 blocks that turn meta tools off (facts §3.1). */
export interface SearchBlock {
  enable?: boolean;
}
export interface ExecuteBlock {
  enable_multi_execute?: boolean;
}

/** POST /api/v3.1/.../session: v3's fields, with lists of accounts, `preload.tools: "all"`, `search`, `execute`. */
export interface CreateSessionRequestV31 extends Omit<CreateSessionFields, 'connected_accounts' | 'preload'>, Open {
  connected_accounts?: Record<string, string[]>;
  preload?: { tools?: string[] | 'all' };
  search?: SearchBlock;
  execute?: ExecuteBlock;
}

/**
 * PATCH /session/{id} (facts §7): only the keys supplied change; `null` removes a stored override;
 * maps replace the stored map wholesale. No `user_id`, no custom tools. `expected_config_version`
 * makes the update conditional (409 when the session moved on).
 */
export interface UpdateSessionRequest extends Open {
  toolkits?: ToolkitFilterRequest | null;
  auth_configs?: Record<string, string> | null;
  connected_accounts?: Record<string, string[]> | Record<string, string> | null;
  manage_connections?: ManageConnectionsRequest | null;
  tools?: Record<string, ToolFilterRequest> | null;
  tags?: TagFilterRequest | null;
  workbench?: WorkbenchRequest | null;
  multi_account?: MultiAccountRequest | null;
  preload?: { tools?: string[] | 'all' } | null;
  search?: SearchBlock | null;
  execute?: ExecuteBlock | null;
  experimental?: Open | null;
  expected_config_version?: number;
}
