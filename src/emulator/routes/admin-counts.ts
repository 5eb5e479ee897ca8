import { httpError } from '../errors.js';
import { sees, type AdminAnswer, type AdminRequest } from './admin-request.js';

/** Users listed by `several`: enough for a test to name the duplicates, bounded for a fleet of 100,000. */
const MAX_LISTED = 100;

/** Distinct values counted by `by=`: a fleet's sessions hold a few configs, not 100,000. */
const MAX_VALUES = 100;

/** The value at a JSON pointer (`/tools/github`) of a stored config, as canonical text ('' when absent). */
function valueAt(config: unknown, pointer: string): string {
  let v: unknown = config;
  for (const part of pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))) {
    v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  }
  return v === undefined ? '' : JSON.stringify(v);
}

/**
 * `GET /_emulator/counts[?user_id=U][&by=/config/pointer]`: how many sessions there are, per config
 * version, how many users have one, and the users with more than one (a duplicate create), for
 * tests of a fleet; with `user_id`, the same for that user alone; with `by`, the sessions per
 * value of that part of their stored config (JSON text; '' where it is absent), so that a test
 * reads what 100,000 sessions hold without listing them. Counted, never listed. A tenant of a
 * shared emulator counts its own sessions alone.
 */
export function adminCounts(a: AdminRequest): AdminAnswer | undefined {
  if (a.parts[0] !== 'counts' || a.parts.length !== 1 || a.method !== 'GET') return undefined;
  const only = a.query.get('user_id') ?? undefined;
  const by = a.query.get('by') ?? undefined;
  if (by !== undefined && !by.startsWith('/')) throw httpError(400, 'by is a JSON pointer into the config, such as /tools/github');
  const byValue = new Map<string, number>();
  const perUser = new Map<string, number>();
  const byVersion: Record<string, number> = {};
  let sessions = 0;
  for (const s of a.state.store.sessions.values()) {
    if (!sees(a, s.tenant)) continue;
    const user = s.config.user_id;
    if (only !== undefined && user !== only) continue;
    sessions++;
    perUser.set(user, (perUser.get(user) ?? 0) + 1);
    byVersion[String(s.config_version)] = (byVersion[String(s.config_version)] ?? 0) + 1;
    if (by !== undefined) {
      const v = valueAt(s.config, by);
      byValue.set(v, (byValue.get(v) ?? 0) + 1);
    }
  }
  const several = [...perUser].filter(([, n]) => n > 1);
  return {
    status: 200,
    body: {
      sessions,
      users: perUser.size,
      by_config_version: byVersion,
      users_with_several: several.length,
      several: several.slice(0, MAX_LISTED).map(([user_id, n]) => ({ user_id, sessions: n })),
      ...(by !== undefined ? { by_value: Object.fromEntries([...byValue].sort((x, y) => y[1] - x[1]).slice(0, MAX_VALUES)) } : {}),
    },
  };
}
