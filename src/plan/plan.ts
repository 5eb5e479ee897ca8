import { createHash } from 'node:crypto';
import { expectedConfig, type ExpectedConfig } from '../config/expected.js';
import { bodyHash, canonicalJson, requestBody } from '../config/request.js';
import { recordedUserId, storedBody } from '../config/sensitive-fields.js';
import type { CreateSessionBody, ManifestData } from '../config/types.js';
import { sameEffect } from '../config/equivalent.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import type { ManifestDocument } from '../manifest/types.js';
import { hasSession, type StateEntry } from '../state/entry.js';
import type { StateView } from '../state/store.js';
import type { ApiVersion, Json } from '../wire/json.js';
import type { UpdateSessionRequest } from '../wire/request.js';
import type { Session } from '../wire/session.js';
import { fieldChanges, locateChanges, type FieldChange } from './field-changes.js';
import { changedUnpatchable, NOT_PATCHABLE, patchBody } from './patch-body.js';
import { prunable, type PruneScope } from './prune.js';
import { deletionsOf, type Deletion } from './deletions.js';
import { fleetSessions, prunableFleets, type FleetDeletion } from './fleet-deletions.js';

export { deletionOf, deletionsOf, type Deletion } from './deletions.js';
import { planPublication, type PublicationPlan } from './publications.js';
import { rolloutWork } from './rollout-plan.js';
import { withRecordedUsers } from './recorded-users.js';
import { END_USER, isPerUser } from '../manifest/per-user.js';
import { renamed } from './renamed.js';

/**
 * What apply does for a manifest and user (DESIGN §4):
 * - `create`:  no session is recorded (or the recorded one is gone);
 * - `update`:  the declared config changed, or the live one drifted: PATCH in place (same id, same MCP URL);
 * - `replace`: what PATCH cannot change changed (`user_id`, custom tools): a new session, then the old one deleted;
 * - `no-op`:   the session has the declared config;
 * - `unknown`: refresh could not read the recorded session (network, 5xx after retries), so
 *   whether it still exists or drifted is not known: nothing is planned for it, and it is never
 *   counted as a no-op.
 * Deletions (`--prune`, `destroy`) are the plan's `deletions`.
 */
export type PlanAction = 'create' | 'update' | 'replace' | 'no-op' | 'unknown';

export type PlanReason =
  | 'not-applied'
  | 'session-missing'
  | 'outcome-unknown'
  | 'config-changed'
  | 'drifted'
  | 'user-changed'
  | 'custom-tools-changed'
  | 'not-patchable'
  | 'up-to-date'
  | 'unreadable';

export interface PlanItem {
  name: string;
  /** The manifest file, as the loader received it. */
  file: string;
  user_id: string;
  action: PlanAction;
  reason: PlanReason;
  /** The request body a create sends, sensitive values and all. */
  body: CreateSessionBody;
  /** The body as the state records it: sensitive values in their stored form (mask and digest). */
  stored: { [key: string]: Json };
  /** The hash of `stored`: a changed secret changes it, and nothing can be read back from it. */
  body_hash: string;
  expected: ExpectedConfig;
  doc: ManifestDocument;
  /** The state's entry for this manifest and user, when there is one. */
  recorded?: StateEntry;
  /** With refresh: the recorded session as it answered the GET. */
  live?: Session;
  /** A saved plan's item: the config version its review saw, which the PATCH carries (a 409 is a stale plan). */
  pinnedVersion?: number;
  /** What changes, field by field (declared changes, and with refresh the drift to repair). */
  changes: FieldChange[];
  /** `update`: the PATCH body. */
  patch?: UpdateSessionRequest;
  /** `replace`: the session to delete once the new one is recorded, and the entry it is recorded under. */
  replaces?: StateEntry;
  /** `replace` for `not-patchable`: the fields that changed which the API version's PATCH cannot carry, and that version. */
  unpatchable?: { fields: string[]; apiVersion: ApiVersion };
  /** Sessions an earlier replace left to delete (its delete failed or was interrupted). */
  cleanup: string[];
  /** A create whose outcome is unknown stands in the way: nothing is sent for this manifest. */
  blocked: boolean;
}

export interface Plan {
  items: PlanItem[];
  deletions: Deletion[];
  /** Hash of every manifest's name, user and body hash: a saved plan is valid only while it holds. */
  manifestsHash: string;
  /** Hash of the state as read ('' when there was none). */
  stateHash: string;
  /** Findings of planning and refresh (an outcome unknown, a recorded session gone, a GET that failed). */
  diagnostics: Diagnostic[];
  /** Recorded sessions of manifests gone from these paths that `--prune` would delete, when it was not given. */
  prunable: number;
  /** Per-user manifests: what apply publishes for the application's `ensure` (it creates no session for them). */
  publications: PublicationPlan[];
  /** Those sessions, by name (the count alone leaves a reader to guess which). */
  orphans?: Orphan[];
  /** Per-user manifests whose every session goes (`--prune` once the file is gone, `destroy`), then their publication. */
  fleetDeletions?: FleetDeletion[];
  /** Per-user manifests whose file is gone from these paths, left as they are without `--prune`. */
  fleetOrphans?: FleetDeletion[];
}

/** A recorded session whose manifest is gone from the run's paths, left as it is without `--prune`. */
export interface Orphan {
  name: string;
  user_id: string;
  session_id: string;
}

export interface PlanOptions {
  /** Delete recorded sessions whose manifests are gone from these paths (absolute files, folders or globs). */
  prune?: PruneScope;
  /** Plan the prunable deletions only to count them (plan without --prune says how many there are). */
  countPrunable?: PruneScope;
  /** Create again where a create's outcome is unknown (the user checked that no session exists). */
  recreateUnknown?: boolean;
  /** The API version apply will speak: what its PATCH accepts decides update or replace, and per-user manifests are published with it. Default 3. */
  apiVersion?: ApiVersion;
}

/** The actions for validated manifests against the state. Pure: no network, no file access. */
export function buildPlan(documents: readonly ManifestDocument[], state: Pick<StateView, 'get' | 'list' | 'hashAtLoad' | 'published' | 'fleet'>, options: PlanOptions = {}): Plan {
  const diagnostics: Diagnostic[] = [];
  const consumed = new Set<StateEntry>();
  const publications = documents.filter((d) => isPerUser(d.data)).map((doc) => planPublication(doc, state, options.apiVersion ?? '3'));
  const sessions = withRecordedUsers(documents.filter((d) => !isPerUser(d.data)), state);
  const items = sessions.map((doc) => planItem(doc, state, options, diagnostics, consumed)).map((i) => ({ ...i, changes: locateChanges(i.doc, i.changes) }));
  const pruneScope = options.prune ?? options.countPrunable;
  const candidates = pruneScope === undefined ? [] : prunable(state.list(), documents, consumed, pruneScope);
  // A session that an entry which stays also records (`import b` of a's session) is still in use:
  // deleting it would take it from the manifest that keeps it. Its other entry is left as it is.
  const staying = new Set(state.list().filter((e) => !candidates.includes(e)).map((e) => e.session_id));
  const gone = candidates.filter((e) => !staying.has(e.session_id));
  if (options.prune !== undefined) for (const e of candidates.filter((c) => staying.has(c.session_id))) diagnostics.push(sharedSession(e, state.list()));
  const deletions = deletionsOf(gone, 'manifest-removed');
  diagnostics.push(...renamed(items, gone, options.prune !== undefined));
  // A saved plan holds only while the publications it would write are the same too.
  const hashed = [...items, ...publications.map((p) => ({ name: p.name, user_id: END_USER, body_hash: p.body_hash }))];
  const pruning = options.prune !== undefined;
  const orphans = pruning ? [] : deletions.map(({ name, user_id, session_id }) => ({ name, user_id, session_id }));
  const fleets = pruneScope === undefined ? [] : prunableFleets(documents, state, pruneScope);
  const fleetBlock = fleets.length === 0 ? {} : pruning ? { fleetDeletions: fleets } : { fleetOrphans: fleets };
  return { items, deletions: pruning ? deletions : [], manifestsHash: manifestsHash(hashed), stateHash: state.hashAtLoad, diagnostics, prunable: pruning ? 0 : deletions.length, orphans, publications, ...fleetBlock };
}

function sharedSession(entry: StateEntry, entries: readonly StateEntry[]): Diagnostic {
  const other = entries.find((e) => e !== entry && e.session_id === entry.session_id)!;
  return {
    code: 'plan/shared-session',
    severity: 'warning',
    message: `${entry.name} (user ${JSON.stringify(entry.user_id)}): its manifest is gone, but its session ${entry.session_id} is also recorded for ${other.name}, which stays; it is not deleted`,
    hint: `\`sessionctl state rm ${entry.name}\` forgets the entry and leaves the session to ${other.name}`,
  };
}

function planItem(doc: ManifestDocument, state: Pick<StateView, 'get' | 'list'>, options: PlanOptions, diagnostics: Diagnostic[], consumed: Set<StateEntry>): PlanItem {
  const data = doc.data as ManifestData;
  const body = requestBody(data);
  // Compared, recorded and hashed in the stored form: the state never holds a sensitive value.
  const stored = storedBody(body as unknown as { [key: string]: Json }, doc);
  const userId = recordedUserId(doc);
  const recorded = state.get(doc.name, userId);
  if (recorded !== undefined) consumed.add(recorded);
  const base: PlanItem = {
    name: doc.name,
    file: doc.file,
    user_id: userId,
    action: 'no-op',
    reason: 'up-to-date',
    body,
    stored,
    body_hash: bodyHash(stored),
    expected: expectedConfig(data),
    doc,
    ...(recorded !== undefined ? { recorded } : {}),
    changes: [],
    cleanup: [...(recorded?.superseded ?? [])],
    blocked: false,
  };
  if (recorded?.pending_create !== undefined && options.recreateUnknown !== true) {
    diagnostics.push(outcomeUnknown(doc, userId, recorded));
    return { ...base, action: hasSession(recorded) ? 'update' : 'create', reason: 'outcome-unknown', blocked: true };
  }
  if (recorded === undefined || !hasSession(recorded)) {
    const previous = singleUser(doc) ? otherUser(state, doc.name, userId) : undefined;
    if (previous !== undefined) {
      consumed.add(previous);
      const changes = previous.body !== null ? fieldChanges(previous.body as Json, stored) : [{ field: 'user_id', pointer: '/user_id', op: 'change' as const, old: previous.user_id, new: userId, source: 'manifest' as const }];
      return { ...base, action: 'replace', reason: 'user-changed', replaces: previous, changes };
    }
    return { ...base, action: 'create', reason: 'not-applied' };
  }
  const before = recorded.body;
  const changes = before === null ? [] : fieldChanges(before as Json, stored);
  // Written differently, asking for the same: nothing to send (an exported manifest, a default spelled out).
  if (before !== null && (changes.length === 0 || sameEffect(before, stored))) return base;
  const version = options.apiVersion ?? '3';
  const fixed = before === null ? [] : changedUnpatchable(before, stored, version);
  if (fixed.some((f) => NOT_PATCHABLE.includes(f))) return { ...base, action: 'replace', reason: 'custom-tools-changed', replaces: recorded, changes };
  // A field this version's PATCH refuses (400): only a new session can carry it.
  if (fixed.length > 0) return { ...base, action: 'replace', reason: 'not-patchable', replaces: recorded, changes, unpatchable: { fields: fixed, apiVersion: version } };
  // An adopted session, or state written before bodies were recorded: every declared field PATCH accepts is sent.
  if (before === null && recorded.body_hash === base.body_hash) return base;
  return { ...base, action: 'update', reason: 'config-changed', changes, patch: patchBody(before, stored, body as unknown as { [key: string]: Json }, version) };
}

/**
 * Whether a manifest serves one user: its `user_id` is written as a literal. A `${VAR}` user id
 * serves whoever the variable names in each run, so another user's session is not its old one.
 */
function singleUser(doc: ManifestDocument): boolean {
  const source = doc.scalar('/user_id')?.source;
  return source !== undefined && !source.includes('${');
}

/** The one session recorded for this manifest name under another user, if there is exactly one. */
function otherUser(state: Pick<StateView, 'list'>, name: string, userId: string): StateEntry | undefined {
  const others = state.list().filter((e) => e.name === name && e.user_id !== userId && hasSession(e));
  return others.length === 1 ? others[0] : undefined;
}

/** A create of this manifest and user whose outcome is unknown stands in the way (plan, diff). */
export function outcomeUnknown(doc: ManifestDocument, userId: string, entry: StateEntry): Diagnostic {
  const pending = entry.pending_create!;
  // An intent still in flight was left by a run that never recorded the answer (killed, or its
  // state lost mid-run): that run's report is where a session it created is named.
  const why = pending.reason ?? (pending.status === 'in-flight' ? "the run that sent it ended before it recorded the answer: it was killed, or lost its state; that run's report names a session it created" : undefined);
  const d = atDocument(
    doc,
    'state/outcome-unknown',
    'error',
    `${doc.name}: a create for user ${JSON.stringify(userId)} was sent at ${pending.since} and its outcome is unknown${why !== undefined ? ` (${why})` : ''}; a session may exist that the state does not record, so nothing is sent for this manifest`,
  );
  d.hint = `look for a session of user ${JSON.stringify(userId)} created from ${pending.since} on; adopt it with \`sessionctl import ${doc.name} trs_...\`, or, if there is none, apply with --recreate-unknown to create it`;
  return d;
}

/** The hash a saved plan stores for its manifests: names, users and body hashes, order-independent. */
export function manifestsHash(items: readonly Pick<PlanItem, 'name' | 'user_id' | 'body_hash'>[]): string {
  const rows = items.map((i) => [i.name, i.user_id, i.body_hash]).sort((a, b) => (canonicalJson(a) < canonicalJson(b) ? -1 : 1));
  return createHash('sha256').update(canonicalJson(rows)).digest('hex');
}

export interface PlanCounts {
  create: number;
  update: number;
  replace: number;
  delete: number;
  'no-op': number;
  unknown: number;
}

export function countActions(plan: Pick<Plan, 'items' | 'deletions' | 'fleetDeletions'>): PlanCounts {
  // A per-user manifest's sessions are counted one by one, as fixed sessions are: they all go.
  const c: PlanCounts = { create: 0, update: 0, replace: 0, delete: plan.deletions.length + fleetSessions(plan.fleetDeletions), 'no-op': 0, unknown: 0 };
  for (const i of plan.items) c[i.action]++;
  return c;
}

/** `1 to create, 0 to update, 0 to replace, 0 to delete, 2 no-op`, and `, 1 unknown` when a session could not be read. */
export function formatCounts(c: PlanCounts): string {
  return `${c.create} to create, ${c.update} to update, ${c.replace} to replace, ${c.delete} to delete, ${c['no-op']} no-op${c.unknown > 0 ? `, ${c.unknown} unknown` : ''}`;
}

/**
 * Whether apply would change anything: `plan --detailed-exitcode` exits 4 then. An `unknown` item
 * changes nothing (apply sends nothing for it); its failed read decides the exit code.
 */
export function hasChanges(plan: Pick<Plan, 'items' | 'deletions'> & Partial<Pick<Plan, 'publications' | 'fleetDeletions'>>): boolean {
  // Sessions still on an older version are work too: an interrupted rollout shows as changes until it ends.
  const publishes = (plan.publications ?? []).some((p) => p.action === 'publish' || rolloutWork(p.rollout) > 0);
  return publishes || plan.deletions.length > 0 || (plan.fleetDeletions ?? []).length > 0 || plan.items.some((i) => i.action !== 'unknown' && (i.action !== 'no-op' || i.cleanup.length > 0));
}
