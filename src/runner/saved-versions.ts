import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { Plan, PlanItem } from '../plan/plan.js';
import { storableVersion } from '../state/entry.js';
import type { SavedPlan } from './saved-plan.js';

type Saved = { path: string; plan: SavedPlan };

const key = (name: string, userId: string): string => JSON.stringify([name, userId]);

function savedItems(saved: SavedPlan): Map<string, SavedPlan['items'][number]> {
  return new Map(saved.items.map((i) => [key(i.name, i.user_id), i]));
}

/**
 * Why an item no longer is what the saved plan showed, or undefined: its session is at another
 * config version than the review saw (another writer's PATCH, drift), it is gone, or the action
 * differs (a service that keeps no versions: the refresh found drift the review did not show).
 */
function moved(item: PlanItem, reviewed: SavedPlan['items'][number]): string | undefined {
  const pinned = reviewed.config_version;
  const id = item.recorded?.session_id ?? reviewed.session_id ?? '';
  if (pinned !== undefined && pinned !== null) {
    if (item.reason === 'session-missing') return `session ${id} is gone (404); the plan was reviewed with it at config version ${pinned}`;
    const now = item.live?.config_version;
    if (item.live !== undefined && storableVersion(now) !== pinned) {
      return `session ${id} is at config version ${JSON.stringify(now ?? null).slice(0, 40)} now; the plan was reviewed with it at version ${pinned}`;
    }
  }
  if (item.action !== reviewed.action && item.action !== 'unknown') return `it is planned for ${item.action} now; the plan was reviewed as ${reviewed.action}`;
  return undefined;
}

/**
 * A `plan/stale` finding for each manifest whose session moved since the saved plan was made, read
 * by apply's own refresh (under the state lock, before any request that changes something). Empty
 * when everything is as reviewed.
 */
export function movedSince(plan: Plan, saved: Saved): Diagnostic[] {
  const reviewed = savedItems(saved.plan);
  const out: Diagnostic[] = [];
  for (const item of plan.items) {
    const r = reviewed.get(key(item.name, item.user_id));
    const why = r === undefined ? undefined : moved(item, r);
    if (why === undefined) continue;
    out.push({
      code: 'plan/stale',
      severity: 'error',
      message: `the saved plan is stale: ${item.name}: ${why}; nothing was applied`,
      file: saved.path,
      hint: 'someone changed the session since the review: run `sessionctl plan --refresh --out` again, review what it would now do, and apply the new plan',
    });
  }
  return out;
}

/**
 * The plan with each update carrying the version its review saw (`pinnedVersion`): without a
 * refresh in apply, a session changed since answers the PATCH with 409, reported as a stale plan.
 */
export function pinSavedVersions(plan: Plan, saved: Saved): Plan {
  const reviewed = savedItems(saved.plan);
  const items = plan.items.map((item) => {
    const pinned = reviewed.get(key(item.name, item.user_id))?.config_version;
    return typeof pinned === 'number' ? { ...item, pinnedVersion: pinned } : item;
  });
  return { ...plan, items };
}
