import { describe, expect, test } from 'vitest';
import { applyPlan, type ApplyApi, type ApplyProgress } from '../../../src/apply/apply.js';
import { buildPlan } from '../../../src/plan/plan.js';
import type { LockedState } from '../../../src/state/store.js';
import { A, now, onEachState, withTool as tool, type World } from './world.js';

/*
 * apply when the service refuses the API key (401 or 403): the first refusal ends the run with
 * one KeyRefusedError, no request starts after it, the refused change leaves the state as it was,
 * and what the requests already answered wrote is on record before the error reaches the caller.
 */

let w: World;

const fault = (f: Record<string, unknown>): Promise<unknown> => w.admin('POST', 'faults', f);
const client = (): ApplyApi => ({ createSession: (b) => w.client.createSession(b), updateSession: (i, b) => w.client.updateSession(i, b), deleteSession: (i) => w.client.deleteSession(i) });

/** What applyPlan threw, with the requests it sent, under the lock. */
async function refusedRun(yaml: string, options: Parameters<World['apply']>[1] = {}): Promise<{ err: unknown; progress: ApplyProgress[] }> {
  const progress: ApplyProgress[] = [];
  const err = await w.apply(w.docs(yaml), { now, onProgress: (p) => progress.push(p), ...options }).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { err, progress };
}

const keyRefused = (status: number, method: string) => ({ name: 'KeyRefusedError', kind: 'http', status, method });

onEachState((fresh) => (w = fresh), () => {

  describe('a refused key', () => {
    test.each([401, 403])('on a create (%i): thrown, the intent undone, nothing after it sent', async (status) => {
      await fault({ route: 'create', status, times: 1 });
      const sent: string[] = [];
      const api: ApplyApi = { ...client(), createSession: (b) => (sent.push(b.user_id), w.client.createSession(b)) };
      const { err, progress } = await refusedRun('name: s0\nuser_id: u0\n---\nname: s1\nuser_id: u1\n', { api, concurrency: 1 });
      expect(err).toMatchObject(keyRefused(status, 'POST'));
      expect(sent).toStrictEqual(['u0']);
      expect(progress).toStrictEqual([]);
      expect(await w.entries()).toStrictEqual([]);
      expect(await w.live()).toStrictEqual([]);
    });

    test('on the create of a replace: the entry is what it was, the old session alive', async () => {
      await w.apply(w.docs(tool('one')), { now });
      const before = await w.entries();
      await fault({ route: 'create', status: 401, times: 1 });
      const { err } = await refusedRun(tool('two'));
      expect(err).toMatchObject(keyRefused(401, 'POST'));
      expect(await w.entries()).toStrictEqual(before);
      expect(await w.live()).toStrictEqual([before[0]!.session_id]);
    });

    test('on an update: thrown, the entry as it was', async () => {
      await w.apply(w.docs(A), { now });
      const before = await w.entries();
      await fault({ route: 'update', status: 401, times: 1 });
      const { err } = await refusedRun(A.replace('[gmail, slack]', '[gmail]'));
      expect(err).toMatchObject(keyRefused(401, 'PATCH'));
      expect(await w.entries()).toStrictEqual(before);
    });

    test('on a delete of --prune: thrown, the entry kept', async () => {
      await w.apply(w.docs(A), { now });
      const before = await w.entries();
      await fault({ route: 'delete', status: 403, times: 1 });
      const { err } = await refusedRun('', { prune: { roots: ['m'], cwd: w.dir } });
      expect(err).toMatchObject(keyRefused(403, 'DELETE'));
      expect(await w.entries()).toStrictEqual(before);
      expect(await w.live()).toStrictEqual([before[0]!.session_id]);
    });

    test('on the delete of a replaced session: thrown, the new entry recorded with the old session still to delete', async () => {
      await w.apply(w.docs(tool('one')), { now });
      const old = (await w.entries())[0]!.session_id;
      await fault({ route: 'delete', status: 401, times: 1 });
      const { err } = await refusedRun(tool('two'));
      expect(err).toMatchObject(keyRefused(401, 'DELETE'));
      const [entry] = await w.entries();
      expect([entry!.session_id !== old, entry!.superseded]).toStrictEqual([true, [old]]);
      expect((await w.live()).length).toBe(2);
    });

    test('with another create in flight: no request starts after the refusal, and the answered create is recorded before the error is thrown', async () => {
      const state = await w.open();
      let undone!: () => void;
      const refusalHandled = new Promise<void>((r) => (undone = r));
      // The refused create's intent is forgotten (undone) just before the refusal is thrown.
      const watching: LockedState = { ...state, get: (n, u) => state.get(n, u), list: () => state.list(), record: (e) => state.record(e), unlock: () => state.unlock(), forget: (n, u) => state.forget(n, u).finally(undone) };
      const sent: string[] = [];
      await fault({ route: 'create', status: 401, times: 1 });
      const api: ApplyApi = {
        ...client(),
        createSession: async (b) => {
          sent.push(b.user_id);
          // u0 reaches the emulator first (and is refused); u1 leaves once the refusal is on its way.
          if (b.user_id === 'u1') await refusalHandled;
          return w.client.createSession(b);
        },
      };
      const yaml = ['s0', 's1', 's2'].map((n, i) => `name: ${n}\nuser_id: u${i}\n`).join('---\n');
      const err = await applyPlan(buildPlan(w.docs(yaml), state), { api, state: watching, cwd: w.dir, now, concurrency: 2 }).then(
        () => undefined,
        (e: unknown) => e,
      );
      // Read through the lock holder at once: the record of s1 must be done already.
      const held = state.list().map((e) => [e.name, e.user_id, e.session_id !== '', e.pending_create]);
      await state.unlock();
      expect(err).toMatchObject(keyRefused(401, 'POST'));
      expect(sent).toStrictEqual(['u0', 'u1']);
      expect(held).toStrictEqual([['s1', 'u1', true, undefined]]);
      expect((await w.entries()).map((e) => [e.name, e.session_id])).toStrictEqual([['s1', (await w.live())[0]]]);
    });
  });
});
