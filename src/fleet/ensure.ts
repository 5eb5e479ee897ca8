import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError, mayHaveTakenEffect } from '../client/errors.js';
import type { SessionClient } from '../client/client.js';
import { storableVersion } from '../state/entry.js';
import type { FleetSession, FleetStore, Publication } from '../state/fleet.js';
import { END_USER } from '../manifest/per-user.js';
import type { Json } from '../wire/json.js';
import type { CreateSessionRequest } from '../wire/request.js';
import { Semaphore } from '../util/throttle.js';
import { bodyFor } from './body.js';
import { EnsureTimeoutError, InvalidUserIdError, NotPublishedError, OutcomeUnknownError } from './errors.js';

/** One end user's session of a per-user manifest, as `ensure` returns it. */
export interface EnsuredSession {
  name: string;
  userId: string;
  sessionId: string;
  /** Where the user's agent connects (MCP, Streamable HTTP). */
  mcpUrl: string;
  /** The session's config version when it was created or last rolled out; null when the service did not say. */
  configVersion: number | null;
  toolRouterTools: string[];
  /** The published version of the manifest the session was created from (or last rolled out to). */
  version: number | null;
  /** Whether this call created it. */
  created: boolean;
}

export interface EnsureSettings {
  store: FleetStore;
  /** The client for the publication's API version. */
  client: (apiVersion: Publication['api_version']) => SessionClient;
  /** Where a publication's sensitive `${VAR}`s are read. */
  env: Readonly<Record<string, string | undefined>>;
  /** How long a caller waits for another caller's create of the same session. */
  waitMs: number;
  /** How long a claim not yet sent holds: a holder that dies before sending is taken over after it. */
  claimLeaseMs: number;
  /** How long a sent create's claim holds: at least the client's longest call, so a live holder is never judged dead. */
  sentLeaseMs: number;
  /** Creates this process runs at once (the client's connections): a claim is taken only when its create can leave at once. */
  maxCreates: number;
}

/** The most the service takes as a user id (its contract's limit). */
const MAX_USER_ID = 256;

/**
 * Waits between looks at another caller's claim: short at first (a create takes tens of ms), then
 * steady, each with jitter: a thousand waiters of a fleet must not look in step.
 */
const FIRST_LOOK_MS = 5;
const STEADY_LOOK_MS = 250;

/**
 * `ensure(name, userId)`: the user's recorded session, read with one indexed query and no request
 * to the service; else one created from the publication and recorded. However many callers ask
 * for the same user at once, from any number of processes, one session is created: the callers
 * race for a claim row, and the others wait for it to end. A claim whose holder died before
 * sending is taken over; a create that was sent and whose answer was lost is never repeated
 * (OutcomeUnknownError), for it may have created the session.
 */
export function ensurer(settings: EnsureSettings): (name: string, userId: string) => Promise<EnsuredSession> {
  // Callers of one process asking for the same user share one ensure (and one claim).
  const inFlight = new Map<string, Promise<EnsuredSession>>();
  // A claim's lease counts from when it is taken: a create queued behind this process's others
  // would look dead to the callers that wait for it. So a claim is taken only with a place free.
  const creates = new Semaphore(settings.maxCreates);
  return async (name, userId) => {
    checkUserId(userId);
    // No statement is sent for a name no state can hold: it would fail the other calls batched with it.
    if (!storableName(name)) throw new NotPublishedError(String(name), await settings.store.published(), settings.store.location);
    const key = `${name}\0${userId}`;
    const running = inFlight.get(key);
    if (running !== undefined) return running.then((s) => ({ ...s, created: false }));
    const done = ensureOnce(settings, creates, name, userId).finally(() => inFlight.delete(key));
    inFlight.set(key, done);
    return done;
  };
}

/** Whether a manifest name could be published: a string the state can hold (PostgreSQL's text holds no NUL). */
export function storableName(name: unknown): name is string {
  return typeof name === 'string' && name !== '' && !name.includes('\u0000');
}

/** Refuses a user id before the state is read: PostgreSQL's text holds no NUL, and a statement shared with other users' calls must not fail for them. */
export function checkUserId(userId: unknown): asserts userId is string {
  if (typeof userId !== 'string' || userId.length === 0 || userId.length > MAX_USER_ID) {
    throw new InvalidUserIdError(`a user id is a string of 1 to ${MAX_USER_ID} characters; got ${typeof userId === 'string' ? `${userId.length} characters` : typeof userId}`);
  }
  if (userId.includes('\u0000')) throw new InvalidUserIdError('a user id cannot hold the NUL character (U+0000): the state cannot store it');
  if (userId === END_USER) throw new InvalidUserIdError(`"${END_USER}" is the placeholder of a per-user manifest, not a user id: pass the end user's own id`);
}

async function ensureOnce(s: EnsureSettings, creates: Semaphore, name: string, userId: string): Promise<EnsuredSession> {
  const started = Date.now();
  let look = FIRST_LOOK_MS;
  for (;;) {
    const row = await s.store.session(name, userId);
    if (row !== undefined && row.session_id !== '') return ensured(row, false);
    const claim = row?.claim;
    if (claim?.state === 'unknown' || (claim?.state === 'sent' && claim.expired)) {
      throw new OutcomeUnknownError(name, userId, claim.since, claim.reason ?? 'the caller that sent it ended before it recorded the answer: killed, or it lost the state');
    }
    const free = claim === undefined || (claim.state === 'claimed' && claim.expired);
    if (free) {
      const created = await creates.run(async () => {
        const id = randomUUID();
        const { claimed, publication } = await s.store.claim(name, userId, id, s.claimLeaseMs);
        if (publication === undefined) {
          // Unpublished between the claim and the read of its body: the claim goes back.
          if (claimed) await s.store.release(name, userId, id).catch(() => undefined);
          throw new NotPublishedError(name, await s.store.published(), s.store.location);
        }
        return claimed ? createUnderClaim(s, publication, userId, id) : undefined;
      });
      if (created !== undefined) return created;
    }
    // Another caller holds the claim (or won it, or took it over from this one just now): wait for
    // it, within the deadline, whatever happened, so no sequence of rows can keep this loop busy.
    const waited = Date.now() - started;
    if (waited >= s.waitMs) throw new EnsureTimeoutError(name, userId, waited);
    if (free) continue; // lost the race for it: look again at once
    await sleep(Math.min(look * (0.5 + Math.random()), s.waitMs - waited));
    look = Math.min(look * 2, STEADY_LOOK_MS);
  }
}

/** Creates and records the session under a claim this caller holds; undefined when the claim was taken over before the create left. */
async function createUnderClaim(s: EnsureSettings, publication: Publication, userId: string, claimId: string): Promise<EnsuredSession | undefined> {
  const name = publication.name;
  const release = () => s.store.release(name, userId, claimId).catch(() => undefined);
  let body: { [key: string]: Json };
  try {
    body = bodyFor(publication, userId, s.env);
  } catch (err) {
    // A variable missing: nothing is sent, and the claim goes back for a caller that has it.
    await release();
    throw err;
  }
  // Written before the request leaves: from here on a caller that finds the claim expired knows
  // the create may have happened.
  if (!(await s.store.markSent(name, userId, claimId, s.sentLeaseMs))) return undefined;
  const since = new Date().toISOString();
  let session;
  try {
    session = await s.client(publication.api_version).createSession(body as unknown as CreateSessionRequest);
  } catch (err) {
    if (err instanceof ApiError && !mayHaveTakenEffect(err)) {
      await release();
      throw err;
    }
    const reason = err instanceof Error ? err.message : String(err);
    await s.store.markUnknown(name, userId, claimId, reason).catch(() => undefined);
    throw new OutcomeUnknownError(name, userId, since, reason, undefined, { cause: err });
  }
  const row: FleetSession = {
    name,
    user_id: userId,
    session_id: session.session_id,
    mcp_url: session.mcp?.url ?? '',
    tool_router_tools: [...(session.tool_router_tools ?? [])],
    config_version: storableVersion(session.config_version),
    version: publication.version,
    body_hash: publication.body_hash,
    created_at: since,
  };
  let recorded: boolean;
  try {
    recorded = await s.store.complete(row, claimId);
  } catch (err) {
    throw new OutcomeUnknownError(name, userId, since, `the session was created but could not be recorded: ${(err as Error).message}`, session.session_id, { cause: err });
  }
  if (!recorded) throw new OutcomeUnknownError(name, userId, since, 'the session was created but its claim was removed from the state meanwhile', session.session_id);
  return ensured(row, true);
}

/** A recorded row as ensure and lookup return it. */
export function ensured(row: FleetSession, created: boolean): EnsuredSession {
  return {
    name: row.name,
    userId: row.user_id,
    sessionId: row.session_id,
    mcpUrl: row.mcp_url,
    configVersion: row.config_version,
    toolRouterTools: [...row.tool_router_tools],
    version: row.version,
    created,
  };
}
