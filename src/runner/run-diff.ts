import { recordedUserId } from '../config/sensitive-fields.js';
import { isPerUser } from '../manifest/per-user.js';
import { withRecordedUsers } from '../plan/recorded-users.js';
import { UsageError } from '../diagnostics/errors.js';
import { checkRecordedSessions, checkSession, type DriftCheckOptions } from '../plan/drift-check.js';
import { RateLimiter } from '../util/throttle.js';
import type { RolloutProgress } from '../rollout/types.js';
import { diffFleets } from './fleet-diff.js';
import type { Connect } from './connection.js';
import { loadAndValidate } from './inputs.js';
import { makeReport, maskReport, outcomeOf, type RunBase, type RunOutcome } from './outcome.js';

export interface DiffRunOptions extends RunBase {
  connect: Connect;
  /** Audit this session against the one manifest given, instead of the state's sessions. */
  session?: string;
  /** Only this user's sessions: of a per-user manifest, that user's whole diff. */
  user?: string;
  strict?: boolean;
  /** Also compare what an agent sees over each session's MCP endpoint. */
  mcp?: boolean;
  concurrency?: number;
  rateLimitPerMinute?: number;
  /** Progress over the sessions of a per-user manifest. */
  onFleetProgress?: (progress: RolloutProgress) => void;
}

/**
 * `diff`: validate, then compare every manifest with its session (GET), or one with `--session`;
 * a per-user manifest with every recorded session of it, summarised by field.
 */
export async function runDiff(paths: readonly string[], options: DiffRunOptions): Promise<RunOutcome> {
  const inputs = await loadAndValidate(paths, options);
  if (inputs.blocked) return maskReport(outcomeOf('diff', inputs), inputs.masker, options.revealSensitive);
  await options.guard?.();
  if (options.session !== undefined && inputs.documents.length !== 1) {
    throw new UsageError(`--session compares one manifest with one session, but the paths hold ${inputs.documents.length} manifests`, 'name a single manifest (a file with one document)');
  }
  const state = options.session === undefined ? await options.state.load() : undefined;
  // Every recorded user of a manifest whose user comes from the environment (with --user, that
  // user's alone); a per-user manifest's sessions are the fleet's, read page by page below.
  const fixed = state === undefined ? inputs.documents : withRecordedUsers(inputs.documents.filter((d) => !isPerUser(d.data)), state).filter((d) => options.user === undefined || recordedUserId(d) === options.user);
  const fleets = state === undefined ? [] : inputs.documents.filter((d) => isPerUser(d.data));
  // Nothing recorded means nothing to read: no connection (and no key) is needed to say so.
  const needsNetwork = options.session !== undefined || fixed.some((d) => state?.get(d.name, recordedUserId(d)) !== undefined) || fleets.some((d) => options.user !== undefined || (state?.fleet?.get(d.name)?.sessions ?? 0) > 0);
  const api = needsNetwork ? await options.connect() : undefined;
  try {
    const limiter = options.rateLimitPerMinute === undefined ? undefined : new RateLimiter(options.rateLimitPerMinute);
    const getSession = (id: string) => (api ?? unreachable()).getSession(id);
    const checkOptions: DriftCheckOptions = {
      getSession,
      concurrency: options.concurrency ?? 8,
      strict: options.strict === true,
      revealSensitive: options.revealSensitive === true,
      ...(limiter ? { limiter } : {}),
      ...(options.mcp === true ? { mcpTools: (id: string) => (api ?? unreachable()).mcpToolNames(id) } : {}),
    };
    const result = options.session !== undefined ? await checkSession(inputs.documents[0]!, options.session, checkOptions) : await checkRecordedSessions(fixed, state!, checkOptions);
    const fleet = fleets.length === 0 ? undefined : await diffFleets(fleets, state!, options.state, { ...checkOptions, api: { getSession }, limiter, concurrency: checkOptions.concurrency!, strict: options.strict === true, revealSensitive: options.revealSensitive === true, user: options.user, apiVersion: options.apiVersion ?? '3', onProgress: options.onFleetProgress });
    const report = makeReport('diff', inputs, [...result.diagnostics, ...(fleet?.diagnostics ?? [])]);
    const items = [...result.items, ...(fleet?.items ?? [])];
    // Only per-user manifests summarised: no table of fixed sessions to show.
    if (items.length > 0 || fleet === undefined) report.drift = { items };
    if (fleet !== undefined && fleet.fleets.length > 0) report.fleetDrift = fleet.fleets;
    return maskReport({ report, sources: inputs.sources, secrets: inputs.secrets }, inputs.masker, options.revealSensitive);
  } finally {
    await api?.close();
  }
}

function unreachable(): never {
  throw new Error('diff read a session without a connection');
}
