import { normalizeBaseUrl, DEFAULT_BASE_URL } from '../client/base-url.js';
import { UsageError } from '../diagnostics/errors.js';
import { createClient, defaultTimeouts, type ClientTimeouts, type SessionClient } from '../client/client.js';
import { checkUserId, ensured, ensurer, storableName, type EnsuredSession } from '../fleet/ensure.js';
import { checkBinding, serviceIdentity } from '../state/binding.js';
import { stateBackend } from '../state/backend.js';
import type { Publication } from '../state/fleet.js';

export type { EnsuredSession } from '../fleet/ensure.js';


export interface OpenSessionsOptions {
  /** The API key sessions are created with (the state's binding is checked against it at open). */
  apiKey: string;
  /** Default `https://backend.composio.dev`. */
  baseUrl?: string;
  /** Plain http to a host that is not loopback (an emulator in a compose network, in tests). Default false. */
  allowInsecureHttp?: boolean;
  /**
   * Where PGPASSWORD (PGHOST, ... for what the URL leaves out) and the publications' sensitive
   * `${VAR}`s come from; pass `process.env` in an application.
   */
  env?: Readonly<Record<string, string | undefined>>;
  /** The folder a relative state file path is resolved against. Default: the process's working directory. */
  cwd?: string;
  /** How long an ensure waits for another caller's create of the same session. Default 30 s. */
  waitMs?: number;
  /** How long a claim not yet sent holds before another caller may take it over. Default 10 s. */
  claimLeaseMs?: number;
  /** PostgreSQL connections this process opens (or asks its pooler for). Default 10. */
  maxConnections?: number;
  /** Creates this process sends at once, each on a connection of its own to the service. Default 16. */
  maxCreates?: number;
  /** The client's timeouts (connect, headers, body, a whole call). */
  timeouts?: Partial<ClientTimeouts>;
}

/** The sessions of per-user manifests, for the application that serves the users. */
export interface Sessions {
  /** Where the state is: a file path, or the URL (which never carries a password). */
  readonly location: string;
  /**
   * The session of per-user manifest `name` for `userId`: the recorded one (one indexed query, no
   * request to the service), else one created from the published manifest and recorded. Any number
   * of concurrent calls for one user, from any number of processes, create one session.
   *
   * Throws `NotPublishedError`, `MissingVariableError`, `OutcomeUnknownError`,
   * `EnsureTimeoutError`, `InvalidUserIdError`, the service's `ApiError` (a create it refused) and
   * `StateError` (the database failed).
   */
  ensure(name: string, userId: string): Promise<EnsuredSession>;
  /** The user's recorded session, without creating one; undefined when none is recorded. */
  lookup(name: string, userId: string): Promise<EnsuredSession | undefined>;
  /** Closes the database connections and the client's. */
  close(): Promise<void>;
}

/**
 * Opens a state for `ensure` (`postgres://...`, or a state file for one process: tests, a small
 * application). Fails here, not at the first call: a state that is not there, a schema before
 * per-user manifests, and a state bound to another service or API key (a wrong key would create a
 * session for every user in another project).
 *
 * ```ts
 * const sessions = await openSessions(process.env.SESSIONCTL_STATE!, { apiKey: process.env.COMPOSIO_API_KEY!, env: process.env });
 * const { mcpUrl } = await sessions.ensure('support-agent', user.id);
 * ```
 *
 * The role needs SELECT on `schema_migrations`, `bindings` and `published`, and SELECT, INSERT
 * and UPDATE on `fleet` (docs/per-user.md, "On PostgreSQL"); no DDL and no workspace lock, so a
 * running deploy never holds an ensure up.
 */
export async function openSessions(url: string, options: OpenSessionsOptions): Promise<Sessions> {
  // A key read from an unset variable would be checked against nothing and refused by the service
  // at the first new user: said at open instead.
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new UsageError('openSessions needs the API key sessions are created with: pass apiKey (the COMPOSIO_API_KEY of the environment, say), which is empty or unset here');
  const env = options.env ?? {};
  const baseUrl = normalizeBaseUrl(options.baseUrl ?? DEFAULT_BASE_URL, options);
  const backend = stateBackend(url, options.cwd ?? '.', { env });
  const { fleet, binding } = await backend.openFleet({ maxConnections: options.maxConnections ?? 10 });
  try {
    checkBinding(binding, serviceIdentity(baseUrl, options.apiKey), fleet.location);
  } catch (err) {
    await fleet.close();
    throw err;
  }
  const timeouts = { ...defaultTimeouts, ...options.timeouts };
  const maxCreates = options.maxCreates ?? 16;
  const clients = new Map<Publication['api_version'], SessionClient>();
  const client = (apiVersion: Publication['api_version']): SessionClient => {
    let c = clients.get(apiVersion);
    if (c === undefined) {
      c = createClient({ baseUrl, apiKey: options.apiKey, apiVersion, timeouts, connections: maxCreates, allowInsecureHttp: options.allowInsecureHttp === true });
      clients.set(apiVersion, c);
    }
    return c;
  };
  const claimLeaseMs = options.claimLeaseMs ?? 10_000;
  const ensure = ensurer({
    store: fleet,
    client,
    env,
    waitMs: options.waitMs ?? 30_000,
    claimLeaseMs,
    // A live holder waiting for the answer is never judged dead: the lease outlasts its longest call.
    sentLeaseMs: timeouts.callMs + claimLeaseMs,
    maxCreates,
  });
  return {
    location: fleet.location,
    ensure,
    lookup: async (name, userId) => {
      checkUserId(userId);
      if (!storableName(name)) return undefined;
      const row = await fleet.session(name, userId);
      return row === undefined || row.session_id === '' ? undefined : ensured(row, false);
    },
    close: async () => {
      await Promise.all([fleet.close(), ...[...clients.values()].map((c) => c.close())]);
    },
  };
}
