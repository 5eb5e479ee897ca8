import { createHash } from 'node:crypto';
import { InputError } from '../diagnostics/errors.js';
import { checkEntry, compareEntries, type StateEntry } from './entry.js';
import { databaseError, table, type Queryable } from './postgres-connect.js';
import type { PostgresTarget } from './postgres-url.js';

/** An `entries` row as pg decodes it (jsonb parsed, timestamptz a Date, bigint a string). */
interface EntryRow {
  name: string;
  user_id: string;
  session_id: string;
  mcp_url: string;
  tool_router_tools: unknown;
  config_version: string | null;
  body_hash: string;
  body: unknown;
  applied_at: Date;
  pending_create: unknown;
  superseded: unknown;
  file: string | null;
}


/** A row as a StateEntry, checked as a state file's entry is: a hand-edited row is reported, not trusted. */
function rowToEntry(row: EntryRow, target: PostgresTarget): StateEntry {
  const at = `entries[${JSON.stringify(row.name)}, ${JSON.stringify(row.user_id)}]`;
  const corrupt = (why: string) =>
    new InputError(`a row of the state (workspace "${target.workspace}") is not valid (${why}); it was left untouched. Fix it, or remove it with \`sessionctl state rm\`.`, target.location);
  return checkEntry(
    {
      ...row,
      config_version: row.config_version === null ? null : Number(row.config_version),
      applied_at: row.applied_at.toISOString(),
      pending_create: row.pending_create ?? undefined,
      superseded: row.superseded ?? undefined,
      file: row.file ?? undefined,
    },
    at,
    corrupt,
  );
}

/** The schema version whose migration added `entries.file`. */
const FILE_COLUMN_VERSION = 2;

/**
 * The columns of an entry as a select list at a schema `version` (0: not known, the current one).
 * Reading needs no lock and does not upgrade, so a schema an older sessionctl made is read as it is.
 */
function selectList(version: number): string {
  return ENTRY_COLUMNS.map((c) => (c === 'file' && version > 0 && version < FILE_COLUMN_VERSION ? 'NULL::text AS file' : c)).join(', ');
}

/** Every entry of the workspace, in the stable order; `version`: the schema's, when it is known. */
export async function readEntries(client: Queryable, target: PostgresTarget, version = 0): Promise<StateEntry[]> {
  let rows: EntryRow[];
  try {
    rows = (await client.query<EntryRow>(`SELECT ${selectList(version)} FROM ${table(target, 'entries')} WHERE workspace = $1`, [target.workspace])).rows;
  } catch (err) {
    throw databaseError(err, target, 'read the state');
  }
  return rows.map((r) => rowToEntry(r, target)).sort(compareEntries);
}

/** One entry, or undefined. */
export async function readEntry(client: Queryable, target: PostgresTarget, name: string, userId: string, version = 0): Promise<StateEntry | undefined> {
  let rows: EntryRow[];
  try {
    rows = (await client.query<EntryRow>(`SELECT ${selectList(version)} FROM ${table(target, 'entries')} WHERE workspace = $1 AND name = $2 AND user_id = $3`, [target.workspace, name, userId])).rows;
  } catch (err) {
    throw databaseError(err, target, 'read the state');
  }
  return rows[0] === undefined ? undefined : rowToEntry(rows[0], target);
}

/** A digest of the entries as read ('' for none), for saved plans: equal entries, equal digest. */
export function entriesDigest(entries: readonly StateEntry[]): string {
  return entries.length === 0 ? '' : createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

/** The columns of an entry, in the order of `entryValues`, and the type each value is cast to. */
export const ENTRY_COLUMNS = ['name', 'user_id', 'session_id', 'mcp_url', 'tool_router_tools', 'config_version', 'body_hash', 'body', 'applied_at', 'pending_create', 'superseded', 'file'] as const;
export const ENTRY_TYPES = ['text', 'text', 'text', 'text', 'jsonb', 'bigint', 'text', 'json', 'timestamptz', 'jsonb', 'jsonb', 'text'] as const;

/** An entry's values for ENTRY_COLUMNS (JSON as text); a time PostgreSQL would refuse is an InputError. */
export function entryValues(entry: StateEntry): unknown[] {
  if (Number.isNaN(Date.parse(entry.applied_at))) throw new InputError(`entry "${entry.name}" has applied_at "${entry.applied_at}", which is not an ISO 8601 time`);
  const json = (v: unknown) => (v === undefined || v === null ? null : JSON.stringify(v));
  return [
    entry.name,
    entry.user_id,
    entry.session_id,
    entry.mcp_url,
    JSON.stringify(entry.tool_router_tools),
    entry.config_version,
    entry.body_hash,
    json(entry.body),
    entry.applied_at,
    json(entry.pending_create),
    entry.superseded !== undefined && entry.superseded.length > 0 ? JSON.stringify(entry.superseded) : null,
    entry.file ?? null,
  ];
}
