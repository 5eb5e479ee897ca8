import { InputError, StateError } from '../diagnostics/errors.js';
import type { FleetPageQuery, FleetSession, OpenedFleet } from './fleet.js';
import { publishedWorkspaces, readFleetPage } from './postgres-fleet.js';
import { postgresFleet } from './postgres-fleet-store.js';
import { missingState } from './missing.js';
import { probeWorkspace, readBinding } from './postgres-binding.js';
import type { ForcedUnlock, LockHolder, StateLockOptions } from './lock.js';
import { connectClient, databaseError, openPool, readOnly, sqlState, type Env } from './postgres-connect.js';
import { forceUnlockWorkspace, readWorkspaceLock } from './postgres-lock.js';
import { readEntries, readEntry } from './postgres-rows.js';
import { FLEET_VERSION, schemaVersion } from './postgres-schema.js';
import { PostgresStateStore } from './postgres-store.js';
import type { PostgresTarget } from './postgres-url.js';
import type { StateReader } from './reader.js';
import type { LockedState, StateOrigin, StateView } from './store.js';

const READER_CONNECTIONS = 4;
/** undefined_table, invalid_schema_name: nothing was applied yet. (A function, not a module-level set, so that mutation testing can change it at run time: stryker-js#6144.) */
const notCreated = (code: string | undefined): boolean => code === '42P01' || code === '3F000';

/*
 * The PostgreSQL backend's entry points, loaded by `postgresBackend` (backend.ts) on first use so
 * that pg is imported only by runs that use it.
 */

export async function probeState(target: PostgresTarget, env: Env): Promise<StateOrigin> {
  const client = await connectClient(target, env);
  try {
    return await probeWorkspace(readOnly(client), target);
  } finally {
    await client.end().catch(() => undefined);
  }
}

export function loadState(target: PostgresTarget, env: Env): Promise<StateView> {
  return PostgresStateStore.load(target, env);
}

export function openLockedState(target: PostgresTarget, env: Env, lock: StateLockOptions, leaseMs?: number): Promise<LockedState> {
  return PostgresStateStore.openLocked(target, env, lock, leaseMs);
}

export function forceUnlock(target: PostgresTarget, env: Env, lockId: string): Promise<ForcedUnlock> {
  return forceUnlockWorkspace(target, env, lockId);
}

export async function lockHolder(target: PostgresTarget, env: Env): Promise<LockHolder | undefined> {
  const client = await connectClient(target, env);
  try {
    return await readWorkspaceLock(client, target);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Lookups for an application: a small pool, each lookup one read-only transaction in one message
 * (`readOnly`: it holds through any pooler). Fails at open, not at the first lookup: a wrong host,
 * password or a newer schema, and a schema or workspace that holds no state (a mistyped
 * `workspace=Production` answered "no session" for every user before).
 */
export async function openReader(target: PostgresTarget, env: Env): Promise<StateReader> {
  const pool = openPool(target, env, READER_CONNECTIONS);
  let version: number;
  try {
    const client = await pool.connect().catch((err: unknown) => {
      throw databaseError(err, target, 'connect to the state database');
    });
    try {
      version = await schemaVersion(readOnly(client), target);
      const origin = await probeWorkspace(readOnly(client), target);
      if (!origin.exists) throw missingState({ kind: 'postgres', location: target.location }, origin.otherWorkspaces);
    } finally {
      client.release();
    }
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
  const lookups = readOnly(pool);
  let closed = false;
  const use = async <T>(read: () => Promise<T>, empty: T): Promise<T> => {
    if (closed) throw new InputError('the state reader is closed', target.location);
    try {
      return await read();
    } catch (err) {
      // The schema or its tables do not exist yet: nothing was applied.
      if (notCreated(sqlState((err as InputError).cause))) return empty;
      throw err;
    }
  };
  return {
    location: target.location,
    get: (name, userId) => use(() => readEntry(lookups, target, name, userId, version), undefined),
    list: () => use(() => readEntries(lookups, target, version), []),
    close: async () => {
      closed = true;
      await pool.end().catch(() => undefined);
    },
  };
}

/**
 * The fleet's rows for an application's `ensure`, over a pool of `max` connections (or a pooler's).
 * Checked at open: the schema has the fleet's tables (an apply of a per-user manifest made them;
 * the application's role makes none), the workspace holds a state, and its binding is read.
 */
export async function openFleet(target: PostgresTarget, env: Env, max: number): Promise<OpenedFleet> {
  const pool = openPool(target, env, max);
  try {
    const client = await pool.connect().catch((err: unknown) => {
      throw databaseError(err, target, 'connect to the state database');
    });
    let binding;
    try {
      const version = await schemaVersion(readOnly(client), target);
      if (version > 0 && version < FLEET_VERSION) {
        throw new StateError(`the state schema "${target.schema}" is at version ${version}, before per-user manifests (version ${FLEET_VERSION}); an apply of this sessionctl upgrades it (the application's role needs no DDL)`, target.location);
      }
      // Read from the tables the application's role may read (published, bindings), never entries.
      const workspaces = version === 0 ? [] : await publishedWorkspaces(readOnly(client), target);
      if (!workspaces.includes(target.workspace)) {
        const others = workspaces.length > 0 ? `; the workspaces with per-user manifests: ${workspaces.join(', ')}` : '';
        throw new InputError(`nothing is published to this schema and workspace: no apply of a per-user manifest (user_id: <end-user>) wrote here, or the URL is mistyped${others}`, target.location);
      }
      binding = await readBinding(readOnly(client), target, version);
    } finally {
      client.release();
    }
    return { fleet: postgresFleet(pool, target), binding };
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw err;
  }
}

/** One page of the fleet's rows, read-only (`state list`). */
export async function fleetPage(target: PostgresTarget, env: Env, query: FleetPageQuery): Promise<FleetSession[]> {
  const client = await connectClient(target, env);
  try {
    if ((await schemaVersion(readOnly(client), target)) < FLEET_VERSION) return [];
    return await readFleetPage(readOnly(client), target, query);
  } catch (err) {
    throw databaseError(err, target, 'read the fleet');
  } finally {
    await client.end().catch(() => undefined);
  }
}
