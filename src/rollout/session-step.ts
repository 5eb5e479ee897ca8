import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, isKeyRefused, KeyRefusedError, mayHaveTakenEffect } from '../client/errors.js';
import type { SessionClient } from '../client/client.js';
import type { ExpectedConfig } from '../config/expected.js';
import { computeDrift, type DriftItem } from '../config/drift.js';
import type { ManifestDocument } from '../manifest/types.js';
import { storableVersion } from '../state/entry.js';
import type { FleetSession } from '../state/fleet.js';
import type { RateLimiter } from '../util/throttle.js';
import type { Session } from '../wire/session.js';
import type { UpdateSessionRequest } from '../wire/request.js';
import type { RolloutFailure } from './types.js';

export interface SessionStepContext {
  api: Pick<SessionClient, 'updateSession' | 'getSession'>;
  limiter?: RateLimiter | undefined;
  doc: ManifestDocument;
  expected: (userId: string) => ExpectedConfig;
  strict: boolean;
  /** The version and body hash a rolled-out row records. */
  version: number;
  bodyHash: string;
  /** The PATCH for a session on version `from`; undefined when its change is one PATCH cannot carry. */
  patchFor: (from: number) => UpdateSessionRequest | undefined;
  /**
   * Manifest pointers of the fields the application fills from its own environment (a published
   * `${VAR}`): the pipeline's value of VAR may differ from the application's, so they are not
   * compared.
   */
  filledByApplication: ReadonlySet<string>;
}

export type StepOutcome =
  | { kind: 'patched' | 'already'; row: FleetSession; session: Session }
  | { kind: 'failed'; failure: RolloutFailure }
  | { kind: 'not-patchable' }
  /** A repair's: the session is on the manifest's config, nothing to record. */
  | { kind: 'in-sync' }
  /** A repair's: the session is behind (the rollout's to bring), not the repair's. */
  | { kind: 'skipped' };

/**
 * Rolls one session out: a PATCH guarded by the config version its row records, so that nothing
 * another writer changed since is overwritten. A 409 means the session moved since the row was
 * written: most often an earlier run's PATCH whose record was lost (a kill), so it is read back
 * and, on the new config already, only recorded; else PATCHed once more at the version read. Each
 * answer is checked against the manifest before it is recorded.
 */
export async function rollSession(row: FleetSession, ctx: SessionStepContext): Promise<StepOutcome> {
  const patch = ctx.patchFor(row.version ?? 0);
  if (patch === undefined) return { kind: 'not-patchable' };
  const fail = (kind: RolloutFailure['kind'], message: string, fields?: string[]): StepOutcome => ({
    kind: 'failed',
    failure: { user_id: row.user_id, session_id: row.session_id, kind, message, ...(fields !== undefined ? { fields } : {}) },
  });
  let guard = row.config_version;
  let waits = 0;
  for (let attempt = 0; attempt < 2; attempt++) {
    await ctx.limiter?.acquire();
    let session: Session;
    try {
      session = await ctx.api.updateSession(row.session_id, guard === null ? patch : { ...patch, expected_config_version: guard });
    } catch (err) {
      const refused = refusal(err);
      const later = notNow(refused, waits);
      if (later !== undefined) {
        // The service said it did not take the PATCH (429, 503 with Retry-After): send it again once it may.
        waits++;
        await sleep(later);
        attempt--;
        continue;
      }
      if (refused.status !== 409) return refusedOutcome(refused, fail);
      // The client read the session again to say where it is: that read counts against the rate too.
      const live = refused.current_session ?? (await readBack(row, ctx));
      if (refused.current_session !== undefined) await ctx.limiter?.acquire();
      if (live instanceof ApiError) return refusedOutcome(live, fail);
      if (drift(live, row, ctx) === undefined) return { kind: 'already', row: rolled(row, live, ctx), session: live };
      guard = storableVersion(live.config_version);
      continue;
    }
    const fields = drift(session, row, ctx);
    if (fields !== undefined) return fail('drifted', `the service answered the PATCH with another config than the manifest's: ${fields.join(', ')}`, fields);
    return { kind: 'patched', row: rolled(row, session, ctx), session };
  }
  return fail('conflict', 'another writer changed the session again while it was rolled out; a re-run reads it again');
}

/** Waits after a refusal a PATCH is sent again for, at most this many per session, each at most this long. */
const MAX_WAITS = 5;
const MAX_WAIT_MS = 60_000;

/**
 * How long to wait before sending a PATCH again that the service refused without taking it (a 429,
 * or a 503 with Retry-After: the client never retries a PATCH itself), or undefined when it is not
 * such a refusal or the waits are spent.
 */
function notNow(err: ApiError, waits: number): number | undefined {
  if (waits >= MAX_WAITS || mayHaveTakenEffect(err)) return undefined;
  if (err.status === 429) return Math.min(err.retry_after_ms ?? 1_000 * 2 ** waits, MAX_WAIT_MS);
  if (err.status === 503 && err.retry_after_ms !== undefined) return Math.min(err.retry_after_ms, MAX_WAIT_MS);
  return undefined;
}

/** Reads a session back (a 409, the canary's check, diff of a fleet). */
export async function readBack(row: FleetSession, ctx: { api: Pick<SessionClient, 'getSession'>; limiter?: RateLimiter | undefined }): Promise<Session | ApiError> {
  await ctx.limiter?.acquire();
  try {
    return await ctx.api.getSession(row.session_id);
  } catch (err) {
    return refusal(err);
  }
}

/** The fields where a session differs from the manifest, or undefined when it is on it. */
export function drift(session: Session, row: FleetSession, ctx: Pick<SessionStepContext, 'doc' | 'expected' | 'strict' | 'filledByApplication'>): string[] | undefined {
  const counted = driftItems(session, row.user_id, ctx);
  if (counted.length === 0) return undefined;
  return [...new Set(counted.map((d) => fieldOf(d.path)))];
}

/**
 * The differences between a session and the manifest that count as drift (`changed`, `dropped`;
 * `added` with `strict`), less the fields the application fills from its own environment.
 */
export function driftItems(session: Session, userId: string, ctx: Pick<SessionStepContext, 'doc' | 'expected' | 'strict' | 'filledByApplication'>): DriftItem[] {
  // The comparison verifySession makes, without its masked unified diff and located findings: a
  // fleet's check needs the differing fields only, 100,000 times over (the values are never shown).
  return computeDrift(ctx.expected(userId), session).filter((d) => (d.kind === 'changed' || d.kind === 'dropped' || (ctx.strict && d.kind === 'added')) && !ctx.filledByApplication.has(d.pointer));
}

/** A difference's field as reports name it: `tools.github.disable`, `tool_router_tools`. */
export function fieldOf(path: string): string {
  return path.replace(/^\/config\//, '').replace(/\//g, '.');
}

/** An ApiError as a value; a refused key is thrown, since it refuses every session alike. */
export function refusal(err: unknown): ApiError {
  if (!(err instanceof ApiError)) throw err;
  // A refused key refuses every session alike: the rollout stops, not 100,000 failures.
  if (isKeyRefused(err)) throw new KeyRefusedError(err);
  return err;
}

/** A refused or lost PATCH (or its read) as a session's failure. */
export function refusedOutcome(err: ApiError, fail: (kind: RolloutFailure['kind'], message: string) => StepOutcome): StepOutcome {
  if (err.status === 404) return fail('missing', 'the session no longer exists at the service (404): its user gets it from ensure until the row is removed (`sessionctl state rm NAME --user-id USER`)');
  if (mayHaveTakenEffect(err)) return fail('outcome-unknown', `${err.message}; a re-run reads the session and finishes it`);
  return fail('patch-refused', err.message);
}

/** The row as rolled out (or repaired): the new version, and what the service answered. */
export function rolled(row: FleetSession, session: Session, ctx: Pick<SessionStepContext, 'version' | 'bodyHash'>): FleetSession {
  return {
    ...row,
    config_version: storableVersion(session.config_version),
    version: ctx.version,
    body_hash: ctx.bodyHash,
    tool_router_tools: [...session.tool_router_tools],
    mcp_url: session.mcp.url,
  };
}
