import type pg from 'pg';
import { entryKey, type StateEntry } from './entry.js';
import { table } from './postgres-connect.js';
import { entryValues, ENTRY_COLUMNS, ENTRY_TYPES } from './postgres-rows.js';
import type { PostgresTarget } from './postgres-url.js';

/** A write waiting for its commit: an upsert (`entry`) or a delete of `name` for `userId`. */
interface Op {
  key: string;
  name: string;
  userId: string;
  entry?: StateEntry;
  resolve(): void;
  reject(err: unknown): void;
}

/** A batch found the lock gone: none of its writes happened. */
export class LockGone extends Error {}

/** At most this many writes go in one statement. */
const MAX_BATCH = 500;

/**
 * Writes entries over a pool, each write committed before its promise resolves. A write starts
 * its own transaction at once while a connection is free; while every connection is busy, writes
 * queue, and the next free connection commits all that queued in one statement (so a run of 1,000
 * creates does not wait for 1,000 commits one behind the other, and a failure never half-writes a
 * batch). Writes of one manifest and user keep their order: one is never sent while an earlier
 * one is in flight. Every statement is fenced on the lock row (`lock_id`, held FOR SHARE until
 * the commit), so a holder whose lock was released by `state unlock`, or taken over once its lease
 * lapsed, writes nothing.
 */
export class PostgresWriter {
  private readonly queue: Op[] = [];
  private readonly inFlight = new Set<string>();
  private active = 0;
  private readonly text: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly target: PostgresTarget,
    private readonly lockId: string,
    private readonly connections: number,
  ) {
    this.text = writeStatement(target);
  }

  upsert(entry: StateEntry): Promise<void> {
    try {
      entryValues(entry); // a value PostgreSQL would refuse fails this write alone, before it is queued
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue({ key: entryKey(entry.name, entry.user_id), name: entry.name, userId: entry.user_id, entry });
  }

  /**
   * Every entry in one statement, so one transaction: committed whole, or not at all (`state
   * push`: a failure at the 50,000th entry, or a connection lost, leaves none written). It waits
   * for the writes queued or in flight first, and is meant for a writer that has no others.
   */
  async upsertAll(entries: readonly StateEntry[]): Promise<void> {
    const ops = entries.map((entry) => ({ key: entryKey(entry.name, entry.user_id), name: entry.name, userId: entry.user_id, entry, resolve: () => undefined, reject: () => undefined }));
    for (const op of ops) entryValues(op.entry); // a value PostgreSQL would refuse fails the whole write before it is sent
    while (this.queue.length > 0 || this.active > 0) await new Promise((r) => setTimeout(r, 5));
    const r = await this.pool.query<{ held: number }>(this.statement(ops));
    if (r.rows[0]?.held !== 1) throw new LockGone(`the state lock ${this.lockId} is no longer held`);
  }

  delete(name: string, userId: string): Promise<void> {
    return this.enqueue({ key: entryKey(name, userId), name, userId });
  }

  private enqueue(op: Omit<Op, 'resolve' | 'reject'>): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...op, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.active < this.connections) {
      const batch = this.take();
      if (batch.length === 0) return;
      this.active++;
      for (const op of batch) this.inFlight.add(op.key);
      void this.commit(batch).finally(() => {
        this.active--;
        for (const op of batch) this.inFlight.delete(op.key);
        this.pump();
      });
    }
  }

  /** The queued writes that may go now, in order: none of a key already in flight, or after one held back. */
  private take(): Op[] {
    const held = new Set(this.inFlight);
    const batch: Op[] = [];
    for (let i = 0; i < this.queue.length && batch.length < MAX_BATCH; ) {
      const op = this.queue[i]!;
      if (held.has(op.key)) {
        i++;
        continue;
      }
      batch.push(op);
      this.queue.splice(i, 1);
    }
    return batch;
  }

  private async commit(batch: Op[]): Promise<void> {
    // A key written twice in one batch: the later write is what stays.
    const last = new Map<string, Op>();
    for (const op of batch) last.set(op.key, op);
    try {
      const r = await this.pool.query<{ held: number }>(this.statement([...last.values()]));
      if (r.rows[0]?.held !== 1) throw new LockGone(`the state lock ${this.lockId} is no longer held`);
      for (const op of batch) op.resolve();
    } catch (err) {
      for (const op of batch) op.reject(err);
    }
  }

  /**
   * One statement of a fixed text: the fence, the upserts and the deletes, each a column of arrays
   * (`unnest`); it answers whether the lock was held. Unnamed: a named prepared statement lives on
   * one server connection, which a transaction-mode pooler does not keep for a client (42P05).
   */
  private statement(ops: readonly Op[]): { text: string; values: unknown[] } {
    const upserts = ops.filter((o) => o.entry !== undefined).map((o) => entryValues(o.entry!));
    const deletes = ops.filter((o) => o.entry === undefined);
    const columns = ENTRY_COLUMNS.map((_, i) => upserts.map((row) => row[i]));
    return {
      text: this.text,
      values: [this.target.workspace, this.lockId, ...columns, deletes.map((o) => o.name), deletes.map((o) => o.userId)],
    };
  }
}

/**
 * The text of the write statement of a target: $1 workspace, $2 lock id, then one array per
 * column, each sent as text and cast to its column's type in the select (JSON has to travel as
 * text, and the server parses every other type from text the same way). The statement is its own
 * transaction, and sets `synchronous_commit` on for it alone, so that its commit has reached the
 * disk when it returns whatever the server's default (a recorded session survives a crash); a
 * setting of the connection would not hold through a transaction-mode pooler.
 */
function writeStatement(target: PostgresTarget): string {
  const t = (name: string) => table(target, name);
  const arrays = ENTRY_COLUMNS.map((_, i) => `$${i + 3}::text[]`);
  const select = ENTRY_COLUMNS.map((c, i) => `v.${c}::${ENTRY_TYPES[i]}`);
  const set = ENTRY_COLUMNS.slice(2).map((c) => `${c} = EXCLUDED.${c}`);
  const d = ENTRY_COLUMNS.length + 3;
  return `WITH held AS (SELECT 1 FROM ${t('locks')} WHERE workspace = $1 AND lock_id = $2 FOR SHARE),
    upserted AS (INSERT INTO ${t('entries')} (workspace, ${ENTRY_COLUMNS.join(', ')}, updated_at)
      SELECT $1, ${select.join(', ')}, now() FROM unnest(${arrays.join(', ')}) AS v(${ENTRY_COLUMNS.join(', ')})
      WHERE EXISTS (SELECT 1 FROM held)
      ON CONFLICT (workspace, name, user_id) DO UPDATE SET ${set.join(', ')}, updated_at = now() RETURNING 1),
    deleted AS (DELETE FROM ${t('entries')} WHERE workspace = $1 AND (name, user_id) IN (SELECT * FROM unnest($${d}::text[], $${d + 1}::text[]))
      AND EXISTS (SELECT 1 FROM held) RETURNING 1)
    SELECT (SELECT count(*) FROM held)::int AS held, set_config('synchronous_commit', 'on', true) AS synchronous_commit`;
}
