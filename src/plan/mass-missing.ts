import { UsageError } from '../diagnostics/errors.js';
import type { Plan } from './plan.js';

/** `--max-missing`: more recorded sessions gone than this stops the run. */
export type MissingLimit = { count: number } | { percent: number };

export interface MissingGuard {
  /** `--recreate-missing`: the sessions really are gone; create them again, however many. */
  recreateMissing?: boolean;
  maxMissing?: MissingLimit;
  /** The service, for the message. */
  service: string;
}

/**
 * Stops a run, before any request that changes anything, when recorded sessions answered 404 in
 * numbers no real deletion explains: every one read (two or more), or more than `--max-missing`.
 * A key of another project, or another base URL, answers exactly so, and re-creating every session
 * there would re-point the shared state at them. One missing session stays a plan item.
 */
export function checkMassMissing(plan: Plan, guard: MissingGuard): void {
  if (guard.recreateMissing === true) return;
  const missing = plan.items.filter((i) => i.reason === 'session-missing').length;
  const read = missing + plan.items.filter((i) => i.live !== undefined).length;
  const all = missing >= 2 && missing === read;
  const limit = guard.maxMissing === undefined ? undefined : 'count' in guard.maxMissing ? guard.maxMissing.count : Math.floor((read * guard.maxMissing.percent) / 100);
  if (!all && (limit === undefined || missing <= limit)) return;
  const why = all ? (read === 2 ? 'both' : `all ${read}`) : `${missing} of the ${read}`;
  throw new UsageError(
    `${why} recorded sessions that were read answer 404 (not found) at ${guard.service}: no real deletion explains ${all ? 'all of them' : 'that many'}, a key of another project or another base URL does; nothing was created, updated or deleted`,
    `check COMPOSIO_API_KEY and --base-url (or the project's base_url); if these sessions really are gone, run again with --recreate-missing${guard.maxMissing !== undefined ? ' or a higher --max-missing' : ''}`,
  );
}

/** `--max-missing 10` or `--max-missing 5%`; undefined when it is neither. */
export function parseMissingLimit(value: string): MissingLimit | undefined {
  const m = /^(\d{1,9})(%?)$/.exec(value.trim());
  if (m === null) return undefined;
  const n = Number(m[1]);
  if (m[2] === '%') return n <= 100 ? { percent: n } : undefined;
  return { count: n };
}
