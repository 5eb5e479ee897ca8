import { ApiError } from '../client/errors.js';
import type { SessionClient } from '../client/client.js';
import type { DriftItem } from '../config/drift.js';
import type { ExpectedConfig } from '../config/expected.js';
import type { ManifestDocument } from '../manifest/types.js';
import type { FleetSession } from '../state/fleet.js';
import type { RateLimiter } from '../util/throttle.js';
import { eachRow, fleetRows, type PageReader } from './pages.js';
import { driftItems, fieldOf, readBack } from './session-step.js';
import type { RolloutProgress } from './types.js';

/** Users named per count: enough to look at, never a list. */
export const DRIFT_SAMPLES = 3;

/** How many sessions, and the first few of their users by id. */
export interface Counted {
  count: number;
  samples: string[];
}

/** One field where sessions differ from the manifest. */
export interface FleetFieldDrift extends Counted {
  /** As reports name it: `tools.github.disable`. */
  field: string;
  /** The manifest pointer it is shown at: the declared key, or the nearest declared ancestor. */
  pointer: string;
}

/** What `diff` found over the recorded sessions of one per-user manifest: counted per field, never listed. */
export interface FleetDrift {
  name: string;
  file: string;
  /** The version published (undefined when none is). */
  version: number | undefined;
  /** Whether the manifest given is that version: false when it changed since (apply publishes and rolls it out). */
  manifestPublished: boolean;
  /** Sessions read from the state (claims not counted). */
  sessions: number;
  inSync: number;
  /** Sessions that differ from the manifest in at least one field. */
  drifted: Counted;
  /** Per field, most sessions first. */
  fields: FleetFieldDrift[];
  /** On an older version than the one published: not drift, the rollout's work (not read). */
  behind: Counted;
  /** Recorded, and answering 404. */
  missing: Counted;
  /** The GET failed otherwise (after the client's retries); the first error, for the report. */
  unreadable: Counted & { error?: string };
  /** The run was interrupted before every session was read. */
  interrupted: boolean;
}

export interface FleetDiffInput {
  doc: ManifestDocument;
  /** The config the manifest expects of one user's session. */
  expected: (userId: string) => ExpectedConfig;
  /** Manifest pointers the application fills from its own environment: not compared. */
  filledByApplication: ReadonlySet<string>;
  version: number | undefined;
  manifestPublished: boolean;
  read: PageReader;
  pageSize: number;
}

export interface FleetDiffOptions {
  api: Pick<SessionClient, 'getSession'>;
  limiter?: RateLimiter | undefined;
  concurrency: number;
  strict: boolean;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: RolloutProgress) => void) | undefined;
}

/** Adds a user to a count, keeping the first few users by id (so that the samples do not depend on the order answers came in). */
export function countUser(c: Counted, userId: string): void {
  c.count++;
  if (c.samples.length >= DRIFT_SAMPLES && userId >= c.samples[DRIFT_SAMPLES - 1]!) return;
  c.samples = [...c.samples, userId].sort().slice(0, DRIFT_SAMPLES);
}

const none = (): Counted => ({ count: 0, samples: [] });

/**
 * Reads every recorded session of a per-user manifest (page by page from the state, a GET each at
 * the concurrency and rate asked) and compares it with the manifest, as the rollout's read-back
 * does. Sessions on an older version than the one published are counted as behind, not read: the
 * next apply rolls them out. Reading takes no lock: a session created meanwhile may be missed.
 */
export async function diffFleet(input: FleetDiffInput, options: FleetDiffOptions, total: number): Promise<FleetDrift> {
  const { doc } = input;
  const out: FleetDrift = { name: doc.name, file: doc.file, version: input.version, manifestPublished: input.manifestPublished, sessions: 0, inSync: 0, drifted: none(), fields: [], behind: none(), missing: none(), unreadable: none(), interrupted: false };
  const fields = new Map<string, FleetFieldDrift>();
  const ctx = { api: options.api, limiter: options.limiter, doc, expected: input.expected, strict: options.strict, filledByApplication: input.filledByApplication };
  const started = Date.now();
  const going = (): boolean => options.signal?.aborted !== true;
  let done = 0;
  await eachRow(fleetRows(input.read, input.pageSize), options.concurrency, going, async (row) => {
    out.sessions++;
    await compareOne(row, out, fields, input.version, ctx);
    progress(out.name, ++done, Math.max(total, out.sessions), out.unreadable.count, started, options.onProgress);
  });
  out.interrupted = !going();
  out.fields = [...fields.values()].sort((a, b) => b.count - a.count || (a.field < b.field ? -1 : a.field > b.field ? 1 : 0));
  return out;
}

async function compareOne(row: FleetSession, out: FleetDrift, fields: Map<string, FleetFieldDrift>, version: number | undefined, ctx: Parameters<typeof driftItems>[2] & Parameters<typeof readBack>[1]): Promise<void> {
  if (version !== undefined && (row.version === null || row.version < version)) return countUser(out.behind, row.user_id);
  const live = await readBack(row, ctx);
  if (live instanceof ApiError) {
    if (live.status === 404) return countUser(out.missing, row.user_id);
    out.unreadable.error ??= `${live.message}${live.status !== undefined ? ` (HTTP ${live.status})` : ''}`;
    return countUser(out.unreadable, row.user_id);
  }
  const items = driftItems(live, row.user_id, ctx);
  if (items.length === 0) {
    out.inSync++;
    return;
  }
  countUser(out.drifted, row.user_id);
  const seen = new Set<string>();
  for (const d of items) {
    const { field, pointer } = fleetField(d);
    if (seen.has(field)) continue;
    seen.add(field);
    let f = fields.get(field);
    if (f === undefined) fields.set(field, (f = { field, pointer, ...none() }));
    countUser(f, row.user_id);
  }
}

/**
 * The field a difference is counted under: the manifest's key as declared (`tools.github.disable`,
 * where the report's annotation points, and where a meta tool's difference joins the key that
 * decides it), or the service's own key for what the manifest does not declare.
 */
function fleetField(d: DriftItem): { field: string; pointer: string } {
  const pointer = d.pointer.replace(/\/\d+$/, '');
  if (d.kind === 'added' || pointer === '') return { field: fieldOf(d.path), pointer };
  return { field: pointer.slice(1).replace(/\//g, '.').replace(/~1/g, '/').replace(/~0/g, '~'), pointer };
}

function progress(name: string, done: number, total: number, failed: number, started: number, onProgress: FleetDiffOptions['onProgress']): void {
  if (onProgress === undefined) return;
  const seconds = (Date.now() - started) / 1000;
  const rate = seconds > 0 ? done / seconds : 0;
  onProgress({ name, done, total, failed, rate, eta: rate > 0 ? (total - done) / rate : undefined, phase: 'rollout', verb: 'diff' });
}
