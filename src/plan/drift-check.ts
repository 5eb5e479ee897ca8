import { ApiError, isKeyRefused, KeyRefusedError } from '../client/errors.js';
import { recordedUserId } from '../config/sensitive-fields.js';
import type { DriftItem } from '../config/drift.js';
import { expectedConfig, type ExpectedConfig } from '../config/expected.js';
import type { ManifestData } from '../config/types.js';
import type { Session } from '../wire/session.js';
import { verifyMcpTools, verifySession, type Verification } from '../config/verify.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import type { ManifestDocument } from '../manifest/types.js';
import { hasSession } from '../state/entry.js';
import type { StateView } from '../state/store.js';
import { mapConcurrent, type RateLimiter } from '../util/throttle.js';
import { outcomeUnknown } from './plan.js';

/**
 * - `in-sync`:     the session answers with what is declared (`defaulted` differences aside);
 * - `drifted`:     `changed` or `dropped` differences (or `added` ones with `--strict`);
 * - `not-applied`: no session is recorded for the manifest;
 * - `missing`:     the recorded session answers 404;
 * - `unreadable`:  the GET failed otherwise.
 */
export type DriftStatus = 'in-sync' | 'drifted' | 'not-applied' | 'missing' | 'unreadable';

/** One manifest checked against its deployed session. */
export interface SessionDrift {
  name: string;
  file: string;
  user_id: string;
  session_id: string | null;
  status: DriftStatus;
  /** Every classified difference, `defaulted` included. */
  differences: DriftItem[];
  /** Unified diff of declared against effective config ('' when only defaults differ). */
  diff: string;
}

export interface DriftCheckOptions {
  getSession(sessionId: string): Promise<Session>;
  /** GETs in flight at once. Default 8. */
  concurrency?: number;
  limiter?: RateLimiter;
  /** Count `added` differences as drift. */
  strict?: boolean;
  /** Show sensitive values as they are (`diff --show-sensitive`). */
  revealSensitive?: boolean;
  /** Also compare the tools an agent sees over the session's MCP endpoint (`diff --mcp`). */
  mcpTools?(sessionId: string): Promise<string[]>;
}

export interface DriftCheckResult {
  items: SessionDrift[];
  diagnostics: Diagnostic[];
}

/**
 * Declared manifests against the sessions the state records for them (one GET each, concurrently).
 * A manifest with no recorded session is a `state/not-applied` finding (`state/outcome-unknown`
 * when a create of unknown outcome is recorded); a recorded session that answers 404 is
 * `state/session-missing` (an error here: what was applied is gone).
 */
export async function checkRecordedSessions(documents: readonly ManifestDocument[], state: Pick<StateView, 'get'>, options: DriftCheckOptions): Promise<DriftCheckResult> {
  const results = await mapConcurrent(documents, options.concurrency ?? 8, async (doc) => {
    const userId = recordedUserId(doc);
    const recorded = state.get(doc.name, userId);
    if (recorded === undefined || !hasSession(recorded)) {
      // Only a create's intent: its outcome is unknown, and there is no session id to read.
      if (recorded?.pending_create !== undefined) return { item: item(doc, userId, null, 'not-applied'), diagnostics: [outcomeUnknown(doc, userId, recorded)] };
      const d = atDocument(doc, 'state/not-applied', 'error', `${doc.name}: not applied: no session is recorded for user ${JSON.stringify(userId)}`);
      return { item: item(doc, userId, null, 'not-applied'), diagnostics: [{ ...d, hint: 'run `sessionctl apply` for this manifest, or pass the state file it was applied with (--state)' }] };
    }
    return compare(doc, userId, recorded.session_id, options);
  });
  return { items: results.map((r) => r.item), diagnostics: results.flatMap((r) => r.diagnostics) };
}

/** One manifest against any live session (`diff MANIFEST --session trs_...`). */
export async function checkSession(doc: ManifestDocument, sessionId: string, options: DriftCheckOptions): Promise<DriftCheckResult> {
  const r = await compare(doc, recordedUserId(doc), sessionId, options);
  return { items: [r.item], diagnostics: r.diagnostics };
}

/**
 * One end user's session of a per-user manifest (`diff --user U`), against the manifest with that
 * user's id: `expected`. Differences at `ignored` pointers (the fields the application fills from
 * its own environment) are left out.
 */
export async function checkUserSession(doc: ManifestDocument, userId: string, sessionId: string, expected: ExpectedConfig, ignored: ReadonlySet<string>, options: DriftCheckOptions): Promise<DriftCheckResult> {
  const r = await compare(doc, userId, sessionId, options, { expected, ignored });
  return { items: [r.item], diagnostics: r.diagnostics };
}

async function compare(doc: ManifestDocument, userId: string, sessionId: string, options: DriftCheckOptions, fleet?: { expected: ExpectedConfig; ignored: ReadonlySet<string> }): Promise<{ item: SessionDrift; diagnostics: Diagnostic[] }> {
  await options.limiter?.acquire();
  let session: Session;
  try {
    session = await options.getSession(sessionId);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // A refused key fails every read alike: the run stops at the first, with one message.
    if (isKeyRefused(err)) throw new KeyRefusedError(err as ApiError);
    if (err.status === 404) {
      const d = atDocument(doc, 'state/session-missing', 'error', `${doc.name}: session ${sessionId} no longer exists (404)`);
      return { item: item(doc, userId, sessionId, 'missing'), diagnostics: [{ ...d, hint: 'run `sessionctl apply` to create it again' }] };
    }
    const d = atDocument(doc, 'state/refresh-failed', 'error', `${doc.name}: cannot read session ${sessionId}: ${err.message}${err.status !== undefined ? ` (HTTP ${err.status})` : ''}`);
    return { item: item(doc, userId, sessionId, 'unreadable'), diagnostics: [d] };
  }
  const expected = fleet?.expected ?? expectedConfig(doc.data as ManifestData);
  const check = withoutIgnored(verifySession(doc, expected, session, { strict: options.strict === true, revealSensitive: options.revealSensitive === true }), fleet?.ignored, options.strict === true);
  const out = { item: { ...item(doc, userId, session.session_id, check.status), differences: check.differences, diff: check.diff }, diagnostics: check.diagnostics };
  if (options.mcpTools === undefined) return out;
  const mcp = verifyMcpTools(doc, expected, await options.mcpTools(session.session_id));
  return {
    item: { ...out.item, status: mcp.drifted ? 'drifted' : out.item.status, differences: [...out.item.differences, ...mcp.differences] },
    diagnostics: [...out.diagnostics, ...mcp.diagnostics],
  };
}

function item(doc: ManifestDocument, userId: string, sessionId: string | null, status: DriftStatus): SessionDrift {
  return { name: doc.name, file: doc.file, user_id: userId, session_id: sessionId, status, differences: [], diff: '' };
}

/** A verification less the differences at `ignored` pointers, its status judged again without them. */
function withoutIgnored(v: Verification, ignored: ReadonlySet<string> | undefined, strict: boolean): Verification {
  if (ignored === undefined || ignored.size === 0) return v;
  const differences = v.differences.filter((d) => !ignored.has(d.pointer));
  const drifted = differences.some((d) => d.kind === 'changed' || d.kind === 'dropped' || (strict && d.kind === 'added'));
  return { status: drifted ? 'drifted' : 'in-sync', differences, diagnostics: v.diagnostics.filter((d) => d.pointer === undefined || !ignored.has(d.pointer)), diff: differences.some((d) => d.kind !== 'defaulted') ? v.diff : '' };
}
