/**
 * The two spellings of a session's config (api/tool-router-v3.md §4.2): the manifest uses the
 * request spelling (`enable` / `disable`), the service answers in the response spelling
 * (`enabled` / `disabled`, `proxy_execution_enabled`, tag arrays as `{enabled}`).
 */
import type { CreateSessionFields, CreateSessionRequest, ToolFilterRequest } from '../wire/request.js';

/**
 * A manifest document after validation, in request spelling: the create request's fields (the
 * wire types in `wire/request.ts`), plus the manifest-only `name` and the shorthands, where a bare
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
export type CreateSessionBody = CreateSessionRequest;
