/**
 * The two spellings of a session's config (api/tool-router-v3.md §4.2): the manifest uses the
 * request spelling (`enable` / `disable`), the service answers in the response spelling
 * (`enabled` / `disabled`, `proxy_execution_enabled`, tag arrays as `{enabled}`).
 */
import type { CreateSessionFields, ToolFilterRequest } from '../client/types.js';

/**
 * A manifest document after validation, in request spelling: the create request's fields (the
 * wire types in `client/types.ts`), plus the manifest-only `name` and the shorthands, where a bare
 * list stands for `{enable: [...]}`. Keys the schema admits that sessionctl does not model are
 * carried through as-is.
 */
export interface ManifestData extends Omit<CreateSessionFields, 'toolkits' | 'tools'> {
  /** Identity of the manifest in state and reports; never sent. */
  name?: string;
  /** An allowlist, a denylist, or a bare list (= allowlist). */
  toolkits?: NonNullable<CreateSessionFields['toolkits']> | string[];
  /** Per toolkit exactly one of enable | disable | tags, or a bare list (= enable). */
  tools?: Record<string, ToolFilterRequest | string[]>;
  search?: { enable?: boolean };
  execute?: { enable_multi_execute?: boolean };
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
