import { sees, type AdminAnswer, type AdminRequest } from './admin-request.js';

/** Users listed by `several`: enough for a test to name the duplicates, bounded for a fleet of 100,000. */
const MAX_LISTED = 100;

/**
 * `GET /_emulator/counts[?user_id=U]`: how many sessions there are, per config version, how many
 * users have one, and the users with more than one (a duplicate create), for tests of a fleet;
 * with `user_id`, the same for that user alone. Counted, never listed: the answer stays small.
 * A tenant of a shared emulator counts its own sessions alone.
 */
export function adminCounts(a: AdminRequest): AdminAnswer | undefined {
  if (a.parts[0] !== 'counts' || a.parts.length !== 1 || a.method !== 'GET') return undefined;
  const only = a.query.get('user_id') ?? undefined;
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
    },
  };
}
