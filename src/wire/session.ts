/**
 * The session as the service answers it (create, retrieve, update, attach; api facts §2.1, §4), its
 * config history and the delete answer. Decoded leniently: the service has grown fields the
 * contracts lack, so every object keeps unknown keys and nothing here is checked at run time
 * beyond "it is a JSON object". One type serves both versions; where they differ the type says so.
 */
import type { Open } from './json.js';
import type { Tag } from './request.js';

/** A tag filter in response spelling (always the object form). */
export interface TagFilter {
  enabled?: Tag[];
  disabled?: Tag[];
}

/** `config.tools.<toolkit>` in response spelling. */
export type ToolFilter = { enabled: string[] } | { disabled: string[] } | { tags: TagFilter };

/** The effective config, in response spelling (facts §4.1). */
export interface SessionConfig extends Open {
  user_id: string;
  toolkits?: { enabled: string[] } | { disabled: string[] };
  auth_configs?: Record<string, string>;
  /** v3: one id per toolkit; v3.1: a list of ids. */
  connected_accounts?: Record<string, string | string[]>;
  manage_connections?: Open & {
    enabled?: boolean;
    callback_url?: string;
    enable_wait_for_connections?: boolean;
    enable_connection_removal?: boolean;
  };
  tools?: Record<string, ToolFilter>;
  tags?: TagFilter;
  workbench?: Open & {
    enable?: boolean;
    proxy_execution_enabled?: boolean;
    tool_execution_enabled?: boolean;
    sandbox_size?: string;
    auto_offload_threshold?: number;
  };
  multi_account?: Open & { enable?: boolean; max_accounts_per_toolkit?: number; require_explicit_selection?: boolean };
  /** Always present on newer servers; v3.1 may answer `"all"`. */
  preload?: { tools: string[] | 'all' };
  /** v3.1 only. */
  search?: { enable?: boolean };
  /** v3.1 only. */
  execute?: { enable_multi_execute?: boolean };
}

/** Body of create (201), retrieve, update and attach (200). */
export interface Session extends Open {
  session_id: string;
  mcp: Open & { type?: string; url: string };
  tool_router_tools: string[];
  config: SessionConfig;
  experimental?: Open & { assistive_prompt?: string };
  /** Required on newer servers; bumped by each update. */
  config_version?: number;
  warnings?: Array<Open & { code: string; message: string }>;
}

/** DELETE /api/v3.1/.../session/{id}, 200. */
export interface DeletedSession extends Open {
  session_id: string;
  deleted: true;
}

/** One version in GET /api/v3.1/.../session/{id}/config_history. */
export interface ConfigVersion extends Open {
  version: number;
  created_at: string;
  config: SessionConfig;
  is_current: boolean;
}

export interface ConfigHistory extends Open {
  items: ConfigVersion[];
  next_cursor?: string | null;
  total_pages: number;
  current_page: number;
  total_items: number;
}

export interface ConfigHistoryQuery {
  cursor?: string;
  /** 1..100. */
  limit?: number;
}
