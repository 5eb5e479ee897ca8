/** What route handlers get and give back. */
import type { Catalog } from '../catalog/catalog.js';
import type { KeyChecker } from './auth.js';
import type { ApiVersion } from '../wire/json.js';
import { httpError } from './errors.js';
import type { Faults, RouteName } from './faults.js';
import type { FixedWindowLimit } from './fixed-window.js';
import type { StreamLimit } from './mcp-streams.js';
import type { SessionRecord, Store } from './store.js';
import type { Stats } from './stats.js';

export interface EmulatorSettings {
  maxBodyBytes: number;
  maxFileBytes: number;
  presignTtlMs: number;
  /** An MCP stream with no traffic for this long is closed, freeing its place. */
  mcpIdleMs: number;
}

export interface EmulatorState {
  store: Store;
  /** The accepted keys, and who an admin request acts for. */
  keys: KeyChecker;
  catalog: Catalog;
  faults: Faults;
  rateLimiter: FixedWindowLimit;
  stats: Stats;
  /** The places for open MCP streams, per tenant and in all. */
  mcpStreams: StreamLimit;
  settings: EmulatorSettings;
  /** `http://host:port`, no trailing slash; links and presigned URLs point here. */
  baseUrl: string;
  /** Signs presigned URLs; random per process. */
  secret: Buffer;
  /** Resolves once the contract's schemas and the catalogue are loaded (they load on first use). */
  ready(): Promise<void>;
  /** The request log (method, path, status), and unexpected errors; never keys or bodies. */
  log?: (line: string) => void;
}

export interface ApiRequest {
  route: RouteName;
  /** The API version of the path (`/api/v3/...` or `/api/v3.1/...`): it picks shapes and defaults. */
  version: ApiVersion;
  tenant: string;
  params: { session_id?: string; mount_id?: string; nanoid?: string };
  query: Record<string, unknown>;
  body: unknown;
  requestId: string;
}

export interface ApiResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type ApiHandler = (req: ApiRequest, state: EmulatorState) => ApiResponse | Promise<ApiResponse>;

/** The request's session, or 404 (missing, or another key's: the same answer, so ids do not leak). */
export function requireSession(req: ApiRequest, state: EmulatorState): SessionRecord {
  const id = req.params.session_id ?? '';
  const s = state.store.session(id, req.tenant);
  if (s === undefined) throw httpError(404, `Tool router session '${id}' not found`);
  return s;
}
