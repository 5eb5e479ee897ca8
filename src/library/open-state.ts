import { StateError } from '../diagnostics/errors.js';
import { stateBackend } from '../state/backend.js';
import { hasSession, type StateEntry } from '../state/entry.js';

/** The session that serves one manifest for one user, as the last apply recorded it. */
export interface AppliedSession {
  name: string;
  userId: string;
  sessionId: string;
  /** Where the user's agent connects (MCP, Streamable HTTP). */
  mcpUrl: string;
  /** The session's config version when it was applied; null when the service did not say. */
  configVersion: number | null;
  /** The meta tools the session exposes. */
  toolRouterTools: string[];
  /** ISO 8601. */
  appliedAt: string;
}

/** Read-only access to the state a pipeline applies, for the application that serves the users. */
export interface StateLookup {
  /** Where the state is: a file path, or the URL (which never carries a password). */
  readonly location: string;
  /**
   * The session serving manifest `name` for `userId`, read now (no cache: a deploy may have
   * replaced it); undefined when none is recorded, or only a create whose outcome is unknown.
   */
  lookup(name: string, userId: string): Promise<Omit<AppliedSession, 'name' | 'userId'> | undefined>;
  /** Every recorded session, by manifest name then user id. */
  list(): Promise<AppliedSession[]>;
  /** Closes the database connections. */
  close(): Promise<void>;
}

export interface OpenStateOptions {
  /**
   * Where PGPASSWORD (and PGHOST, PGUSER, ... for what the URL leaves out) come from; pass
   * `process.env` in an application. Without it the password comes only from the password file
   * (PGPASSFILE, default ~/.pgpass).
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** The folder a relative state file path is resolved against. Default: the process's working directory. */
  cwd?: string;
}

function applied(e: StateEntry): AppliedSession {
  return {
    name: e.name,
    userId: e.user_id,
    sessionId: e.session_id,
    mcpUrl: e.mcp_url,
    configVersion: e.config_version,
    toolRouterTools: [...e.tool_router_tools],
    appliedAt: e.applied_at,
  };
}

/**
 * Opens the state that `sessionctl apply` writes (`postgres://...` or a state file) for lookups:
 * no lock is taken, nothing is ever written (PostgreSQL connections are read-only), each lookup
 * reads the state as it is then. Connecting fails here, not at the first lookup: a wrong host,
 * password, a state written by a newer sessionctl, a location with another scheme, and a state
 * that is not there (a mistyped path or workspace would otherwise answer "no session" to everyone).
 *
 * ```ts
 * const state = await openState(process.env.SESSIONCTL_STATE!, { env: process.env });
 * const s = await state.lookup('support-agent', user.id);  // { sessionId, mcpUrl, ... } | undefined
 * ```
 */
export async function openState(url: string, options: OpenStateOptions = {}): Promise<StateLookup> {
  const backend = stateBackend(url, options.cwd ?? '.', { env: options.env ?? {} });
  const reader = await backend.openReader().catch((err: unknown) => {
    // Without `env` nothing reads the process's PGPASSWORD: "none is set" would send a reader who
    // set it to look in the wrong place.
    if (options.env === undefined && err instanceof StateError && err.message.includes('asks for a password')) {
      throw new StateError(err.message.replace(/ and none is set: set PGPASSWORD,/, ' and openState was given no env to read PGPASSWORD from: pass the process environment as { env },'), err.file, { cause: err });
    }
    throw err;
  });
  return {
    location: reader.location,
    lookup: async (name, userId) => {
      const e = await reader.get(name, userId);
      if (e === undefined || !hasSession(e)) return undefined;
      const { name: _n, userId: _u, ...rest } = applied(e);
      return rest;
    },
    list: async () => (await reader.list()).filter(hasSession).map(applied),
    close: () => reader.close(),
  };
}
