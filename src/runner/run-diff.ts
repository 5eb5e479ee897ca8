import { recordedUserId } from '../config/sensitive-fields.js';
import { isPerUser } from '../manifest/per-user.js';
import { withRecordedUsers } from '../plan/recorded-users.js';
import { perUserNotCovered } from '../plan/per-user-not-covered.js';
import { UsageError } from '../diagnostics/errors.js';
import { checkRecordedSessions, checkSession, type DriftCheckOptions } from '../plan/drift-check.js';
import { RateLimiter } from '../util/throttle.js';
import type { Connect } from './connection.js';
import { loadAndValidate } from './inputs.js';
import { makeReport, maskReport, outcomeOf, type RunBase, type RunOutcome } from './outcome.js';

export interface DiffRunOptions extends RunBase {
  connect: Connect;
  /** Audit this session against the one manifest given, instead of the state's sessions. */
  session?: string;
  strict?: boolean;
  /** Also compare what an agent sees over each session's MCP endpoint. */
  mcp?: boolean;
  concurrency?: number;
  rateLimitPerMinute?: number;
}

/** `diff`: validate, then compare every manifest with its session (GET), or one with `--session`. */
export async function runDiff(paths: readonly string[], options: DiffRunOptions): Promise<RunOutcome> {
  const inputs = await loadAndValidate(paths, options);
  if (inputs.blocked) return maskReport(outcomeOf('diff', inputs), inputs.masker, options.revealSensitive);
  await options.guard?.();
  if (options.session !== undefined && inputs.documents.length !== 1) {
    throw new UsageError(`--session compares one manifest with one session, but the paths hold ${inputs.documents.length} manifests`, 'name a single manifest (a file with one document)');
  }
  const state = options.session === undefined ? await options.state.load() : undefined;
  // Every recorded user of a manifest whose user comes from the environment; a per-user
  // manifest's sessions are the fleet's, which this diff does not read.
  const documents = state === undefined ? inputs.documents : withRecordedUsers(inputs.documents.filter((d) => !isPerUser(d.data)), state);
  // Nothing recorded means nothing to read: no connection (and no key) is needed to say so.
  const needsNetwork = options.session !== undefined || documents.some((d) => state?.get(d.name, recordedUserId(d)) !== undefined);
  const api = needsNetwork ? await options.connect() : undefined;
  try {
    const limiter = options.rateLimitPerMinute === undefined ? undefined : new RateLimiter(options.rateLimitPerMinute);
    const checkOptions: DriftCheckOptions = {
      getSession: (id) => (api ?? unreachable()).getSession(id),
      concurrency: options.concurrency ?? 8,
      strict: options.strict === true,
      revealSensitive: options.revealSensitive === true,
      ...(limiter ? { limiter } : {}),
      ...(options.mcp === true ? { mcpTools: (id: string) => (api ?? unreachable()).mcpToolNames(id) } : {}),
    };
    const result =
      options.session !== undefined ? await checkSession(inputs.documents[0]!, options.session, checkOptions) : await checkRecordedSessions(documents, state!, checkOptions);
    const report = makeReport('diff', inputs, [...result.diagnostics, ...(state === undefined ? [] : perUserNotCovered(inputs.documents, state, 'diff'))]);
    report.drift = { items: result.items };
    return maskReport({ report, sources: inputs.sources, secrets: inputs.secrets }, inputs.masker, options.revealSensitive);
  } finally {
    await api?.close();
  }
}

function unreachable(): never {
  throw new Error('diff read a session without a connection');
}
