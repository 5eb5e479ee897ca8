import { InputError } from '../diagnostics/errors.js';

/** The format version of the state file. A newer version is refused, never rewritten. */
export const STATE_VERSION = 1;

/** What apply recorded for one manifest and resolved user id. */
export interface StateEntry {
  name: string;
  user_id: string;
  session_id: string;
  mcp_url: string;
  tool_router_tools: string[];
  /** SHA-256 of the canonical request body (`bodyHash`). */
  body_hash: string;
  /** ISO 8601. */
  applied_at: string;
}

/** The whole state as one document: the file backend's format, and `state pull`'s. */
export interface StateFile {
  version: typeof STATE_VERSION;
  sessions: StateEntry[];
}

/** The key of an entry: one per manifest name and resolved user id. */
export function entryKey(name: string, userId: string): string {
  return `${name}\0${userId}`;
}

/** Entries in their stable order: by name, then user id. */
export function compareEntries(a: StateEntry, b: StateEntry): number {
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  return a.user_id < b.user_id ? -1 : a.user_id > b.user_id ? 1 : 0;
}

/** Parses and checks a state document; every problem names the file and what to do. */
export function parseState(text: string, path: string): StateEntry[] {
  const corrupt = (why: string): InputError =>
    new InputError(`the state file is not valid (${why}); it was left untouched. Restore it from version control or a backup, or move it aside to start over.`, path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw corrupt(`not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw corrupt('not a JSON object');
  const v = value as Record<string, unknown>;
  if (typeof v['version'] !== 'number') throw corrupt('no "version"');
  if (v['version'] !== STATE_VERSION) {
    throw new InputError(`the state file has format version ${String(v['version'])}; this sessionctl reads version ${STATE_VERSION}. Use a newer sessionctl.`, path);
  }
  if (!Array.isArray(v['sessions'])) throw corrupt('"sessions" is not a list');
  return v['sessions'].map((s, i) => {
    const e = s as Record<string, unknown>;
    const strings = ['name', 'user_id', 'session_id', 'mcp_url', 'body_hash', 'applied_at'] as const;
    for (const key of strings) {
      if (typeof e?.[key] !== 'string') throw corrupt(`sessions[${i}].${key} is not a string`);
    }
    if (!Array.isArray(e['tool_router_tools']) || !e['tool_router_tools'].every((t) => typeof t === 'string')) {
      throw corrupt(`sessions[${i}].tool_router_tools is not a list of strings`);
    }
    return {
      name: e['name'] as string,
      user_id: e['user_id'] as string,
      session_id: e['session_id'] as string,
      mcp_url: e['mcp_url'] as string,
      tool_router_tools: [...(e['tool_router_tools'] as string[])],
      body_hash: e['body_hash'] as string,
      applied_at: e['applied_at'] as string,
    };
  });
}
