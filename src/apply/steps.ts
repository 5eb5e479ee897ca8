import { relative, sep } from 'node:path';
import { ApiError, isKeyRefused, KeyRefusedError, mayHaveTakenEffect } from '../client/errors.js';
import { verifySession } from '../config/verify.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { StateError } from '../diagnostics/errors.js';
import { atDocument } from '../manifest/at-document.js';
import type { PlanItem } from '../plan/plan.js';
import { hasSession, storableVersion, type StateEntry } from '../state/entry.js';
import type { LockedState } from '../state/store.js';
import type { RateLimiter } from '../util/throttle.js';
import type { UpdateSessionRequest } from '../wire/request.js';
import type { Session } from '../wire/session.js';
import type { AppliedItem } from './applied-item.js';
import { importCommand } from './import-command.js';
import { refused } from './refused.js';
import { updateFailed, versionInvalid } from './update-findings.js';

/** The calls apply makes. */
export interface ApplyApi {
  createSession(body: PlanItem['body']): Promise<Session>;
  updateSession(sessionId: string, body: UpdateSessionRequest): Promise<Session>;
  deleteSession(sessionId: string): Promise<unknown>;
}

/** What every step needs. */
export interface StepContext {
  api: ApplyApi;
  state: LockedState;
  now: () => Date;
  cwd: string;
  limiter?: RateLimiter;
  strict: boolean;
  keepReplaced: boolean;
  /** Records that need not be awaited (they follow a durable intent): the run waits for them at the end. */
  writes: Array<Promise<void>>;
  /** Creates sent and not answered yet, by item: an interrupted run marks them outcome unknown. */
  inFlight: Map<PlanItem, { since: string }>;
  /** Creates an interrupted run gave up on: whatever their answer, the run has recorded them already. */
  abandoned: Set<PlanItem>;
  /** Masks sensitive values (the API key, the manifests' secrets) in what the service answers, before the state records it. */
  mask: (text: string) => string;
  /** The run's stop signal: no request leaves after it fires. */
  signal?: AbortSignal;
  /** Set by the first state write that failed: no task starts after it. */
  stateFailed?: StateError;
}

function base(item: PlanItem): Omit<AppliedItem, 'outcome'> {
  return { name: item.name, file: item.file, user_id: item.user_id, action: item.action, drifted: false, drift: [], diagnostics: [], diff: '' };
}

function fileOf(item: PlanItem, cwd: string): string | undefined {
  return item.file.startsWith('<') ? undefined : relative(cwd, item.file).split(sep).join('/');
}

/** The entry for a session of this item, as it answered. */
function entryOf(item: PlanItem, session: Session, ctx: StepContext): StateEntry {
  const file = fileOf(item, ctx.cwd);
  return {
    name: item.name,
    user_id: item.user_id,
    session_id: session.session_id,
    // A service that echoes a secret into the MCP URL must not put it into the state.
    mcp_url: ctx.mask(session.mcp.url),
    tool_router_tools: [...session.tool_router_tools],
    config_version: storableVersion(session.config_version),
    body_hash: item.body_hash,
    body: item.stored,
    applied_at: ctx.now().toISOString(),
    ...(file !== undefined ? { file } : {}),
  };
}

/** Whether a create's answer is a session at all (a 201 with something else may still have created one). */
function wellFormed(session: Session): boolean {
  return typeof session?.session_id === 'string' && session.session_id !== '' && typeof session.mcp?.url === 'string' && Array.isArray(session.tool_router_tools);
}

function verify(out: AppliedItem, item: PlanItem, session: Session, strict: boolean): void {
  const check = verifySession(item.doc, item.expected, session, { strict });
  out.drift = check.differences;
  out.diagnostics.push(...check.diagnostics);
  out.drifted = check.status === 'drifted';
  // Apply shows the diff of what went wrong only: a session that matches needs no diff in a deploy log.
  if (out.drifted) out.diff = check.diff;
}

/**
 * Records what the service did without waiting for it (the intent is on record already). A record
 * that fails makes the item failed, says what exists that the state does not hold and how to
 * adopt it, and stops the run from starting more.
 */
function queue(ctx: StepContext, out: AppliedItem, item: PlanItem, write: Promise<void>, what: string, hint: () => string): void {
  ctx.writes.push(
    write.catch((err: unknown) => {
      ctx.stateFailed ??= err as StateError;
      out.outcome = 'failed';
      const d = atDocument(item.doc, 'state/write-failed', 'error', `${item.name}: ${what}, but the state could not be written: ${(err as Error).message}`);
      d.hint = hint();
      out.diagnostics.push(d);
    }),
  );
}

/** How to adopt a session that was created but could not be recorded. */
function unrecordedHint(item: PlanItem, sessionId: string, ctx: StepContext): string {
  const command = importCommand(item.name, sessionId, fileOf(item, ctx.cwd), ctx.state.location, ctx.cwd);
  const held = item.recorded !== undefined && hasSession(item.recorded) ? item.recorded.session_id : undefined;
  const until = `until then the state holds a create of unknown outcome for ${item.name}, and apply sends nothing for it`;
  if (held === undefined) return `once the state can be written again, adopt the session with \`${command}\`; ${until}`;
  // import refuses a name that records another session: the replaced one is forgotten first, and lives on.
  return `once the state can be written again, adopt the session with \`sessionctl state rm ${item.name}\` and then \`${command}\` (the state still records ${held}: forgotten, it stays alive until it is deleted by hand); ${until}`;
}

/**
 * Creates the session of an item (for `create` and `replace`). The intent is recorded durably
 * before the request leaves (write-ahead), so that however the run ends, a later run knows a
 * session may exist; the answer replaces the intent. Only the documented 201 or a clear refusal
 * settles it: a create that may have happened (timeout, reset, a malformed 201, a 200, 500, 502 or
 * 504, see `mayHaveTakenEffect`) stays recorded as `outcome unknown` and is never sent again by a
 * later run on its own.
 */
export async function createStep(item: PlanItem, ctx: StepContext): Promise<{ out: AppliedItem; session?: Session }> {
  const since = ctx.now().toISOString();
  const held = item.recorded;
  const intentBase: StateEntry = held ?? { name: item.name, user_id: item.user_id, session_id: '', mcp_url: '', tool_router_tools: [], config_version: null, body_hash: item.body_hash, body: null, applied_at: since };
  const { pending_create: _old, ...withoutIntent } = intentBase;
  try {
    await ctx.state.record({ ...withoutIntent, pending_create: { since, body_hash: item.body_hash, status: 'in-flight' } });
  } catch (err) {
    // Every write apply makes fails as a StateError (state-writes.ts).
    ctx.stateFailed ??= err as StateError;
    return { out: { ...base(item), outcome: 'failed', diagnostics: [atDocument(item.doc, 'state/write-failed', 'error', `${item.name}: not created: the state could not record the create before it was sent, so nothing was sent: ${(err as Error).message}`)] } };
  }
  // Nothing was created: the entry is what it was (with an earlier create's unknown outcome, if it had one).
  const undo = (): Promise<void> => (held === undefined ? ctx.state.forget(item.name, item.user_id) : ctx.state.record(held));
  await ctx.limiter?.acquire();
  if (ctx.signal?.aborted === true) {
    await undo();
    return { out: { ...base(item), outcome: 'skipped' } };
  }
  ctx.inFlight.set(item, { since });
  let session: Session;
  try {
    session = await ctx.api.createSession(item.body);
    if (!wellFormed(session)) throw new ApiError('the service answered the create without a session id, MCP URL or tool list', { kind: 'decode', method: 'POST', path: 'session' });
  } catch (err) {
    if (ctx.abandoned.has(item)) return { out: { ...base(item), outcome: 'outcome-unknown' } };
    if (!(err instanceof ApiError)) throw err;
    if (mayHaveTakenEffect(err)) {
      await ctx.state.record({ ...withoutIntent, pending_create: { since, body_hash: item.body_hash, status: 'unknown', reason: err.message } });
      const d = atDocument(item.doc, 'apply/outcome-unknown', 'error', `${item.name}: the create was sent but its outcome is unknown (${err.message}); a session may exist that is not recorded, so it was not retried`);
      d.hint = `look for a session of user ${JSON.stringify(item.user_id)} created since ${since}; adopt it with \`sessionctl import ${item.name} trs_...\`, or apply with --recreate-unknown if there is none`;
      return { out: { ...base(item), outcome: 'outcome-unknown', diagnostics: [d] } };
    }
    // Refused: nothing was created; the entry is what it was.
    await undo();
    if (isKeyRefused(err)) throw new KeyRefusedError(err);
    return { out: { ...base(item), outcome: 'failed', diagnostics: [refused(item, err, 'create')] } };
  } finally {
    ctx.inFlight.delete(item);
  }
  // Answered after the run gave up on it: the state says outcome unknown, and the lock may be gone.
  if (ctx.abandoned.has(item)) return { out: { ...base(item), outcome: 'outcome-unknown' } };
  const out: AppliedItem = { ...base(item), outcome: item.action === 'replace' ? 'replaced' : 'created', session_id: session.session_id, mcp_url: session.mcp.url, tool_router_tools: [...session.tool_router_tools] };
  const entry = entryOf(item, session, ctx);
  // A replace keeps the old session to delete in the new entry until its delete is done (cleanupStep),
  // with what the old entry still had to delete when it is another user's.
  const replaced = item.replaces;
  const inherited = replaced !== undefined && (replaced.name !== item.name || replaced.user_id !== item.user_id) ? (replaced.superseded ?? []) : [];
  const superseded = [...(held?.superseded ?? []), ...inherited, ...(replaced !== undefined && !ctx.keepReplaced ? [replaced.session_id] : [])];
  if (superseded.length > 0) entry.superseded = superseded;
  queue(ctx, out, item, ctx.state.record(entry), `session ${session.session_id} was created`, () => unrecordedHint(item, session.session_id, ctx));
  verify(out, item, session, ctx.strict);
  return { out, session };
}

/**
 * PATCHes a session in place, with the config version it was read at (a 409 overwrites nothing).
 * A session without a version (a service that keeps none) is PATCHed without one, as the official
 * SDK does; one whose version is not a whole number sessionctl can send back is not PATCHed at all.
 */
export async function updateStep(item: PlanItem, ctx: StepContext): Promise<AppliedItem> {
  const recorded = item.recorded!;
  // What the service answered may be anything: a version of 1.5, -1 or 1e300 sent back as the
  // guard could match by a server's rounding, or be dropped, and the PATCH overwrite a change.
  const live: unknown = item.live?.config_version;
  const answered = live !== undefined && live !== null;
  const read = item.pinnedVersion ?? (answered ? live : recorded.config_version);
  const version = storableVersion(read);
  if (read !== null && version === null) return { ...base(item), outcome: 'failed', session_id: recorded.session_id, diagnostics: [versionInvalid(item, read, answered)] };
  const body: UpdateSessionRequest = { ...(item.patch ?? {}), ...(version !== null ? { expected_config_version: version } : {}) };
  await ctx.limiter?.acquire();
  if (ctx.signal?.aborted === true) return { ...base(item), outcome: 'skipped' };
  let session: Session;
  try {
    session = await ctx.api.updateSession(recorded.session_id, body);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (isKeyRefused(err)) throw new KeyRefusedError(err);
    return { ...base(item), outcome: 'failed', session_id: recorded.session_id, diagnostics: [updateFailed(item, err)] };
  }
  const out: AppliedItem = { ...base(item), outcome: 'updated', session_id: session.session_id, mcp_url: session.mcp.url, tool_router_tools: [...session.tool_router_tools] };
  const entry = entryOf(item, session, ctx);
  if (recorded.superseded !== undefined) entry.superseded = [...recorded.superseded];
  queue(ctx, out, item, ctx.state.record(entry), `session ${session.session_id} was updated`, () => 'apply again once the state can be written: it reads the session, sends the update again (it changes nothing more) and records it');
  verify(out, item, session, ctx.strict);
  return out;
}

/** Deletes a session; a session that is already gone counts as deleted. Resolves with the failure, if any. */
export async function deleteSession(sessionId: string, ctx: StepContext): Promise<ApiError | undefined> {
  await ctx.limiter?.acquire();
  try {
    await ctx.api.deleteSession(sessionId);
    return undefined;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (isKeyRefused(err)) throw new KeyRefusedError(err);
    return err.status === 404 ? undefined : err;
  }
}

/**
 * After a replace: the new entry holds the old session to delete (unless `--keep-replaced`), and
 * cleanupStep deletes it; when the old session was another user's entry (user_id changed), that
 * entry is forgotten once the new one is on record.
 */
export async function retireStep(out: AppliedItem, item: PlanItem, ctx: StepContext): Promise<void> {
  const replaced = item.replaces;
  if (replaced === undefined) return;
  await Promise.all(ctx.writes);
  // The new entry could not be written: the old one is all the state knows of either session,
  // and it is not replaced (nothing deletes it).
  if (out.outcome === 'failed') return;
  if (replaced.name !== item.name || replaced.user_id !== item.user_id) await ctx.state.forget(replaced.name, replaced.user_id);
  out.replaced_session = replaced.session_id;
}

/**
 * Deletes the sessions the item's entry still holds as superseded (a replace's old session, or one
 * an earlier run failed to delete) and records each deletion; a failure is a warning, and the
 * entry keeps the session for the next run.
 */
export async function cleanupStep(out: AppliedItem, item: PlanItem, ctx: StepContext): Promise<void> {
  // The entry the item's own step recorded must be on record before it is edited again.
  await Promise.all(ctx.writes);
  // It could not be: what the entry holds to delete waits for a run that can record each delete.
  if (out.outcome === 'failed') return;
  // Once each, however often the list names it (a state merged by hand).
  for (const sessionId of new Set(ctx.state.get(item.name, item.user_id)?.superseded ?? [])) {
    // The rest stay recorded for the next run.
    if (ctx.signal?.aborted === true) return;
    const failed = await deleteSession(sessionId, ctx);
    if (failed !== undefined) {
      out.diagnostics.push(deleteFailed(item, sessionId, failed, 'warning'));
      continue;
    }
    // The entry still lists this session: each one is taken off only after its own delete.
    const { superseded, ...kept } = ctx.state.get(item.name, item.user_id)!;
    const rest = superseded!.filter((s) => s !== sessionId);
    await ctx.state.record(rest.length > 0 ? { ...kept, superseded: rest } : kept);
  }
}

function deleteFailed(item: PlanItem, sessionId: string, err: ApiError, severity: Diagnostic['severity']): Diagnostic {
  const d = atDocument(item.doc, 'apply/delete-failed', severity, `${item.name}: the replaced session ${sessionId} could not be deleted (${err.message}); it stays alive until a later apply deletes it`);
  d.hint = 'apply again to retry the delete; the state remembers the session';
  return d;
}
