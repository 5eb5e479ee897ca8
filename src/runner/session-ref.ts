import { relative } from 'node:path';
import type { StateEntry } from '../state/entry.js';
import type { StateBackend } from '../state/backend.js';
import { UsageError } from '../diagnostics/errors.js';
import { sessionIdProblem, shown as quoted } from '../wire/session-id.js';

/** A session as the operate commands name it, once resolved. */
export interface ResolvedSession {
  /** The `trs_...` id the API calls use. */
  sessionId: string;
  /** The state entry when the session was named by its manifest name. */
  entry?: StateEntry;
}

export interface ResolveOptions {
  /** Where the state is. */
  state: StateBackend;
  /** Picks one user when a manifest name was applied for several. */
  userId?: string;
  /** For messages: the state path is shown relative to it. */
  cwd: string;
}

/** Session ids start with `trs_` (api facts §1); manifest names never contain `_`, so the two cannot collide. */
export function isSessionId(ref: string): boolean {
  return ref.startsWith('trs_');
}

/**
 * Resolves `SESSION` as given on the command line: a `trs_...` id is used as it is (the service
 * judges a malformed one), anything else is a manifest name looked up in the state that `apply`
 * writes (a file or PostgreSQL). A name applied for several user ids needs `--user-id`; an
 * unknown name, or a state never written, is a usage error with a hint. The state is only read,
 * never locked or written.
 */
export async function resolveSession(ref: string, options: ResolveOptions): Promise<ResolvedSession> {
  if (ref === '') throw new UsageError('SESSION is empty', 'pass a session id (trs_...) or the name of an applied manifest');
  if (isSessionId(ref)) {
    // Used in the request's path and in messages: only the service's own form (no `/`, `..`, escapes).
    const problem = sessionIdProblem(ref);
    if (problem !== undefined) throw new UsageError(`SESSION ${problem}`, 'pass the id as the service gave it (sessionctl state list shows the recorded ones), or a manifest name');
    if (options.userId !== undefined) {
      throw new UsageError('--user-id picks among the sessions of a manifest name; it does not apply to a session id', `drop --user-id, or name the session by its manifest name`);
    }
    return { sessionId: ref, ...(await recordedFor(ref, options.state)) };
  }
  const shown = options.state.kind === 'file' ? relative(options.cwd, options.state.location) || options.state.location : options.state.location;
  const store = await options.state.load();
  // A file that does not exist, or a database (or workspace) that apply never wrote.
  const noun = options.state.kind === 'file' ? 'state file' : 'state';
  const where = `the ${noun} ${shown}`;
  if (store.hashAtLoad === '') {
    throw new UsageError(
      `${quoted(ref)} is not a session id (trs_...), and ${options.state.kind === 'file' ? `there is no state file at ${shown}` : `nothing has been applied to the state ${shown}`} to look it up as a manifest name`,
      `pass a session id (trs_...), run \`sessionctl apply\` first, or point --state at the ${noun} apply wrote`,
    );
  }
  const all = store.list();
  const matches = all.filter((e) => e.name === ref);
  if (matches.length === 0) {
    const names = [...new Set(all.map((e) => e.name))];
    const known = names.length === 0 ? `${where} records no sessions` : `${where} records: ${names.join(', ')}`;
    throw new UsageError(
      `no session named ${quoted(ref)}: ${known}`,
      `pass a session id (trs_...), a recorded manifest name, or point --state at another ${noun}`,
    );
  }
  if (options.userId !== undefined) {
    const entry = matches.find((e) => e.user_id === options.userId);
    if (entry === undefined) {
      throw new UsageError(
        // The id given is not repeated: one typed on the command line may be a secret pasted by mistake.
        `manifest ${quoted(ref)} has no session for the user id given with --user-id in ${shown}`,
        `recorded user ids: ${matches.map((e) => e.user_id).join(', ')}`,
      );
    }
    return withSession(entry);
  }
  if (matches.length > 1) {
    throw new UsageError(
      `manifest ${quoted(ref)} was applied for ${matches.length} user ids (${matches.map((e) => e.user_id).join(', ')}); which session is meant?`,
      `add --user-id, e.g. --user-id ${matches[0]?.user_id ?? 'USER'}`,
    );
  }
  return withSession(matches[0] as StateEntry);
}

/**
 * The entry's session, or a usage error for an entry that records none (a create whose outcome is
 * unknown): an empty id would turn a call on one session into a call on the collection.
 */
function withSession(entry: StateEntry): ResolvedSession {
  if (entry.session_id === '') {
    throw new UsageError(
      `manifest ${quoted(entry.name)} (user ${quoted(entry.user_id)}) records no session: a create of it was sent and its outcome is unknown`,
      'adopt the session it may have made with `sessionctl import`, or apply with --recreate-unknown',
    );
  }
  return { sessionId: entry.session_id, entry };
}

/** The state's entry for a session id, when the state records one: it says which of the session's fields are sensitive. */
async function recordedFor(sessionId: string, state: StateBackend): Promise<{ entry?: StateEntry }> {
  try {
    const entry = (await state.load()).list().find((e) => e.session_id === sessionId);
    return entry === undefined ? {} : { entry };
  } catch {
    // A missing or unreadable state only means no entry: a session id needs none.
    return {};
  }
}
