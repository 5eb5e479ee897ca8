import type pg from 'pg';
import { StateError } from '../diagnostics/errors.js';
import type { StateBinding } from './binding.js';
import { compareEntries, entryKey, type StateEntry } from './entry.js';
import type { StateLockOptions } from './lock.js';
import { connectClient, databaseError, openPool, type Env } from './postgres-connect.js';
import { Needs } from './postgres-privileges.js';
import { readBinding, writeBinding } from './postgres-binding.js';
import { keepLease, type LeaseKeeper } from './postgres-lease.js';
import { DEFAULT_LEASE_MS, releaseWorkspaceLock, renewWorkspaceLock, takeWorkspaceLock } from './postgres-lock.js';
import { entriesDigest, readEntries } from './postgres-rows.js';
import { deleteFleetRow, deletePublications, readFleetCounts, readPublications, readPublishedVersions, writePublications } from './postgres-fleet.js';
import { postgresRollout } from './postgres-fleet-rollout.js';
import { versionKey, type FleetCount, type FleetSession, type Publication } from './fleet.js';
import type { FleetRollout } from './fleet-rollout.js';
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
  /** The writes, and one connection more: the lease's renewals never wait behind a write. */
  pool: pg.Pool;
  writer: PostgresWriter;
  lease: LeaseKeeper;
}

/**
 * The PostgreSQL backend: one row per workspace, manifest name and user id. Reads are a snapshot
 * kept in memory (plan sees its own run's writes); each `record` and `forget` is committed
 * (durably) before it resolves, fenced on the workspace's lock (see PostgresWriter).
 */
export class PostgresStateStore implements LockedState {
  private readonly entries = new Map<string, StateEntry>();
  private digest = '';
  private bound: StateBinding | undefined;
  private readonly publications = new Map<string, Publication>();
  private readonly history = new Map<string, Publication>();
  private counts = new Map<string, FleetCount>();
  private held: Held | undefined;
  private readonly writes = new Set<Promise<void>>();
  /** Set when a renewal of the lease found the lock gone: writing must stop. */
  private lost = false;

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

  /**
   * Creates or upgrades the schema, takes the workspace's lock with a lease of `leaseMs` (renewed
   * every third of it until `unlock`), then reads.
   */
  static async openLocked(target: PostgresTarget, env: Env, options: StateLockOptions, leaseMs = DEFAULT_LEASE_MS): Promise<PostgresStateStore> {
    const pool = openPool(target, env, WRITE_CONNECTIONS + 1);
    const store = new PostgresStateStore(target);
    try {
      await withClient(pool, target, (client) => migrate(client, target));
      const id = await takeWorkspaceLock(pool, target, options, leaseMs);
      const lease = keepLease(() => renewWorkspaceLock(pool, target, id, leaseMs), leaseMs / 3, () => (store.lost = true));
      store.held = { id, pool, writer: new PostgresWriter(pool, target, id, WRITE_CONNECTIONS), lease };
      await store.read(pool);
    } catch (err) {
      await store.unlock().catch(() => undefined);
      await pool.end().catch(() => undefined);
      throw err;
    }
    return store;
  }

  /** The id of the lock this store holds (what `state unlock` would take). */
  get lockId(): string | undefined {
    return this.held?.id;
  }

  private async read(client: pg.ClientBase | pg.Pool): Promise<void> {
    const version = await schemaVersion(client, this.target);
    const entries = version === 0 ? [] : await readEntries(client, this.target, version);
    this.bound = await readBinding(client, this.target, version);
    this.publications.clear();
    for (const p of await readPublications(client, this.target, version)) this.publications.set(p.name, p);
    this.counts = new Map((await readFleetCounts(client, this.target, version)).map((c) => [c.name, c]));
    // Only the versions sessions are on, below the one published: a rollout plans from those.
    const wanted = [...this.counts.values()].flatMap((c) => [...c.byVersion.keys()].filter((v) => v > 0 && v < (this.publications.get(c.name)?.version ?? 0)).map((v) => ({ name: c.name, version: v })));
    this.history.clear();
    for (const p of await readPublishedVersions(client, this.target, version, wanted)) this.history.set(versionKey(p.name, p.version), p);
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

  get binding(): StateBinding | undefined {
    return this.bound;
  }

  bind(binding: StateBinding): Promise<void> {
    return this.track('bind', 'the service binding', async (held) => {
      if (!(await writeBinding(held.pool, this.target, held.id, binding))) throw new LockGone(`the state lock ${held.id} is no longer held`);
      this.bound = binding;
    });
  }

  get published(): ReadonlyMap<string, Publication> {
    return this.publications;
  }

  get fleet(): ReadonlyMap<string, FleetCount> {
    return this.counts;
  }

  get publishedVersions(): ReadonlyMap<string, Publication> {
    return this.history;
  }

  /** The rollout's statements, on this run's pool and fenced on its lock; undefined without the lock. */
  get rollout(): FleetRollout | undefined {
    const held = this.held;
    return held === undefined ? undefined : postgresRollout(held.pool, this.target, held.id);
  }

  publish(publications: readonly Publication[]): Promise<void> {
    return this.track('publish', publications.map((p) => `"${p.name}"`).join(', '), async (held) => {
      if (!(await withClient(held.pool, this.target, (client) => writePublications(client, this.target, held.id, publications)))) throw new LockGone(`the state lock ${held.id} is no longer held`);
      for (const p of publications) this.publications.set(p.name, p);
    });
  }

  unpublish(names: readonly string[]): Promise<void> {
    return this.track('unpublish', names.map((n) => `"${n}"`).join(', '), async (held) => {
      if (!(await withClient(held.pool, this.target, (client) => deletePublications(client, this.target, held.id, names)))) throw new LockGone(`the state lock ${held.id} is no longer held`);
      for (const name of names) this.publications.delete(name);
    });
  }

  async forgetFleet(name: string, userId: string): Promise<FleetSession | undefined> {
    const held = this.held;
    if (held === undefined) throw new Error('PostgresStateStore.forgetFleet called without the lock');
    try {
      return await deleteFleetRow(held.pool, this.target, name, userId);
    } catch (err) {
      throw databaseError(err, this.target, `remove the session of "${name}" for user ${JSON.stringify(userId)} from the state`, Needs.write);
    }
  }

  record(entry: StateEntry): Promise<void> {
    return this.track('record', subject(entry.name, entry.user_id), async (held) => {
      await held.writer.upsert(entry);
      this.entries.set(entryKey(entry.name, entry.user_id), entry);
    });
  }

  /** Every entry in one statement, its own transaction: all of them are committed, or none. */
  recordAll(entries: readonly StateEntry[]): Promise<void> {
    return this.track('record', `${entries.length} entries`, async (held) => {
      await held.writer.upsertAll(entries);
      for (const entry of entries) this.entries.set(entryKey(entry.name, entry.user_id), entry);
    });
  }

  forget(name: string, userId: string): Promise<void> {
    return this.track('forget', subject(name, userId), async (held) => {
      await held.writer.delete(name, userId);
      this.entries.delete(entryKey(name, userId));
    });
  }

  /** `subject`: what is written, for messages ("name" for user "u", or the service binding). */
  private track(what: 'record' | 'forget' | 'bind' | 'publish' | 'unpublish', subject: string, write: (held: Held) => Promise<void>): Promise<void> {
    const held = this.held;
    if (held === undefined) return Promise.reject(new Error(`PostgresStateStore.${what} called without the lock`));
    if (this.lost) return Promise.reject(this.lockGone(held.id, subject));
    const done = write(held).catch((err: unknown) => {
      if (err instanceof LockGone) throw this.lockGone(held.id, subject);
      throw databaseError(err, this.target, `${what === 'forget' ? 'remove' : what === 'publish' || what === 'unpublish' ? what : 'record'} ${subject} in the state`, Needs.write);
    });
    const settled = done.catch(() => undefined);
    this.writes.add(settled);
    void settled.then(() => this.writes.delete(settled));
    return done;
  }

  private lockGone(id: string, subject: string): StateError {
    return new StateError(
      `the state lock ${id} is no longer held (released with \`sessionctl state unlock\`, or taken over by another run after its lease lapsed); ${subject} was not written`,
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
      await held.lease.stop();
      if (!this.lost) await releaseWorkspaceLock(held.pool, this.target, held.id);
    } catch {
      // A row left behind lapses at the end of its lease, and the next run takes it over.
    } finally {
      await held.pool.end().catch(() => undefined);
    }
  }
}

/** `work` on one connection of `pool` (a transaction needs one), which goes back to the pool after. */
async function withClient<T>(pool: pg.Pool, target: PostgresTarget, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (err) {
    throw databaseError(err, target, 'connect to the state database');
  }
  let result: T;
  try {
    result = await work(client);
  } catch (err) {
    client.release(true); // it may be inside a transaction, or broken: not for the pool again
    throw err;
  }
  client.release();
  return result;
}

function subject(name: string, userId: string): string {
  return `"${name}" for user "${userId}"`;
}
