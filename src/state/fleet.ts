import type { PublishedTemplate } from '../config/published-body.js';
import type { Json } from '../wire/json.js';
import { sessionIdProblem, unprintableProblem } from '../wire/session-id.js';
import type { StateBinding } from './binding.js';

/**
 * A per-user manifest as `apply` published it to a workspace: what the application creates each
 * end user's session from. It never holds a secret: a sensitive value is shown in `body` as
 * `${VAR}` text and kept in `templates` as the parts that make it, which `ensure` fills from its
 * own environment.
 */
export interface Publication {
  name: string;
  /** 1 for the first publish, one more for each publish that changed the body. */
  version: number;
  /** The create request body, its `user_id` the placeholder `<end-user>`. */
  body: { [key: string]: Json };
  /** Where the body holds sensitive values, filled at run time. */
  templates: PublishedTemplate[];
  /** The body hash as plan computes it (sensitive values in their stored form): a changed secret is a new version. */
  body_hash: string;
  /** The API version the manifest was applied with, which ensure creates with. */
  api_version: '3' | '3.1';
  /** The manifest file, relative to the folder apply ran in (forward slashes). */
  file: string | null;
  /** ISO 8601. */
  published_at: string;
}

/** A claim that one caller holds on creating a user's session, which the others wait on. */
export interface FleetClaim {
  id: string;
  /**
   * `claimed`: taken, the create not yet sent (a holder that dies now is taken over once the
   * claim expires); `sent`: the create may have reached the service (never taken over: once it
   * expires its outcome is unknown); `unknown`: the holder learnt that the outcome is unknown.
   */
  state: 'claimed' | 'sent' | 'unknown';
  /** ISO 8601: when it was taken, or sent. */
  since: string;
  /** Whether the claim's lease has ended (by the database's clock). */
  expired: boolean;
  reason?: string;
}

/** One end user's session of a per-user manifest, or the claim on creating it. */
export interface FleetSession {
  name: string;
  user_id: string;
  /** '' while only a claim is recorded. */
  session_id: string;
  mcp_url: string;
  tool_router_tools: string[];
  config_version: number | null;
  /** The published version the session was created from (or last rolled out to). */
  version: number | null;
  body_hash: string | null;
  /** ISO 8601; null while only a claim is recorded. */
  created_at: string | null;
  claim?: FleetClaim;
}

/** How many sessions a per-user manifest has, for plan and `state list`. */
export interface FleetCount {
  name: string;
  /** Sessions recorded (claims not counted). */
  sessions: number;
  /** Sessions per published version they were created from (or rolled out to); an unknown version counts as 0. */
  byVersion: ReadonlyMap<number, number>;
  /** Users with a claim whose create's outcome is unknown. */
  unknown: number;
  /** The first few users (by id) of each version: plan's samples (a session of an unknown version is under 0). */
  samples?: ReadonlyMap<number, readonly string[]>;
}

/** Users named per version when plan summarises a fleet: enough to look at, never a list. */
export const SAMPLES = 3;

/** The rows of the fleet an application's `ensure` reads and writes; no workspace lock is ever taken. */
export interface FleetStore {
  readonly location: string;
  /** The user's recorded session (or claim): one indexed read. */
  session(name: string, userId: string): Promise<FleetSession | undefined>;
  /** The names published to this workspace. */
  published(): Promise<string[]>;
  /**
   * Takes the claim on creating the user's session, reading the manifest's publication in the same
   * step: inserts the claim, or takes over a free row or a `claimed` one whose lease ended.
   * `claimed` is false when another caller holds it, or a session or a sent create is recorded;
   * no claim is taken for a manifest that is not published (`publication` undefined).
   */
  claim(name: string, userId: string, claimId: string, leaseMs: number): Promise<{ claimed: boolean; publication: Publication | undefined }>;
  /** Marks the claim sent just before the create leaves, with the lease its wait may last; false when it is no longer held. */
  markSent(name: string, userId: string, claimId: string, leaseMs: number): Promise<boolean>;
  /** Records the created session in the claim's row and ends the claim; false when the row was taken from it. */
  complete(session: FleetSession, claimId: string): Promise<boolean>;
  /** Frees the claim: the create was refused, or never sent. */
  release(name: string, userId: string, claimId: string): Promise<void>;
  /** Marks the claim's create as of unknown outcome. */
  markUnknown(name: string, userId: string, claimId: string, reason: string): Promise<void>;
  close(): Promise<void>;
}

/** The key of a publication's version in `StateView.publishedVersions`. */
export function versionKey(name: string, version: number): string {
  return `${name}\0${version}`;
}

/** A fleet store, and the service its state is bound to. */
export interface OpenedFleet {
  fleet: FleetStore;
  binding: StateBinding | undefined;
}

/** One page of a fleet's rows, in (name, user id) order: `state list` reads a fleet page by page. */
export interface FleetPageQuery {
  name?: string;
  userId?: string;
  /** The (name, user id) the previous page ended with. */
  after?: { name: string; userId: string };
  limit: number;
}

/** Whether a row comes after a page's last one, in (name, user id) order. */
export function comesAfter(row: Pick<FleetSession, 'name' | 'user_id'>, after: FleetPageQuery['after']): boolean {
  if (after === undefined) return true;
  return row.name > after.name || (row.name === after.name && row.user_id > after.userId);
}

/**
 * Why a stored fleet row cannot be handed to an application, or undefined: a session id of another
 * form than the service's, or an MCP URL with a control character (a hand-edited or hostile row).
 * A row without a session yet (a claim) has neither.
 */
export function fleetRowProblem(row: Pick<FleetSession, 'session_id' | 'mcp_url'>): string | undefined {
  if (row.session_id === '') return undefined;
  return sessionIdProblem(row.session_id) ?? unprintableProblem(row.mcp_url);
}
