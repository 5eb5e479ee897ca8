import { ApiError } from '../client/errors.js';
import type { Session } from '../wire/session.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { atDocument } from '../manifest/at-document.js';
import { mapConcurrent, type RateLimiter } from '../util/throttle.js';
import type { Plan, PlanItem } from './plan.js';

export interface RefreshOptions {
  getSession(sessionId: string): Promise<Session>;
  concurrency: number;
  limiter?: RateLimiter;
}

/**
 * Confirms with GET that every `unchanged` item's recorded session still exists: a 404 makes it a
 * `create` (with a `state/session-missing` info); another failure leaves it `unchanged` with a
 * `state/refresh-failed` error. The session as it answered is kept for drift checks.
 */
export async function refreshPlan(plan: Plan, options: RefreshOptions): Promise<Plan> {
  const diagnostics: Diagnostic[] = [...plan.diagnostics];
  const items = await mapConcurrent(plan.items, options.concurrency, async (item): Promise<PlanItem> => {
    if (item.action !== 'unchanged' || item.recorded === undefined) return item;
    await options.limiter?.acquire();
    try {
      const live = await options.getSession(item.recorded.session_id);
      return { ...item, live };
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        diagnostics.push(atDocument(item.doc, 'state/session-missing', 'info', `${item.name}: recorded session ${item.recorded.session_id} no longer exists; it will be created again`));
        return { ...item, action: 'create', reason: 'session-missing' };
      }
      diagnostics.push(atDocument(item.doc, 'state/refresh-failed', 'error', `${item.name}: cannot read recorded session ${item.recorded.session_id}: ${describe(err)}`));
      return item;
    }
  });
  return { ...plan, items, diagnostics };
}

function describe(err: unknown): string {
  if (err instanceof ApiError) return `${err.message}${err.status !== undefined ? ` (HTTP ${err.status})` : ''}`;
  return err instanceof Error ? err.message : String(err);
}
