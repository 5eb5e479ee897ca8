import { describe, expect, test } from 'vitest';
import { applyPlan, type ApplyApi, type ApplyOptions, type ApplyProgress, type ApplyResult } from '../../../src/apply/apply.js';
import type { ManifestDocument } from '../../../src/manifest/types.js';
import { buildPlan, type PlanOptions } from '../../../src/plan/plan.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { Session } from '../../../src/wire/session.js';
import type { LockedState } from '../../../src/state/store.js';
import { RateLimiter } from '../../../src/util/throttle.js';
import { hooked, now, NOW, onEachState, withTool, type World } from './world.js';

/*
 * apply stopped by its signal, with the moments chosen by the test (no timers): requests held at
 * the client until the test lets them go, the grace time ended by the test's own `sleep`. Nothing
 * starts after the signal; a create still unanswered when the grace time ends is recorded as
 * outcome unknown, and its late answer writes nothing.
 */

const three = ['s0', 's1', 's2'].map((n, i) => `name: ${n}\nuser_id: u${i}\n`).join('---\n');

let w: World;

/** A promise the test resolves. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

/**
 * The client, with creates (and deletes) held at the door until the test opens it. Each request
 * is in `sent` from its arrival on, so that `Promise.all(sent)` right after the door opens waits
 * for every one of them (pushed only once through the door, none was there yet).
 */
function held(door: Promise<void>, arrived: string[], sent: Array<Promise<unknown>>): ApplyApi {
  const through = <T>(request: () => Promise<T>): Promise<T> => {
    const p = door.then(request);
    sent.push(p);
    return p;
  };
  return {
    createSession: (body) => {
      arrived.push(`create ${body.user_id}`);
      return through(() => w.client.createSession(body));
    },
    updateSession: (id, body) => w.client.updateSession(id, body),
    deleteSession: (id) => {
      arrived.push(`delete ${id}`);
      return through(() => w.client.deleteSession(id));
    },
  };
}

/** The client, with the signal fired while the delete numbered `at` (from 0) is on its way. */
function abortingAt(controller: AbortController, sent: string[], at: number): ApplyApi {
  return {
    createSession: (b) => w.client.createSession(b),
    updateSession: (id, b) => w.client.updateSession(id, b),
    deleteSession: (id) => {
      if (sent.push(id) === at + 1) controller.abort('SIGINT');
      return w.client.deleteSession(id);
    },
  };
}

const until = async (check: () => boolean): Promise<void> => {
  while (!check()) await new Promise((r) => setImmediate(r));
};

/** Runs applyPlan under the lock; the test drives it through the returned handles. */
async function start(documents: readonly ManifestDocument[], options: Partial<ApplyOptions> & PlanOptions): Promise<{ done: Promise<ApplyResult>; state: LockedState }> {
  const state = await w.open();
  const done = applyPlan(buildPlan(documents, state, options), { api: w.client, cwd: w.dir, now, ...options, state }).finally(() => state.unlock());
  return { done, state };
}

onEachState((fresh) => (w = fresh), () => {

  describe('a signal before anything started', () => {
    test('no request; every manifest and deletion skipped with the reason; a blocked one without a finding of its own', async () => {
      await w.apply(w.docs('name: gone\nuser_id: g\n---\nname: stuck\nuser_id: k\n', 'old.yaml'));
      const s = await w.open();
      await s.record({ ...s.get('stuck', 'k')!, pending_create: { since: 't', body_hash: 'h', status: 'unknown' } });
      await s.unlock();
      const controller = new AbortController();
      controller.abort('SIGINT');
      const interrupts: Array<[number, number]> = [];
      const { done } = await start(w.docs(`${three}---\nname: stuck\nuser_id: k\n`), {
        signal: controller.signal,
        onInterrupt: (n, g) => interrupts.push([n, g]),
        sleep: () => new Promise<void>(() => undefined),
        prune: { roots: ['m'], cwd: w.dir },
      });
      const result = await done;
      // The two of the setup; none by this run.
      expect(await w.received('create')).toBe(2);
      expect(interrupts).toStrictEqual([[0, 10_000]]);
      expect(result).not.toHaveProperty('interrupted');
      expect(result.items.map((i) => [i.name, i.action, i.outcome, i.diagnostics.map((d) => [d.code, d.severity, d.message, d.file, d.range?.start])])).toStrictEqual([
        ['s0', 'create', 'skipped', [['apply/interrupted', 'error', 's0: not applied: the run was interrupted (SIGINT) before it started', `${w.dir}/m/a.yaml`, { line: 1, col: 1 }]]],
        ['s1', 'create', 'skipped', [['apply/interrupted', 'error', 's1: not applied: the run was interrupted (SIGINT) before it started', `${w.dir}/m/a.yaml`, { line: 4, col: 1 }]]],
        ['s2', 'create', 'skipped', [['apply/interrupted', 'error', 's2: not applied: the run was interrupted (SIGINT) before it started', `${w.dir}/m/a.yaml`, { line: 7, col: 1 }]]],
        ['stuck', 'update', 'skipped', []],
        ['gone', 'delete', 'skipped', [['apply/interrupted', 'error', 'gone: not applied: the run was interrupted (SIGINT) before it started', undefined, undefined]]],
      ]);
      expect(result.items[4]!.file).toBe('m/old.yaml');
      expect(result.tally).toStrictEqual({ created: 0, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 0, skipped: 5 });
      expect(result.diagnostics.map((d) => d.code)).toStrictEqual(['state/outcome-unknown', 'apply/interrupted', 'apply/interrupted', 'apply/interrupted', 'apply/interrupted']);
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['gone', 'stuck']);
    });

    test('a deletion of an entry that names no file, skipped: the whole item, with an empty file', async () => {
      await w.apply(w.docs('name: b\nuser_id: bob\n'));
      const state = await w.open();
      const { deletionOf } = await import('../../../src/plan/plan.js');
      const { file: _f, ...noFile } = state.get('b', 'bob')!;
      const controller = new AbortController();
      controller.abort('SIGINT');
      const plan = { items: [], deletions: [deletionOf(noFile, 'destroy')], manifestsHash: '', stateHash: '', diagnostics: [], prunable: 0, publications: [] };
      const result = await applyPlan(plan, { api: w.client, state, cwd: w.dir, signal: controller.signal, sleep: () => new Promise<void>(() => undefined) });
      await state.unlock();
      expect(result.items).toStrictEqual([
        {
          name: 'b',
          file: '',
          user_id: 'bob',
          action: 'delete',
          outcome: 'skipped',
          drifted: false,
          drift: [],
          diagnostics: [{ code: 'apply/interrupted', severity: 'error', message: 'b: not applied: the run was interrupted (SIGINT) before it started' }],
          diff: '',
        },
      ]);
      expect(await w.received('delete')).toBe(0);
    });

    test('a signal without a reason is named as the signal says', async () => {
      const controller = new AbortController();
      controller.abort();
      const { done } = await start(w.docs('name: s0\nuser_id: u\n'), { signal: controller.signal, sleep: () => new Promise<void>(() => undefined) });
      expect((await done).items[0]!.diagnostics[0]!.message).toBe('s0: not applied: the run was interrupted (AbortError: This operation was aborted) before it started');
    });
  });

  describe('a signal that never fires', () => {
    test('the run ends as without one: every manifest applied, not interrupted', async () => {
      const controller = new AbortController();
      const interrupts: number[] = [];
      const { done } = await start(w.docs(three), { signal: controller.signal, onInterrupt: (n) => interrupts.push(n), sleep: () => Promise.resolve() });
      const result = await done;
      expect(result).not.toHaveProperty('interrupted');
      expect(result.items.map((i) => [i.name, i.outcome, i.diagnostics])).toStrictEqual([
        ['s0', 'created', []],
        ['s1', 'created', []],
        ['s2', 'created', []],
      ]);
      expect(interrupts).toStrictEqual([]);
      expect((await w.entries()).map((e) => [e.name, e.pending_create])).toStrictEqual([
        ['s0', undefined],
        ['s1', undefined],
        ['s2', undefined],
      ]);
    });
  });

  describe('a signal while creates are in flight', () => {
    test('within the wait: the creates in flight are answered and recorded, none starts after the signal', async () => {
      const door = gate();
      const arrived: string[] = [];
      const controller = new AbortController();
      const interrupts: Array<[number, number]> = [];
      const graces: number[] = [];
      const { done } = await start(w.docs(three), {
        api: held(door.wait, arrived, []),
        concurrency: 2,
        signal: controller.signal,
        graceMs: 500,
        onInterrupt: (n, g) => interrupts.push([n, g]),
        sleep: (ms) => (graces.push(ms), new Promise<void>(() => undefined)),
      });
      await until(() => arrived.length === 2);
      controller.abort('SIGINT');
      await until(() => interrupts.length === 1);
      door.open();
      const result = await done;
      expect([interrupts, graces, arrived]).toStrictEqual([[[2, 500]], [500], ['create u0', 'create u1']]);
      expect(result).not.toHaveProperty('interrupted');
      expect(result.items.map((i) => [i.name, i.outcome])).toStrictEqual([
        ['s0', 'created'],
        ['s1', 'created'],
        ['s2', 'skipped'],
      ]);
      expect((await w.entries()).map((e) => [e.name, e.session_id !== '', e.pending_create])).toStrictEqual([
        ['s0', true, undefined],
        ['s1', true, undefined],
      ]);
      expect((await w.live()).length).toBe(2);
    });

    test('past the wait: a create answered before the signal stays created; only the unanswered ones are outcome unknown', async () => {
      const door = gate();
      const arrived: string[] = [];
      const sent: Array<Promise<unknown>> = [];
      const holding = held(door.wait, arrived, sent);
      // The first create is answered at once; the others wait at the door.
      const api: ApplyApi = { ...holding, createSession: (body) => (body.user_id === 'u0' ? w.client.createSession(body) : holding.createSession(body)) };
      const controller = new AbortController();
      const { done } = await start(w.docs(three), { api, concurrency: 2, signal: controller.signal, sleep: () => Promise.resolve() });
      await until(() => arrived.length === 2);
      controller.abort('SIGTERM');
      const result = await done;
      door.open();
      await Promise.all(sent);
      expect(result.interrupted).toStrictEqual({ reason: 'SIGTERM', abandoned: 2 });
      expect(result.items.map((i) => [i.name, i.outcome])).toStrictEqual([
        ['s0', 'created'],
        ['s1', 'outcome-unknown'],
        ['s2', 'outcome-unknown'],
      ]);
      expect((await w.entries()).map((e) => [e.name, e.session_id === '', e.pending_create?.status])).toStrictEqual([
        ['s0', false, undefined],
        ['s1', true, 'unknown'],
        ['s2', true, 'unknown'],
      ]);
    });

    test('past the wait: the unanswered creates are recorded as outcome unknown; their late answers write nothing', async () => {
      const door = gate();
      const arrived: string[] = [];
      const sent: Array<Promise<unknown>> = [];
      const controller = new AbortController();
      const { done } = await start(w.docs(three), { api: held(door.wait, arrived, sent), concurrency: 2, signal: controller.signal, sleep: () => Promise.resolve() });
      await until(() => arrived.length === 2);
      controller.abort('SIGTERM');
      const result = await done;
      expect(result.interrupted).toStrictEqual({ reason: 'SIGTERM', abandoned: 2 });
      expect(result.items.map((i) => [i.name, i.outcome])).toStrictEqual([
        ['s0', 'outcome-unknown'],
        ['s1', 'outcome-unknown'],
        ['s2', 'skipped'],
      ]);
      expect(result.items[0]!).toStrictEqual({
        name: 's0',
        file: `${w.dir}/m/a.yaml`,
        user_id: 'u0',
        action: 'create',
        outcome: 'outcome-unknown',
        drifted: false,
        drift: [],
        diff: '',
        diagnostics: [
          {
            code: 'apply/outcome-unknown',
            severity: 'error',
            message: 's0: the create was sent at 2026-11-25T10:00:00.000Z and the run was interrupted (SIGTERM) before the service answered; a session may exist, recorded as outcome unknown',
            file: `${w.dir}/m/a.yaml`,
            range: w.docs(three)[0]!.locate('/name', { key: true }),
            hint: 'look for a session of user "u0" created since 2026-11-25T10:00:00.000Z; adopt it with `sessionctl import s0 trs_...`, or apply with --recreate-unknown if there is none',
          },
        ],
      });
      const recorded = async (): Promise<Array<[string, string, StateEntry['pending_create']]>> => (await w.entries()).map((e) => [e.name, e.session_id, e.pending_create]);
      const hashes = new Map((await w.entries()).map((e) => [e.name, e.body_hash]));
      const unknown = (n: string) => [n, '', { since: NOW.toISOString(), body_hash: hashes.get(n), status: 'unknown', reason: 'the run was interrupted (SIGTERM) before the service answered' }];
      expect(await recorded()).toStrictEqual([unknown('s0'), unknown('s1')]);
      // The service answers after the run ended (and the lock is gone): the state stays as it was.
      door.open();
      await Promise.all(sent);
      await new Promise((r) => setImmediate(r));
      expect(await recorded()).toStrictEqual([unknown('s0'), unknown('s1')]);
      expect((await w.live()).length).toBe(2);
    });

    test('past the wait: an answer that comes while the run records what it gave up on, or after it returned, changes nothing in the result and is never reported', async () => {
      const doors = { u1: gate(), u2: gate() };
      const sent: Record<string, Promise<Session>> = {};
      // s0 is answered at once; s1 and s2 wait at doors of their own.
      const api: ApplyApi = {
        createSession: (body) => {
          const door = doors[body.user_id as 'u1' | 'u2'];
          if (door === undefined) return w.client.createSession(body);
          return (sent[body.user_id] = door.wait.then(() => w.client.createSession(body)));
        },
        updateSession: (id, body) => w.client.updateSession(id, body),
        deleteSession: (id) => w.client.deleteSession(id),
      };
      let returned = false;
      const progress: Array<[string, string, boolean]> = [];
      const controller = new AbortController();
      const state = await w.open();
      // While the run records s2 as outcome unknown (s1 is recorded and in the result already), s1 is answered.
      const recording = hooked(state, async (e, record) => {
        if (e.name === 's2' && e.pending_create?.status === 'unknown') {
          doors.u1.open();
          await sent['u1'];
          expect(await w.received('create')).toBe(2);
        }
        return record(e);
      });
      const plan = buildPlan(w.docs(three), state);
      let result: ApplyResult;
      try {
        const done = applyPlan(plan, {
          api,
          state: recording,
          cwd: w.dir,
          now,
          concurrency: 2,
          signal: controller.signal,
          sleep: () => Promise.resolve(),
          onProgress: (p) => progress.push([p.item.name, p.item.outcome, returned]),
        }).then((r) => ((returned = true), r));
        await until(() => sent['u1'] !== undefined && sent['u2'] !== undefined);
        controller.abort('SIGTERM');
        result = await done;
        doors.u2.open();
        // As in the late-answer tests below: the step has the answer once this settled, and is done with it by the time the service's count comes back.
        await sent['u2'];
        expect(await w.received('create')).toBe(3);
      } finally {
        await state.unlock();
      }
      expect(progress).toStrictEqual([['s0', 'created', false]]);
      expect(result.interrupted).toStrictEqual({ reason: 'SIGTERM', abandoned: 2 });
      expect(result.items.map((i) => [i.name, i.outcome, i.diagnostics.map((d) => [d.code, d.message])])).toStrictEqual([
        ['s0', 'created', []],
        ['s1', 'outcome-unknown', [['apply/outcome-unknown', 's1: the create was sent at 2026-11-25T10:00:00.000Z and the run was interrupted (SIGTERM) before the service answered; a session may exist, recorded as outcome unknown']]],
        ['s2', 'outcome-unknown', [['apply/outcome-unknown', 's2: the create was sent at 2026-11-25T10:00:00.000Z and the run was interrupted (SIGTERM) before the service answered; a session may exist, recorded as outcome unknown']]],
      ]);
      expect(result.tally).toStrictEqual({ created: 1, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 2 });
      expect((await w.entries()).map((e) => [e.name, e.pending_create?.status])).toStrictEqual([
        ['s0', undefined],
        ['s1', 'unknown'],
        ['s2', 'unknown'],
      ]);
    });

    test('past the wait, with a refused create among them: still outcome unknown (the run gave up on it first)', async () => {
      const door = gate();
      const arrived: string[] = [];
      const sent: Array<Promise<unknown>> = [];
      const controller = new AbortController();
      await w.admin('POST', 'faults', { route: 'create', status: 400, times: 1 });
      const { done } = await start(w.docs('name: s0\nuser_id: u0\n'), { api: held(door.wait, arrived, sent), signal: controller.signal, sleep: () => Promise.resolve() });
      await until(() => arrived.length === 1);
      controller.abort('SIGTERM');
      const result = await done;
      door.open();
      await Promise.allSettled(sent);
      await new Promise((r) => setImmediate(r));
      expect(result.items.map((i) => i.outcome)).toStrictEqual(['outcome-unknown']);
      expect((await w.entries()).map((e) => e.pending_create?.status)).toStrictEqual(['unknown']);
    });
    test('past the wait of the default clock: a create of a manifest without a name is outcome unknown, located at its document', async () => {
      const door = gate();
      const arrived: string[] = [];
      const sent: Array<Promise<unknown>> = [];
      const controller = new AbortController();
      const nameless = w.docs('user_id: u0\n', 'nameless.yaml');
      // No `sleep`: the run waits 1 ms on a real timer; the create stays at the door until after.
      const { done } = await start(nameless, { api: held(door.wait, arrived, sent), signal: controller.signal, graceMs: 1 });
      await until(() => arrived.length === 1);
      controller.abort('SIGTERM');
      const result = await done;
      door.open();
      await Promise.all(sent);
      expect(result.interrupted).toStrictEqual({ reason: 'SIGTERM', abandoned: 1 });
      expect(result.items.map((i) => [i.name, i.outcome, i.diagnostics.map((d) => [d.code, d.range])])).toStrictEqual([['nameless', 'outcome-unknown', [['apply/outcome-unknown', nameless[0]!.locate('')]]]]);
      expect(nameless[0]!.locate('')).not.toStrictEqual(nameless[0]!.locate('/user_id', { key: true }));
    });

    test('a request that fails with a bug after the run gave up on it rejects nothing unhandled', async () => {
      await w.apply(w.docs('name: s0\nuser_id: u0\n'));
      const x = (await w.client.createSession({ user_id: 'u0' })).session_id;
      const s = await w.open();
      await s.record({ ...s.get('s0', 'u0')!, superseded: [x] });
      await s.unlock();
      const door = gate();
      let arrived = 0;
      const api: ApplyApi = {
        createSession: (b) => w.client.createSession(b),
        updateSession: (id, b) => w.client.updateSession(id, b),
        deleteSession: async () => {
          arrived++;
          await door.wait;
          throw new TypeError('late bug');
        },
      };
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const controller = new AbortController();
        const { done } = await start(w.docs('name: s0\nuser_id: u0\n'), { api, signal: controller.signal, sleep: () => Promise.resolve() });
        await until(() => arrived === 1);
        controller.abort('SIGTERM');
        const result = await done;
        expect(result.items.map((i) => i.outcome)).toStrictEqual(['failed']);
        door.open();
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
      expect(unhandled).toStrictEqual([]);
    });
  });

  // The CLI closes its connection before it releases the lock, so an answer can still come in
  // between: what the run already reported (outcome unknown) must stay what the state says.
  describe('a late answer while the caller still holds the lock', () => {
    const answers: Array<[string, Array<Record<string, unknown>>]> = [
      ['the session', []],
      ['a refusal', [{ route: 'create', status: 400, times: 1 }]],
      ['a reset after the service handled it', [{ route: 'create', reset: 'after', times: 1 }]],
    ];
    test.each(answers)('%s, to the create of a replace the run gave up on: nothing recorded, deleted or reported, outcome unknown', async (_what, faults) => {
      await w.apply(w.docs(withTool('old')), { now });
      const x = (await w.client.createSession({ user_id: 'alice' })).session_id;
      const s = await w.open();
      await s.record({ ...s.get('a', 'alice')!, superseded: [x] });
      await s.unlock();
      const [old] = await w.entries();
      for (const f of faults) await w.admin('POST', 'faults', f);
      const door = gate();
      const arrived: string[] = [];
      const sent: Array<Promise<unknown>> = [];
      const controller = new AbortController();
      const progress: ApplyProgress[] = [];
      const state = await w.open();
      // Every write the run asks for, seen when it is asked (before the backend touches a disk).
      const writes: StateEntry[] = [];
      const watched = hooked(state, (e, record) => (writes.push(e), record(e)));
      const plan = buildPlan(w.docs(withTool('new')), state);
      const abandoned: StateEntry = {
        ...old!,
        pending_create: { since: NOW.toISOString(), body_hash: plan.items[0]!.body_hash, status: 'unknown', reason: 'the run was interrupted (SIGTERM) before the service answered' },
      };
      try {
        const done = applyPlan(plan, { api: held(door.wait, arrived, sent), state: watched, cwd: w.dir, now, signal: controller.signal, sleep: () => Promise.resolve(), onProgress: (p) => progress.push(p) });
        await until(() => arrived.length === 1);
        controller.abort('SIGTERM');
        const result = await done;
        expect([result.interrupted, result.items.map((i) => i.outcome)]).toStrictEqual([{ reason: 'SIGTERM', abandoned: 1 }, ['outcome-unknown']]);
        expect([writes.map((e) => e.pending_create?.status), state.list()]).toStrictEqual([['in-flight', 'unknown'], [abandoned]]);
        const creates = await w.received('create');
        door.open();
        // The step awaits this very promise: once it settled, the step has the answer, and what it
        // does with it up to its next write or request runs in the microtasks that follow, all over
        // by the time the service's own count of the request has come back over HTTP.
        await Promise.allSettled(sent);
        expect(await w.received('create')).toBe(creates + 1);
        expect([writes.length, arrived, progress]).toStrictEqual([2, ['create alice'], []]);
        expect(state.list()).toStrictEqual([abandoned]);
      } finally {
        await state.unlock();
      }
      expect(await w.entries()).toStrictEqual([abandoned]);
      expect(await w.received('delete')).toBe(0);
      expect(await w.live()).toEqual(expect.arrayContaining([old!.session_id, x]));
    });
  });

  describe('nothing starts after the signal', () => {
    test('a create stopped after its intent was written (the signal came during the write): not sent, and the intent undone', async () => {
      const controller = new AbortController();
      const state = await w.open();
      const stopping = hooked(state, (e, record) => {
        if (e.pending_create?.status === 'in-flight') controller.abort('SIGINT');
        return record(e);
      });
      const result = await applyPlan(buildPlan(w.docs('name: s0\nuser_id: u0\n'), state), { api: w.client, state: stopping, cwd: w.dir, now, signal: controller.signal, sleep: () => new Promise<void>(() => undefined) });
      await state.unlock();
      expect(await w.received('create')).toBe(0);
      expect(result.items.map((i) => [i.outcome, i.diagnostics.map((d) => d.message)])).toStrictEqual([['skipped', ['s0: not applied: the run was interrupted (SIGINT) before it started']]]);
      expect(await w.entries()).toStrictEqual([]);
    });

    test('a create waiting for the rate limit when the signal comes is not sent', async () => {
      const limiterDoor = gate();
      const waits: number[] = [];
      const limiter = new RateLimiter(60, { now: () => 0, sleep: (ms) => (waits.push(ms), limiterDoor.wait) });
      await limiter.acquire();
      const controller = new AbortController();
      const { done } = await start(w.docs('name: s0\nuser_id: u0\n'), { limiter, signal: controller.signal, sleep: () => new Promise<void>(() => undefined) });
      await until(() => waits.length === 1);
      controller.abort('SIGINT');
      limiterDoor.open();
      const result = await done;
      expect(await w.received('create')).toBe(0);
      expect(result.items.map((i) => i.outcome)).toStrictEqual(['skipped']);
      expect(await w.entries()).toStrictEqual([]);
    });

    test('an update waiting for the rate limit when the signal comes is not sent; the entry is what it was', async () => {
      await w.apply(w.docs('name: s0\nuser_id: u0\n'));
      const before = await w.entries();
      const limiterDoor = gate();
      const waits: number[] = [];
      const limiter = new RateLimiter(60, { now: () => 0, sleep: (ms) => (waits.push(ms), limiterDoor.wait) });
      await limiter.acquire();
      const controller = new AbortController();
      const { done } = await start(w.docs('name: s0\nuser_id: u0\ntoolkits: [gmail]\n'), { limiter, signal: controller.signal, sleep: () => new Promise<void>(() => undefined) });
      await until(() => waits.length === 1);
      controller.abort('SIGINT');
      limiterDoor.open();
      const result = await done;
      expect(await w.received('update')).toBe(0);
      expect(result.items.map((i) => [i.action, i.outcome])).toStrictEqual([['update', 'skipped']]);
      expect(await w.entries()).toStrictEqual(before);
    });
  });

  describe('a signal during a deletion that holds left-over sessions', () => {
    test.each([
      ['its own session', 0],
      ['its first left-over', 1],
    ])('during the delete of %s: that delete is answered; the left-overs after it are not sent, stay recorded, and the next run deletes them', async (_when, at) => {
      await w.apply(w.docs('name: s0\nuser_id: u0\n---\nname: s1\nuser_id: u1\n'));
      const x = (await w.client.createSession({ user_id: 'u0' })).session_id;
      const y = (await w.client.createSession({ user_id: 'u0' })).session_id;
      const s = await w.open();
      const s0 = { ...s.get('s0', 'u0')!, superseded: [x, y] };
      await s.record(s0);
      await s.unlock();
      const controller = new AbortController();
      const sent: string[] = [];
      const api = abortingAt(controller, sent, at);
      const prune = { roots: ['m'], cwd: w.dir };
      const { done } = await start(w.docs('name: s1\nuser_id: u1\n'), { api, prune, signal: controller.signal, sleep: () => new Promise<void>(() => undefined) });
      const result = await done;
      const left = [x, y].slice(at);
      const what = left.length === 1 ? '1 session it left was' : '2 sessions it left were';
      expect(sent).toStrictEqual([s0.session_id, x].slice(0, at + 1));
      expect(result.items.map((i) => [i.name, i.action, i.outcome, i.diagnostics.map((d) => [d.code, d.severity, d.message])])).toStrictEqual([
        ['s1', 'no-op', 'unchanged', []],
        ['s0', 'delete', 'failed', [['apply/interrupted', 'error', `s0: session ${s0.session_id} was deleted, then the run was interrupted (SIGINT) before ${what} deleted; they stay recorded for the next run`]]],
      ]);
      expect((await w.entries()).find((e) => e.name === 's0')).toStrictEqual({ ...s0, superseded: left });
      expect(await w.live()).toEqual(expect.arrayContaining(left));
      const next = await w.apply(w.docs('name: s1\nuser_id: u1\n'), { prune });
      expect(next.items.map((i) => [i.name, i.outcome, i.diagnostics])).toStrictEqual([
        ['s1', 'unchanged', []],
        ['s0', 'deleted', []],
      ]);
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['s1']);
      const live = await w.live();
      expect([live.includes(x), live.includes(y)]).toStrictEqual([false, false]);
    });
  });

  describe('a signal during the cleanup of sessions a replace left', () => {
    /** s0 applied, its entry holding two live sessions of its user left to delete. */
    async function leftOvers(): Promise<[string, string]> {
      await w.apply(w.docs('name: s0\nuser_id: u0\n'));
      const x = (await w.client.createSession({ user_id: 'u0' })).session_id;
      const y = (await w.client.createSession({ user_id: 'u0' })).session_id;
      const s = await w.open();
      await s.record({ ...s.get('s0', 'u0')!, superseded: [x, y] });
      await s.unlock();
      return [x, y];
    }

    test('within the wait: the delete in flight is answered and recorded, the next one is not sent and stays recorded', async () => {
      const [x, y] = await leftOvers();
      const [before] = await w.entries();
      const controller = new AbortController();
      const sent: string[] = [];
      const api = abortingAt(controller, sent, 0);
      const { done } = await start(w.docs('name: s0\nuser_id: u0\n'), { api, signal: controller.signal, sleep: () => new Promise<void>(() => undefined) });
      const result = await done;
      expect(sent).toStrictEqual([x]);
      expect(result).not.toHaveProperty('interrupted');
      expect(result.items.map((i) => [i.outcome, i.diagnostics])).toStrictEqual([['unchanged', []]]);
      expect(await w.entries()).toStrictEqual([{ ...before!, superseded: [y] }]);
      expect(await w.live()).toStrictEqual([before!.session_id, y].sort());
    });

    test('the delete in flight ends the item; the sessions not yet deleted stay recorded, and the next run deletes them', async () => {
      const [x, y] = await leftOvers();
      const door = gate();
      const arrived: string[] = [];
      const sent: Array<Promise<unknown>> = [];
      const controller = new AbortController();
      const { done } = await start(w.docs('name: s0\nuser_id: u0\n'), { api: held(door.wait, arrived, sent), signal: controller.signal, sleep: () => Promise.resolve() });
      await until(() => arrived.length === 1);
      controller.abort('SIGTERM');
      const result = await done;
      expect(arrived).toStrictEqual([`delete ${x}`]);
      expect(result.items.map((i) => [i.outcome, i.diagnostics.map((d) => [d.code, d.message])])).toStrictEqual([
        ['failed', [['apply/interrupted', 's0: unfinished: the run was interrupted (SIGTERM) while its requests were in flight; what they changed is read again by the next run']]],
      ]);
      expect((await w.entries())[0]!.superseded).toStrictEqual([x, y]);
      door.open();
      await Promise.all(sent);
      await new Promise((r) => setImmediate(r));
      // The delete landed after the run: the state still holds both, and no other delete was sent.
      expect((await w.entries())[0]!.superseded).toStrictEqual([x, y]);
      expect(arrived).toStrictEqual([`delete ${x}`]);
      const next = await w.apply(w.docs('name: s0\nuser_id: u0\n'));
      expect(next.items.map((i) => [i.outcome, i.diagnostics])).toStrictEqual([['unchanged', []]]);
      expect((await w.entries())[0]).not.toHaveProperty('superseded');
      expect(await w.live()).toStrictEqual([(await w.entries())[0]!.session_id]);
    });
  });
});
