import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { InputError } from '../../../src/diagnostics/errors.js';
import { stateBackend, type StateBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import { lockOwner, type StateLockOptions } from '../../../src/state/lock.js';
import { pullState, pushState } from '../../../src/state/operations.js';
import { db, dropSchema, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { killHolder, startHolder, type Holder } from './holder-process.js';
import { skipBecause } from '../../helpers/skip.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * One behavioural suite for every state backend: record, read, update, forget, the lock (held,
 * waited for, timed out, left by a holder that died, released by `state unlock`), and push/pull.
 * The PostgreSQL run uses the real server of this run (skipped, with the reason printed once by
 * test/setup/postgres.ts, when there is none); each test has its own workspace in a schema of
 * this file's own, dropped at the end.
 */

interface Kind {
  name: 'file' | 'postgres';
  skip: boolean;
  /** A fresh, empty state: its --state value. */
  fresh(): string;
  env: Record<string, string>;
}

let dir: string;
const schema = uniqueSchema('behaviour');
let workspaces = 0;

beforeAll(async () => {
  dir = tempDir('state-behaviour');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  if (db !== null) await dropSchema(db, schema);
});

const kinds: Kind[] = [
  { name: 'file', skip: false, fresh: () => join(dir, `s${++workspaces}`, 'state.json'), env: {} },
  { name: 'postgres', skip: db === null, fresh: () => stateUrl(db!, schema, `w${++workspaces}`), env: db?.env ?? {} },
];

function entry(name: string, over: Partial<StateEntry> = {}): StateEntry {
  return {
    name,
    user_id: 'u1',
    session_id: `trs_${name}`,
    mcp_url: `https://mcp.example/${name}`,
    tool_router_tools: ['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_MULTI_EXECUTE_TOOL'],
    config_version: 1,
    body_hash: `hash-${name}`,
    body: { user_id: 'u1', toolkits: { enable: ['gmail'] } },
    applied_at: '2026-03-01T10:00:00.000Z',
    ...over,
  };
}

/** A lock option set of a process that is not this one (and that the liveness check says is alive). */
function other(pid: number, timeoutMs?: number): StateLockOptions {
  return { owner: lockOwner(pid), isAlive: () => true, ...(timeoutMs !== undefined ? { timeoutMs } : {}) };
}

const BOUND = { service: 'https://backend.composio.dev', project: `hmac-sha256:${'a'.repeat(32)}:${'b'.repeat(32)}`, bound_at: '2026-11-28T10:00:00.000Z' };
describe.each(kinds)('the $name state backend', (kind) => {
  let spec: string;
  let backend: StateBackend;
  const holders: Holder[] = [];
  beforeEach(() => {
    spec = kind.fresh();
    backend = stateBackend(spec, dir, { env: kind.env });
  });
  afterEach(async () => {
    for (const h of holders.splice(0)) await killHolder(h);
  });

  describe.skipIf(skipBecause(kind.skip, 'needs a PostgreSQL server (the run printed why there is none)'))('', () => {
    test('a state never written is empty, with an empty digest', async () => {
      const view = await backend.load();
      expect(view.list()).toEqual([]);
      expect(view.hashAtLoad).toBe('');
      expect(view.location).toBe(backend.location);
    });

    test('record: an entry is in the store when its promise resolves, for any new reader', async () => {
      const state = await backend.openLocked(other(1001));
      await state.record(entry('one'));
      expect((await backend.load()).list().map((e) => e.name)).toEqual(['one']);
      await state.record(entry('two', { user_id: 'u2' }));
      const view = await backend.load();
      expect(view.list().map((e) => [e.name, e.user_id])).toEqual([
        ['one', 'u1'],
        ['two', 'u2'],
      ]);
      expect(view.get('two', 'u2')).toEqual(entry('two', { user_id: 'u2' }));
      expect(view.get('two', 'u1')).toBeUndefined();
      await state.unlock();
    });

    test('update: a record of the same name and user replaces the entry, and the digest changes', async () => {
      const state = await backend.openLocked(other(1001));
      await state.record(entry('a'));
      await state.unlock();
      const before = await backend.load();
      const again = await backend.openLocked(other(1001));
      expect(again.hashAtLoad).toBe(before.hashAtLoad);
      await again.record(entry('a', { session_id: 'trs_new', config_version: 2, applied_at: '2026-03-02T10:00:00.000Z' }));
      expect(again.get('a', 'u1')?.session_id).toBe('trs_new');
      await again.unlock();
      const after = await backend.load();
      expect(after.list()).toEqual([entry('a', { session_id: 'trs_new', config_version: 2, applied_at: '2026-03-02T10:00:00.000Z' })]);
      expect(after.hashAtLoad).not.toBe(before.hashAtLoad);
      expect(after.hashAtLoad).not.toBe('');
    });

    test('forget: removes one entry, keeps the others, and forgetting a missing one is harmless', async () => {
      const state = await backend.openLocked(other(1001));
      await Promise.all([state.record(entry('a')), state.record(entry('b')), state.record(entry('a', { user_id: 'u2' }))]);
      await state.forget('a', 'u1');
      await state.forget('nothing', 'u1');
      expect(state.get('a', 'u1')).toBeUndefined();
      await state.unlock();
      expect((await backend.load()).list().map((e) => `${e.name}/${e.user_id}`)).toEqual(['a/u2', 'b/u1']);
    });

    test('every field round-trips: nulls, the body in its key order, a pending create, superseded sessions', async () => {
      const pending = entry('pending', {
        session_id: '',
        mcp_url: '',
        tool_router_tools: [],
        config_version: null,
        body: { zeta: 1, alpha: { y: [3, 2, 1], x: 'é ✓ "quoted" \\ back' } },
        pending_create: { since: '2026-03-01T09:59:59.000Z', body_hash: 'h2', status: 'unknown', reason: 'interrupted (SIGTERM)' },
      });
      const replaced = entry('replaced', { body: null, superseded: ['trs_old1', 'trs_old2'], config_version: 9007199254740991 });
      const state = await backend.openLocked(other(1001));
      await state.record(pending);
      await state.record(replaced);
      await state.unlock();
      const view = await backend.load();
      expect(view.get('pending', 'u1')).toEqual(pending);
      expect(Object.keys(view.get('pending', 'u1')!.body!)).toEqual(['zeta', 'alpha']);
      expect(view.get('replaced', 'u1')).toEqual(replaced);
    });

    test('writes after unlock are refused', async () => {
      const state = await backend.openLocked(other(1001));
      await state.unlock();
      await expect(state.record(entry('late'))).rejects.toThrow(/without the lock/);
      await expect(state.forget('late', 'u1')).rejects.toThrow(/without the lock/);
      expect((await backend.load()).list()).toEqual([]);
    });

    test('lock: a second run fails at once, naming the lock id, the holder and since when', async () => {
      const first = await backend.openLocked(other(1111));
      const holder = await backend.lockHolder();
      expect(holder).toMatchObject({ pid: 1111, hostname: lockOwner(1).hostname });
      expect(holder!.since).toMatch(/^\d{4}-\d\d-\d\dT/);
      const err = await backend.openLocked(other(2222)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(new RegExp(`^the state is locked by process 1111 on ${holder!.hostname}( \\(role \\w+\\))? since ${holder!.since} \\(lock ${holder!.id}\\): another apply`));
      expect((err as Error).message).toContain(`sessionctl state unlock ${holder!.id}`);
      expect((err as Error).message).not.toContain('waited');
      await first.unlock();
      expect(await backend.lockHolder()).toBeUndefined();
      const second = await backend.openLocked(other(2222));
      await second.unlock();
    });

    test('lock timeout: a second run waits, and goes on once the first releases the lock', async () => {
      const first = await backend.openLocked(other(1111));
      await first.record(entry('first'));
      let second: Awaited<ReturnType<StateBackend['openLocked']>> | undefined;
      const waiting = backend.openLocked(other(2222, 60_000)).then((s) => (second = s));
      // The waiter has not got it while the first holds it: the first can still write.
      await first.record(entry('first-again'));
      expect(second).toBeUndefined();
      await first.unlock();
      await waiting;
      expect(second!.list().map((e) => e.name)).toEqual(['first', 'first-again']);
      await second!.record(entry('second'));
      await second!.unlock();
    });

    test('lock timeout: a second run gives up after the timeout and says it waited', async () => {
      const first = await backend.openLocked(other(1111));
      const err = await backend.openLocked(other(2222, 300)).catch((e: unknown) => e);
      expect((err as Error).message).toMatch(/^waited 0\.\ds, and the state is locked by process 1111 /);
      await first.unlock();
    });

    test('the backend-wide --lock-timeout applies when the run does not say', async () => {
      const first = await backend.openLocked(other(1111));
      const patient = stateBackend(spec, dir, { env: kind.env, lockTimeoutMs: 300 });
      await expect(patient.openLocked(other(2222))).rejects.toThrow(/^waited 0\.\ds, and the state is locked/);
      await first.unlock();
    });

    test("the run's own timeout wins over the backend-wide one", async () => {
      const first = await backend.openLocked(other(1111));
      const patient = stateBackend(spec, dir, { env: kind.env, lockTimeoutMs: 60_000 });
      await expect(patient.openLocked(other(2222, 0))).rejects.toThrow(/^the state is locked by process 1111 /);
      await first.unlock();
    });

    test('reader: refused where no state is; each call reads the state as it is then; closed, it refuses', async () => {
      expect([backend.kind, backend.location]).toEqual([kind.name, spec]);
      const missing = await backend.openReader().then(() => undefined, (e: unknown) => e);
      expect([(missing as InputError).message.slice(0, 24), (missing as InputError).file]).toEqual([kind.name === 'file' ? 'no state file is there: ' : 'no state is in this data', backend.location]);
      const first = await backend.openLocked(other(1001));
      await first.bind(BOUND);
      await first.unlock();
      const reader = await backend.openReader();
      expect(reader.location).toBe(backend.location);
      expect([await reader.list(), await reader.get('a', 'u1')]).toEqual([[], undefined]);
      const state = await backend.openLocked(other(1001));
      await state.record(entry('a'));
      await state.record(entry('b'));
      expect([(await reader.list()).map((e) => e.name), await reader.get('a', 'u1'), await reader.get('a', 'u2')]).toEqual([['a', 'b'], entry('a'), undefined]);
      await state.unlock();
      await reader.close();
      for (const call of [() => reader.list(), () => reader.get('a', 'u1')]) {
        const err = await call().then(() => undefined, (e: unknown) => e);
        expect(err).toBeInstanceOf(InputError);
        expect([(err as InputError).message, (err as InputError).file]).toEqual(['the state reader is closed', backend.location]);
      }
    });

    test('probe and binding: nothing there, then bound by the first write, read back by every view, kept by later writes', async () => {
      const nothing = await backend.probe();
      expect([nothing.exists, nothing.binding]).toEqual([false, undefined]);
      const state = await backend.openLocked(other(1001));
      expect(state.binding).toBeUndefined();
      await state.bind(BOUND);
      await state.record(entry('a'));
      await state.unlock();
      const bound = await backend.probe();
      expect([bound.exists, bound.binding]).toEqual([true, BOUND]);
      expect((await backend.load()).binding).toEqual(BOUND);
      const again = await backend.openLocked(other(1001));
      expect(again.binding).toEqual(BOUND);
      await again.forget('a', 'u1');
      await again.unlock();
      expect((await backend.load()).binding).toEqual(BOUND);
      const rebound = { service: 'https://gw.example.com/composio', project: `hmac-sha256:${'1'.repeat(32)}:${'2'.repeat(32)}`, bound_at: '2026-11-28T11:00:00.000Z' };
      const third = await backend.openLocked(other(1001));
      await third.bind(rebound);
      await third.unlock();
      expect((await backend.load()).binding).toEqual(rebound);
    });

    test('stale lock: a holder killed with -9 does not block the next run that waits', async () => {
      // A PostgreSQL holder with a lease of 1 s: the next run, waiting up to a minute, takes its lock over once it lapses.
      const h = await startHolder(spec, kind.env, dir, 1000);
      expect(await h.ask('record by-holder')).toBe('recorded by-holder');
      await killHolder(h);
      // The file lock names a dead process of this host; the PostgreSQL lease ends unrenewed.
      const next = await backend.openLocked({ owner: lockOwner(process.pid), isAlive: (pid) => pid !== h.child.pid, timeoutMs: 60_000 });
      expect(next.list().map((e) => e.name)).toEqual(['by-holder']);
      await next.unlock();
    });

    test('unlock: `state unlock LOCK_ID` frees the lock of a holder that hangs, which can then no longer write', async () => {
      const h = await startHolder(spec, kind.env, dir);
      holders.push(h);
      expect((await backend.lockHolder())?.id).toBe(h.id);
      await expect(backend.openLocked(other(2222))).rejects.toThrow(h.id);
      await expect(backend.forceUnlock('not-the-lock')).rejects.toThrow(`locked by lock ${h.id}, not not-the-lock; nothing was changed`);
      const released = await backend.forceUnlock(h.id);
      expect(released.holder).toMatchObject({ id: h.id, pid: h.child.pid });
      expect(released.endedConnection).toBe(false);
      const next = await backend.openLocked(other(2222, 10_000));
      expect(await h.ask('record zombie')).toMatch(/^refused zombie .*no longer held/);
      await next.record(entry('after'));
      await next.unlock();
      expect((await backend.load()).list().map((e) => e.name)).toEqual(['after']);
      await expect(backend.forceUnlock(h.id)).rejects.toThrow(/not locked; nothing to unlock|is not locked/);
    });

    test('push/pull: a pulled document pushes into an empty state unchanged; older entries are refused unless forced', async () => {
      const state = await backend.openLocked(other(1001));
      await state.record(entry('a'));
      await state.record(entry('b', { config_version: 3 }));
      await state.unlock();
      const doc = await pullState(backend);
      expect(doc).toEqual({ version: 2, sessions: [entry('a'), entry('b', { config_version: 3 })] });

      const copy = stateBackend(kind.fresh(), dir, { env: kind.env });
      const pushed = await pushState(copy, other(1002), doc.sessions, { source: 'doc.json' });
      expect(pushed.written).toBe(true);
      expect(pushed.changes.map((c) => c.action)).toEqual(['add', 'add']);
      expect(await pullState(copy)).toEqual(doc);
      const again = await pushState(copy, other(1002), doc.sessions, { source: 'doc.json' });
      expect(again.changes.map((c) => c.action)).toEqual(['unchanged', 'unchanged']);

      // An older copy of b (config_version 2 of the same session) would overwrite version 3.
      const older = [entry('a', { applied_at: '2026-03-05T00:00:00.000Z' }), entry('b', { config_version: 2 }), entry('c')];
      const refused = await pushState(copy, other(1002), older, { source: 'old.json' });
      expect(refused.written).toBe(false);
      expect(refused.changes.map((c) => [c.entry.name, c.action, c.why])).toEqual([
        ['a', 'update', undefined],
        ['b', 'conflict', 'config_version 3 in the state, 2 in the file'],
        ['c', 'add', undefined],
      ]);
      expect(await pullState(copy)).toEqual(doc);
      const forced = await pushState(copy, other(1002), older, { source: 'old.json', force: true });
      expect(forced.written).toBe(true);
      expect((await pullState(copy)).sessions).toEqual(older);
    });
  });
});
