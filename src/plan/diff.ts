import { ApiError } from '../client/errors.js';
import { computeDrift, driftDiagnostics } from '../config/drift.js';
import { expectedConfig, type ExpectedConfig } from '../config/expected.js';
import type { ManifestData } from '../config/types.js';
import type { Session as SessionView } from '../wire/session.js';
import { unifiedConfigDiff } from '../config/unified.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { StateStore } from '../apply/state.js';
import { mapConcurrent, RateLimiter } from '../apply/throttle.js';
import { UsageError } from '../errors.js';
import { loadAndValidate } from './inputs.js';
import { makeReport, type Connect, type RunBase, type RunOutcome } from './run.js';
import type { DriftBlockItem } from './blocks.js';
import { atDocument } from './plan.js';

export interface DiffOptions {
  getSession(sessionId: string): Promise<SessionView>;
  /** GETs in flight at once. Default 8. */
  concurrency?: number;
  limiter?: RateLimiter;
  /** Count `added` differences as drift. */
  strict?: boolean;
}

export interface DiffResult {
  items: DriftBlockItem[];
  diagnostics: Diagnostic[];
}

/**
 * Declared manifests against the sessions the state records for them (one GET each, concurrently).
 * A manifest with no recorded session is a `state/not-applied` finding; a recorded session that
 * answers 404 is `state/session-missing` (an error here: what was applied is gone).
 */
export async function diffManifests(documents: readonly ManifestDocument[], state: Pick<StateStore, 'get'>, options: DiffOptions): Promise<DiffResult> {
  const results = await mapConcurrent(documents, options.concurrency ?? 8, async (doc) => {
    const data = doc.data as ManifestData;
    const userId = String(data.user_id);
    const recorded = state.get(doc.name, userId);
    if (recorded === undefined) {
      const d = atDocument({ doc }, 'state/not-applied', 'error', `${doc.name}: not applied: no session is recorded for user ${JSON.stringify(userId)}`);
      return { item: item(doc, userId, null, 'not-applied'), diagnostics: [{ ...d, hint: 'run `sessionctl apply` for this manifest, or pass the state file it was applied with (--state)' }] };
    }
    return compare(doc, userId, recorded.session_id, options);
  });
  return { items: results.map((r) => r.item), diagnostics: results.flatMap((r) => r.diagnostics) };
}

/** One manifest against any live session (`diff MANIFEST --session trs_...`). */
export async function diffSession(doc: ManifestDocument, sessionId: string, options: DiffOptions): Promise<DiffResult> {
  const r = await compare(doc, String((doc.data as ManifestData).user_id), sessionId, options);
  return { items: [r.item], diagnostics: r.diagnostics };
}

async function compare(doc: ManifestDocument, userId: string, sessionId: string, options: DiffOptions): Promise<{ item: DriftBlockItem; diagnostics: Diagnostic[] }> {
  await options.limiter?.acquire();
  let session: SessionView;
  try {
    session = await options.getSession(sessionId);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    if (err.status === 404) {
      const d = atDocument({ doc }, 'state/session-missing', 'error', `${doc.name}: session ${sessionId} no longer exists (404)`);
      return { item: item(doc, userId, sessionId, 'missing'), diagnostics: [{ ...d, hint: 'run `sessionctl apply` to create it again' }] };
    }
    const d = atDocument({ doc }, 'state/refresh-failed', 'error', `${doc.name}: cannot read session ${sessionId}: ${err.message}${err.status !== undefined ? ` (HTTP ${err.status})` : ''}`);
    return { item: item(doc, userId, sessionId, 'unreadable'), diagnostics: [d] };
  }
  const expected = expectedConfig(doc.data as ManifestData);
  return verifySession(doc, expected, session, options.strict === true);
}

/** Drift of one session against its manifest, as a block item and located diagnostics. */
export function verifySession(doc: ManifestDocument, expected: ExpectedConfig, session: SessionView, strict: boolean): { item: DriftBlockItem; diagnostics: Diagnostic[] } {
  const differences = computeDrift(expected, session);
  const diagnostics = driftDiagnostics(differences, doc, doc.name);
  const counts = differences.some((d) => d.kind === 'changed' || d.kind === 'dropped' || (strict && d.kind === 'added'));
  const shown = differences.some((d) => d.kind !== 'defaulted');
  const diff = shown ? unifiedConfigDiff(expected, session, { expected: `${doc.name} (declared)`, effective: `${session.session_id} (effective)` }) : '';
  return {
    item: { ...item(doc, String((doc.data as ManifestData).user_id), session.session_id, counts ? 'drifted' : 'in-sync'), differences, diff },
    diagnostics,
  };
}

function item(doc: ManifestDocument, userId: string, sessionId: string | null, status: DriftBlockItem['status']): DriftBlockItem {
  return { name: doc.name, file: doc.file, user_id: userId, session_id: sessionId, status, differences: [], diff: '' };
}

export interface DiffRunOptions extends RunBase {
  connect: Connect;
  /** Audit this session against the one manifest given, instead of the state's sessions. */
  session?: string;
  strict?: boolean;
  concurrency?: number;
  rateLimitPerMinute?: number;
}

/** `diff`: validate, then compare every manifest with its session (GET), or one with `--session`. */
export async function runDiff(paths: readonly string[], options: DiffRunOptions): Promise<RunOutcome> {
  const inputs = await loadAndValidate(paths, options);
  if (inputs.blocked) return { report: makeReport('diff', inputs), sources: inputs.sources, secrets: inputs.secrets };
  if (options.session !== undefined && inputs.documents.length !== 1) {
    throw new UsageError(`--session compares one manifest with one session, but the paths hold ${inputs.documents.length} manifests`, 'name a single manifest (a file with one document)');
  }
  const state = options.session === undefined ? await StateStore.load(options.statePath) : undefined;
  // Nothing recorded means nothing to read: no connection (and no key) is needed to say so.
  const needsNetwork = options.session !== undefined || inputs.documents.some((d) => state?.get(d.name, String((d.data as ManifestData).user_id)) !== undefined);
  const api = needsNetwork ? await options.connect() : undefined;
  try {
    const limiter = options.rateLimitPerMinute === undefined ? undefined : new RateLimiter(options.rateLimitPerMinute);
    const diffOptions: DiffOptions = {
      getSession: (id) => (api ?? unreachable()).getSession(id),
      concurrency: options.concurrency ?? 8,
      strict: options.strict === true,
      ...(limiter ? { limiter } : {}),
    };
    const result = options.session !== undefined ? await diffSession(inputs.documents[0]!, options.session, diffOptions) : await diffManifests(inputs.documents, state!, diffOptions);
    const report = makeReport('diff', inputs, result.diagnostics);
    report.drift = { items: result.items };
    return { report, sources: inputs.sources, secrets: inputs.secrets };
  } finally {
    await api?.close();
  }
}

function unreachable(): never {
  throw new Error('diff read a session without a connection');
}
