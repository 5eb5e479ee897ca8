import type pg from 'pg';
import { StateError } from '../diagnostics/errors.js';
import { compareEntries, entryKey, type StateEntry } from './entry.js';
import type { StateLockOptions } from './lock.js';
import { connectClient, databaseError, openPool, type Env } from './postgres-connect.js';
import { releaseWorkspaceLock, takeWorkspaceLock } from './postgres-lock.js';
import { entriesDigest, readEntries } from './postgres-rows.js';
import { migrate, schemaVersion } from './postgres-schema.js';
import { LockGone, PostgresWriter } from './postgres-writer.js';
import type { PostgresTarget } from './postgres-url.js';
import type { LockedState, StateView } from './store.js';

/**
 * Connections that write entries, besides the one that holds the lock. One, as the file backend
 * has one write in flight: a write starts at once when none is in flight, and the writes that
 * arrive meanwhile share the next commit. More connections mean more commits, each a WAL flush and
 * server CPU taken from the run itself (bench/RESULTS.md, Apply: one transaction per record over
 * 8 connections reached 0.41-0.61x of the file backend's sessions/s, shared commits over two
 * connections 0.77x, over one 0.86-0.88x).
 */
const WRITE_CONNECTIONS = 1;

interface Held {
  id: string;
  /** The connection that holds the advisory lock. */
  client: pg.Client;
  /** Where the entries are written. */
  pool: pg.Pool;
  writer: PostgresWriter;
}

/**
 * The PostgreSQL backend: one row per workspace, manifest name and user id. Reads are a snapshot
 * kept in memory (plan sees its own run's writes); each `record` and `forget` is committed
 * (durably) before it resolves, fenced on the workspace's lock (see PostgresWriter).
 */
export class PostgresStateStore implements LockedState {
  private readonly entries = new Map<string, StateEntry>();
  private digest = '';
  private held: Held | undefined;
  private readonly writes = new Set<Promise<void>>();
  /** Set when the lock's connection failed: the lock is gone, so writing must stop. */
  private lost: Error | undefined;

  private constructor(readonly target: PostgresTarget) {}

  get location(): string {
    return this.target.location;
  }

  get hashAtLoad(): string {
    return this.digest;
  }

  /** The entries as they are now, without a lock; a database never written to is an empty state. */
  static async load(target: PostgresTarget, env: Env): Promise<StateView> {
    const client = await connectClient(target, env);
    try {
      const store = new PostgresStateStore(target);
      await store.read(client);
      return store;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Creates or upgrades the schema, takes the workspace's lock, then reads. */
  static async openLocked(target: PostgresTarget, env: Env, options: StateLockOptions): Promise<PostgresStateStore> {
    const client = await connectClient(target, env);
    const store = new PostgresStateStore(target);
    client.on('error', (err) => {
      store.lost = err;
    });
    try {
      await migrate(client, target);
      const id = await takeWorkspaceLock(client, target, options);
      const pool = openPool(target, env, WRITE_CONNECTIONS);
      store.held = { id, client, pool, writer: new PostgresWriter(pool, target, id, WRITE_CONNECTIONS) };
      await store.read(client);
    } catch (err) {
      await store.unlock().catch(() => undefined);
      await client.end().catch(() => undefined);
      throw err;
    }
    return store;
  }

  /** The id of the lock this store holds (what `state unlock` would take). */
  get lockId(): string | undefined {
    return this.held?.id;
  }

  private async read(client: pg.ClientBase): Promise<void> {
    const version = await schemaVersion(client, this.target);
    const entries = version === 0 ? [] : await readEntries(client, this.target, version);
    this.entries.clear();
    for (const e of entries) this.entries.set(entryKey(e.name, e.user_id), e);
    this.digest = entriesDigest(entries);
  }

  get(name: string, userId: string): StateEntry | undefined {
    return this.entries.get(entryKey(name, userId));
  }

  list(): StateEntry[] {
    return [...this.entries.values()].sort(compareEntries);
  }

  record(entry: StateEntry): Promise<void> {
    return this.track('record', entry.name, entry.user_id, async (held) => {
      await held.writer.upsert(entry);
      this.entries.set(entryKey(entry.name, entry.user_id), entry);
    });
  }

  forget(name: string, userId: string): Promise<void> {
    return this.track('forget', name, userId, async (held) => {
      await held.writer.delete(name, userId);
      this.entries.delete(entryKey(name, userId));
    });
  }

  private track(what: 'record' | 'forget', name: string, userId: string, write: (held: Held) => Promise<void>): Promise<void> {
    const held = this.held;
    if (held === undefined) return Promise.reject(new Error(`PostgresStateStore.${what} called without the lock`));
    if (this.lost !== undefined) return Promise.reject(new StateError(`the connection that held the state lock failed (${this.lost.message}); "${name}" for user "${userId}" was not written`, this.location));
    const done = write(held).catch((err: unknown) => {
      if (err instanceof LockGone) throw this.lockGone(held.id, name, userId);
      throw databaseError(err, this.target, `${what === 'record' ? 'record' : 'remove'} "${name}" for user "${userId}" in the state`);
    });
    const settled = done.catch(() => undefined);
    this.writes.add(settled);
    void settled.then(() => this.writes.delete(settled));
    return done;
  }

  private lockGone(id: string, name: string, userId: string): StateError {
    return new StateError(
      `the state lock ${id} is no longer held (released with \`sessionctl state unlock\`, or taken by another run after this one's connection was lost); "${name}" for user "${userId}" was not written`,
      this.location,
    );
  }

  /** Waits for writes in flight. */
  async flush(): Promise<void> {
    await Promise.all([...this.writes]);
  }

  /** Waits for writes in flight, then releases the lock and closes the connections. */
  async unlock(): Promise<void> {
    await this.flush();
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    try {
      if (this.lost === undefined) await releaseWorkspaceLock(held.client, this.target, held.id);
    } catch {
      // Ending the connection below releases the advisory lock all the same; a row left behind
      // names a lock that is no longer held, and the next run replaces it.
    } finally {
      await held.pool.end().catch(() => undefined);
      await held.client.end().catch(() => undefined);
    }
  }
}
