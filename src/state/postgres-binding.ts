import { InputError } from '../diagnostics/errors.js';
import { parseBinding, type StateBinding } from './binding.js';
import { databaseError, sqlState, table, type Queryable } from './postgres-connect.js';
import { FLEET_VERSION, schemaVersion } from './postgres-schema.js';
import type { PostgresTarget } from './postgres-url.js';
import type { StateOrigin } from './store.js';

/** The schema version whose migration added `bindings`. */
export const BINDINGS_VERSION = 4;

interface BindingRow {
  service: string;
  project: string | null;
  bound_at: Date;
}

/** The binding of the target's workspace, at a schema `version` (none before the table existed). */
export async function readBinding(client: Queryable, target: PostgresTarget, version: number): Promise<StateBinding | undefined> {
  if (version < BINDINGS_VERSION) return undefined;
  let row: BindingRow | undefined;
  try {
    row = (await client.query<BindingRow>(`SELECT service, project, bound_at FROM ${table(target, 'bindings')} WHERE workspace = $1`, [target.workspace])).rows[0];
  } catch (err) {
    throw databaseError(err, target, `read the service binding of workspace "${target.workspace}"`);
  }
  if (row === undefined) return undefined;
  const corrupt = (why: string) => new InputError(`the state's service binding is not valid (${why}); run \`sessionctl state rebind\` to record it again`, target.location);
  return parseBinding({ service: row.service, ...(row.project !== null ? { project: row.project } : {}), bound_at: row.bound_at.toISOString() }, corrupt);
}

/**
 * What is in the database for the target, without reading the entries: whether its workspace was
 * ever written (a binding, or an entry of an earlier sessionctl), its binding, and the schema's
 * other workspaces, so that `workspace=Production` beside `production` is announced, not silent.
 */
export async function probeWorkspace(client: Queryable, target: PostgresTarget): Promise<StateOrigin> {
  const version = await schemaVersion(client, target);
  if (version === 0) return { exists: false };
  try {
    const bound = `${version >= BINDINGS_VERSION ? `UNION SELECT workspace FROM ${table(target, 'bindings')}` : ''} ${version >= FLEET_VERSION ? `UNION SELECT workspace FROM ${table(target, 'published')}` : ''}`;
    // One row per workspace from the primary key's leading column, not a scan of 100,000 entries.
    const r = await client.query<{ workspace: string }>(
      `WITH RECURSIVE w AS (
         (SELECT workspace FROM ${table(target, 'entries')} ORDER BY workspace LIMIT 1)
         UNION ALL
         SELECT (SELECT e.workspace FROM ${table(target, 'entries')} e WHERE e.workspace > w.workspace ORDER BY e.workspace LIMIT 1) FROM w WHERE w.workspace IS NOT NULL
       )
       SELECT workspace FROM w WHERE workspace IS NOT NULL ${bound} ORDER BY workspace`,
    );
    const all = r.rows.map((row) => row.workspace);
    const binding = await readBinding(client, target, version);
    return { exists: all.includes(target.workspace), ...(binding !== undefined ? { binding } : {}), otherWorkspaces: all.filter((w) => w !== target.workspace) };
  } catch (err) {
    // The tables were dropped by hand: nothing is there to read.
    if (sqlState(err) === '42P01') return { exists: false };
    throw databaseError(err, target, `read the workspaces of schema "${target.schema}"`);
  }
}

/**
 * Writes the workspace's binding, fenced on the lock as every entry write is: a holder whose lock
 * was taken over writes nothing. Answers whether the lock was held.
 */
export async function writeBinding(pool: Queryable, target: PostgresTarget, lockId: string, binding: StateBinding): Promise<boolean> {
  const r = await pool.query<{ held: number }>(
    `WITH held AS (SELECT 1 FROM ${table(target, 'locks')} WHERE workspace = $1 AND lock_id = $2 FOR SHARE),
       written AS (INSERT INTO ${table(target, 'bindings')} (workspace, service, project, bound_at)
         SELECT $1, $3, $4, $5::timestamptz WHERE EXISTS (SELECT 1 FROM held)
         ON CONFLICT (workspace) DO UPDATE SET service = EXCLUDED.service, project = EXCLUDED.project, bound_at = EXCLUDED.bound_at)
     SELECT (SELECT count(*) FROM held)::int AS held`,
    [target.workspace, lockId, binding.service, binding.project ?? null, binding.bound_at],
  );
  return r.rows[0]?.held === 1;
}
