import type { ManifestData } from '../config/types.js';
import { isPerUser } from '../manifest/per-user.js';
import type { ManifestDocument } from '../manifest/types.js';
import { hasSession } from '../state/entry.js';
import type { StateView } from '../state/store.js';

/**
 * The documents of a run with one more for each user a manifest was applied for before: a
 * manifest whose `user_id` comes from the environment (`${USER_ID}`, a pipeline looping over
 * users) serves every user it was applied for, so plan, apply and diff report (and update) all of
 * its recorded users, not only the one in this run's environment. Each added document is the
 * manifest with that user's id. A literal user is one user (another recorded user is a replace);
 * a sensitive user id is recorded as a digest, which cannot be turned back into the id.
 */
export function withRecordedUsers(documents: readonly ManifestDocument[], state: Pick<StateView, 'list'>): ManifestDocument[] {
  const fromEnvironment = documents.filter((d) => userFromEnvironment(d));
  if (fromEnvironment.length === 0) return [...documents];
  const byName = new Map<string, string[]>();
  for (const e of state.list()) if (hasSession(e)) byName.set(e.name, [...(byName.get(e.name) ?? []), e.user_id]);
  const out: ManifestDocument[] = [];
  for (const doc of documents) {
    out.push(doc);
    if (!fromEnvironment.includes(doc)) continue;
    const own = String((doc.data as ManifestData).user_id);
    for (const user of byName.get(doc.name) ?? []) if (user !== own) out.push({ ...doc, data: { ...(doc.data as object), user_id: user } });
  }
  return out;
}

function userFromEnvironment(doc: ManifestDocument): boolean {
  const source = doc.scalar('/user_id')?.source;
  return source !== undefined && source.includes('${') && !isPerUser(doc.data) && doc.sensitive?.get('/user_id') === undefined;
}
