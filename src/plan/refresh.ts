import { ApiError, isKeyRefused, KeyRefusedError } from '../client/errors.js';
import { computeDrift, type DriftItem } from '../config/drift.js';
import { expectedConfig } from '../config/expected.js';
import { maskDifferences } from '../config/verify.js';
import type { ManifestData } from '../config/types.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import { hasSession } from '../state/entry.js';
import { sensitiveMark } from '../util/sensitive.js';
import { mapConcurrent, type RateLimiter } from '../util/throttle.js';
import type { ApiVersion, Json } from '../wire/json.js';
import type { Session } from '../wire/session.js';
import { locateChanges, type FieldChange } from './field-changes.js';
import { repairBody } from './patch-body.js';
import type { Plan, PlanItem } from './plan.js';

export interface RefreshOptions {
  getSession(sessionId: string): Promise<Session>;
  concurrency: number;
  limiter?: RateLimiter;
  /** Differences the manifest does not declare (`added`) are drift to repair too. */
  strict?: boolean;
  /** Drift shows sensitive values as they are (`plan --show-sensitive`). */
  revealSensitive?: boolean;
  /** The API version the repair is sent with: only what its PATCH accepts is sent. Default 3. */
  apiVersion?: ApiVersion;
}

/**
 * Reads the live config of every recorded session (as terraform refreshes): a session that
 * answers 404 is planned for `create` again (with a `state/session-missing` warning; `checkMassMissing` stops a run where many are); one that drifted
 * from its manifest is planned for an `update` that repairs it, the drifted fields shown as
 * changes; a GET that fails otherwise is a `state/refresh-failed` error, and an item that was to
 * be a no-op becomes `unknown`: a session nobody could read is not shown as in sync. The live session is kept, for verification
 * and its config version.
 */
export async function refreshPlan(plan: Plan, options: RefreshOptions): Promise<Plan> {
  const diagnostics: Diagnostic[] = [...plan.diagnostics];
  const items = await mapConcurrent(plan.items, options.concurrency, async (item): Promise<PlanItem> => {
    const recorded = item.recorded;
    if (recorded === undefined || !hasSession(recorded) || item.blocked || item.action === 'create') return item;
    await options.limiter?.acquire();
    let live: Session;
    try {
      live = await options.getSession(recorded.session_id);
    } catch (err) {
      // A refused key fails every read alike: the run stops at the first, with one message.
      if (isKeyRefused(err)) throw new KeyRefusedError(err as ApiError);
      if (err instanceof ApiError && err.status === 404) {
        diagnostics.push(atDocument(item.doc, 'state/session-missing', 'warning', `${item.name}: recorded session ${recorded.session_id} no longer exists (404); it will be created again`));
        const { replaces: _gone, patch: _patch, ...rest } = item;
        return { ...rest, action: 'create', reason: 'session-missing', changes: [] };
      }
      diagnostics.push(atDocument(item.doc, 'state/refresh-failed', 'error', `${item.name}: cannot read recorded session ${recorded.session_id}: ${describe(err)}`));
      // Only an item that the read was to confirm becomes unknown. An update or a replace goes
      // ahead as planned: its PATCH carries the version the state records (a change made since
      // is a 409, nothing overwritten), and a replace makes a new session whatever the old holds.
      return item.action === 'no-op' ? { ...item, action: 'unknown', reason: 'unreadable' } : item;
    }
    return withDrift({ ...item, live }, live, { strict: options.strict === true, revealSensitive: options.revealSensitive === true, version: options.apiVersion ?? '3' });
  });
  return { ...plan, items, diagnostics };
}

/** The item with the drift of its live session planned for repair (a replace makes a new session anyway). */
function withDrift(item: PlanItem, live: Session, options: { strict: boolean; revealSensitive: boolean; version: ApiVersion }): PlanItem {
  if (item.action === 'replace') return item;
  const strict = options.strict;
  const drifted = driftOf(item, live, strict);
  if (drifted.length === 0) return item;
  // A meta tool that follows a drifted key (the workbench tools of `workbench.enable`) is its consequence, not a change of its own.
  const keys = new Set(drifted.filter((d) => d.path !== '/tool_router_tools').map((d) => d.pointer));
  const counted = drifted.filter((d) => d.path !== '/tool_router_tools' || !keys.has(d.pointer));
  const repair = repairBody(item.body as unknown as { [key: string]: Json }, new Set(counted.map(topLevelKey).filter((k): k is string => k !== undefined)), { strict, version: options.version });
  return {
    ...item,
    action: 'update',
    reason: item.action === 'update' ? item.reason : 'drifted',
    // Shown as verifySession shows drift: a sensitive field masked on both sides, unless revealed.
    changes: [...item.changes, ...locateChanges(item.doc, (item.doc.sensitive === undefined || options.revealSensitive ? counted : maskDifferences(counted, item.doc)).map(driftChange))],
    patch: { ...repair, ...(item.patch ?? {}) },
  };
}

/**
 * The differences that are drift. An update is measured against what was applied before it (the
 * pending change is not drift); but on a key its PATCH sends anyway, drift found there is shown
 * against the declared value, which is what the PATCH leaves (a member the change removes is not
 * shown as put back).
 */
function driftOf(item: PlanItem, live: Session, strict: boolean): DriftItem[] {
  const counts = (d: DriftItem) => d.kind === 'changed' || d.kind === 'dropped' || (strict && d.kind === 'added');
  const declared = computeDrift(item.expected, live).filter(counts);
  if (item.action !== 'update' || item.recorded?.body == null) return declared;
  const sinceApplied = computeDrift(expectedConfig(item.recorded.body as ManifestData), live).filter(counts);
  const sent = new Set<string | undefined>(Object.keys(item.patch ?? {}));
  const driftedKeys = new Set(sinceApplied.map(topLevelKey));
  const drifted = [...sinceApplied.filter((d) => !sent.has(topLevelKey(d))), ...declared.filter((d) => sent.has(topLevelKey(d)) && driftedKeys.has(topLevelKey(d)))];
  // In the config's order, as one check would list them.
  const order = [...new Set([...declared, ...sinceApplied].map(topLevelKey))];
  return drifted.sort((a, b) => order.indexOf(topLevelKey(a)) - order.indexOf(topLevelKey(b)));
}

/** The config key a difference is under: where it was declared, else where the service holds it. */
export function topLevelKey(d: DriftItem): string | undefined {
  const declared = d.pointer.split('/')[1];
  if (declared !== undefined && declared !== '') return declared;
  return d.path.startsWith('/config/') ? d.path.split('/')[2] : undefined;
}

/** A drifted field as a change from the live value to the declared one. */
export function driftChange(d: DriftItem): FieldChange {
  // A list member's pointer names the member; the field is the list.
  const pointer = d.member !== undefined ? d.pointer.replace(/\/\d+$/, '') : d.pointer;
  const field = d.path === '/tool_router_tools' ? 'tool_router_tools' : pointer !== '' ? pointer.slice(1).split('/').join('.') : d.path.replace(/^\/config\//, '').split('/').join('.');
  const base = { field, pointer: d.pointer, source: 'drift' as const };
  if (d.member !== undefined) {
    const live = Array.isArray(d.actual) && d.actual.some((m) => JSON.stringify(m) === JSON.stringify(d.member));
    return { ...base, op: 'change', members: live ? { added: [], removed: [d.member] } : { added: [d.member], removed: [] } };
  }
  if (d.sensitive !== undefined && d.kind === 'changed') {
    const mark = sensitiveMark(d.sensitive);
    return { ...base, op: 'change', old: mark, new: mark };
  }
  if (d.kind === 'dropped') return { ...base, op: 'add', new: d.expected ?? null };
  if (d.kind === 'added') return { ...base, op: 'remove', old: d.actual ?? null };
  return { ...base, op: 'change', old: d.actual ?? null, new: d.expected ?? null };
}

function describe(err: unknown): string {
  if (err instanceof ApiError) return `${err.message}${err.status !== undefined ? ` (HTTP ${err.status})` : ''}`;
  return err instanceof Error ? err.message : String(err);
}
