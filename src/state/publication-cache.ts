import type { Publication } from './fleet.js';

/**
 * The publications an application creates from, each read once per version: a claim reads only
 * the version and body hash it is created from, and the body (a manifest's whole config, parsed)
 * is read when that version is new to this process. A read that started before a publish and
 * answers an older version than the claim saw is read again: a session is never created from a
 * version older than its claim's.
 */
export function publicationCache(read: (name: string) => Promise<Publication | undefined>): (name: string, version: number, bodyHash: string) => Promise<Publication | undefined> {
  const known = new Map<string, Publication>();
  const reading = new Map<string, Promise<Publication | undefined>>();
  const shared = (name: string): Promise<Publication | undefined> => {
    let pending = reading.get(name);
    if (pending === undefined) {
      pending = read(name).finally(() => reading.delete(name));
      reading.set(name, pending);
    }
    return pending;
  };
  return async (name, version, bodyHash) => {
    const hit = known.get(name);
    if (hit !== undefined && hit.version === version && hit.body_hash === bodyHash) return hit;
    let fresh = await shared(name);
    if (fresh !== undefined && fresh.version < version) fresh = await read(name);
    if (fresh !== undefined) known.set(name, fresh);
    return fresh;
  };
}
