/**
 * The two spellings of a session's config (api/tool-router-v3.md §4.2): the manifest uses the
 * request spelling (`enable` / `disable`), the service answers in the response spelling
 * (`enabled` / `disabled`, `proxy_execution_enabled`, tag arrays as `{enabled}`).
 */

export type TagName = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';

/** A tag filter as a manifest may write it: a bare list means `enable`. */
export type TagFilterRequest = string[] | { enable?: string[]; disable?: string[] };

/** `toolkits`: an allowlist, a denylist, or a bare list (= allowlist). */
export type ToolkitFilterRequest = string[] | { enable: string[] } | { disable: string[] };

/** `tools.<toolkit>`: exactly one of enable | disable | tags, or a bare list (= enable). */
export type ToolFilterRequest = string[] | { enable: string[] } | { disable: string[] } | { tags: TagFilterRequest };

/**
 * A manifest document after validation, in request spelling. Shorthands (bare lists) are allowed
 * where noted. Keys the schema admits that sessionctl does not model are carried through as-is.
 */
export interface ManifestData {
  /** Identity of the manifest in state and reports; never sent. */
  name?: string;
  user_id: string;
  toolkits?: ToolkitFilterRequest;
  tools?: Record<string, ToolFilterRequest>;
  tags?: TagFilterRequest;
  auth_configs?: Record<string, string>;
  connected_accounts?: Record<string, string>;
  manage_connections?: {
    enable?: boolean | null;
    callback_url?: string;
    enable_wait_for_connections?: boolean | null;
    enable_connection_removal?: boolean | null;
  };
  workbench?: {
    enable?: boolean;
    enable_proxy_execution?: boolean;
    auto_offload_threshold?: number;
    sandbox_size?: string;
    enable_tool_execution?: boolean;
  };
  multi_account?: { enable?: boolean; max_accounts_per_toolkit?: number; require_explicit_selection?: boolean };
  preload?: { tools?: string[] };
  search?: { enable?: boolean };
  execute?: { enable_multi_execute?: boolean };
  experimental?: Record<string, unknown>;
  [key: string]: unknown;
}

/** The wire body of POST /api/v3/tool_router/session: the manifest without `name`, shorthands expanded. */
export type CreateSessionBody = Record<string, unknown> & { user_id: string };

/** A JSON value as decoded from the service. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The effective config as the service returns it (response spelling). Decoded leniently: newer
 * servers add keys (`preload`, `multi_account`, `search`, ...), so unknown keys are allowed.
 */
export interface EffectiveConfig {
  user_id?: string;
  toolkits?: { enabled?: string[]; disabled?: string[] };
  tools?: Record<string, { enabled?: string[]; disabled?: string[]; tags?: { enabled?: string[]; disabled?: string[] } }>;
  tags?: { enabled?: string[]; disabled?: string[] };
  auth_configs?: Record<string, string>;
  connected_accounts?: Record<string, string | string[]>;
  manage_connections?: {
    enabled?: boolean;
    callback_url?: string;
    enable_wait_for_connections?: boolean;
    enable_connection_removal?: boolean;
  };
  workbench?: {
    enable?: boolean;
    proxy_execution_enabled?: boolean;
    auto_offload_threshold?: number;
    sandbox_size?: string;
    tool_execution_enabled?: boolean;
  };
  [key: string]: unknown;
}

/** The part of a create or GET response that drift is computed on. */
export interface SessionView {
  session_id: string;
  mcp: { type?: string; url: string };
  tool_router_tools: string[];
  config: EffectiveConfig;
  [key: string]: unknown;
}
