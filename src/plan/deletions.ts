import type { StateEntry } from '../state/entry.js';

/** A recorded session to delete: its manifest is gone (`--prune`), or `destroy` names it. */
export interface Deletion {
  name: string;
  user_id: string;
  session_id: string;
  /** The manifest file the session was applied from, when the state knows it. */
  file: string | null;
  reason: 'manifest-removed' | 'destroy';
  entry: StateEntry;
  /** Other entries that record the same session (imported under two names, a state merged by hand): forgotten with it. */
  also: StateEntry[];
  /** The sessions the entries still hold to delete, each once in the plan: none that another deletion of the plan deletes. */
  leftovers: string[];
}

/** A deletion of a recorded session. */
export function deletionOf(entry: StateEntry, reason: Deletion['reason']): Deletion {
  return deletionsOf([entry], reason)[0]!;
}

/**
 * The deletions of recorded entries, one per session: entries that record the same session make
 * one deletion, which forgets them all (a second DELETE of it would answer 404 and count twice).
 * The sessions they still hold to delete go to the first deletion that holds each, unless one of
 * the deletions deletes it as its own session.
 */
export function deletionsOf(entries: readonly StateEntry[], reason: Deletion['reason']): Deletion[] {
  const bySession = new Map<string, Deletion>();
  for (const entry of entries) {
    const same = bySession.get(entry.session_id);
    if (same !== undefined) same.also.push(entry);
    else bySession.set(entry.session_id, { name: entry.name, user_id: entry.user_id, session_id: entry.session_id, file: entry.file ?? null, reason, entry, also: [], leftovers: [] });
  }
  const claimed = new Set(bySession.keys());
  for (const d of bySession.values()) {
    for (const old of [d.entry, ...d.also].flatMap((e) => e.superseded ?? [])) {
      if (claimed.has(old)) continue;
      claimed.add(old);
      d.leftovers.push(old);
    }
  }
  return [...bySession.values()];
}
