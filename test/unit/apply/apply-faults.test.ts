import { describe, expect, test } from 'vitest';
import type { ApplyApi } from '../../../src/apply/apply.js';
import { bodyHash, requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { Session } from '../../../src/wire/session.js';
import { docs } from '../validate/helpers.js';
import { A, hooked, now, NOW, onEachState, withTool as tool, type World } from './world.js';

/*
 * apply when the service fails it: a create whose outcome is unknown (reset after it was handled,
 * a malformed 201, a 201 that is not a session), a refused create, a PATCH conflict, a refused
 * PATCH, and deletes that fail during a replace and a prune. Faults are injected in the emulator
 * (real HTTP); what the state holds afterwards is read back from it, on each backend.
 */


let w: World;

const run = (yaml: string, options: Parameters<World['apply']>[1] = {}) => w.apply(w.docs(yaml), { now, ...options });
const entry = async (name: string): Promise<StateEntry | undefined> => (await w.entries()).find((e) => e.name === name);
const fault = (f: Record<string, unknown>): Promise<unknown> => w.admin('POST', 'faults', f);
const hashOf = (yaml: string): string => bodyHash(requestBody(docs(yaml)[0]!.data as ManifestData));
const client = (): ApplyApi => ({ createSession: (b) => w.client.createSession(b), updateSession: (i, b) => w.client.updateSession(i, b), deleteSession: (i) => w.client.deleteSession(i) });

onEachState((fresh) => (w = fresh), () => {

  describe('a create whose outcome is unknown', () => {
    test('reset after the service handled it: recorded as outcome unknown with the reason, never retried, and the next run is blocked', async () => {
      await fault({ route: 'create', reset: 'after', times: 1 });
      const result = await run(A);
      const [item] = result.items;
      expect([item!.outcome, item!.session_id, result.tally.failed]).toStrictEqual(['outcome-unknown', undefined, 1]);
      const [d] = item!.diagnostics;
      expect([item!.diagnostics.length, d!.code, d!.severity, d!.pointer, d!.range?.start]).toStrictEqual([1, 'apply/outcome-unknown', 'error', '/name', { line: 1, col: 1 }]);
      const [e] = await w.entries();
      expect(e).toStrictEqual({
        name: 'a',
        user_id: 'alice',
        session_id: '',
        mcp_url: '',
        tool_router_tools: [],
        config_version: null,
        body_hash: hashOf(A),
        body: null,
        applied_at: NOW.toISOString(),
        pending_create: { since: NOW.toISOString(), body_hash: hashOf(A), status: 'unknown', reason: e!.pending_create!.reason },
      });
      expect(d!.message).toBe(`a: the create was sent but its outcome is unknown (${e!.pending_create!.reason}); a session may exist that is not recorded, so it was not retried`);
      expect(d!.hint).toBe('look for a session of user "alice" created since 2026-11-25T10:00:00.000Z; adopt it with `sessionctl import a trs_...`, or apply with --recreate-unknown if there is none');
      expect([await w.received('create'), (await w.live()).length]).toStrictEqual([1, 1]);

      const again = await run(A);
      expect(again.items.map((i) => [i.outcome, i.diagnostics])).toStrictEqual([['skipped', []]]);
      expect(again.diagnostics.map((x) => x.code)).toStrictEqual(['state/outcome-unknown']);
      expect(await w.received('create')).toBe(1);
    });

    test('a malformed 201: the same, and the reason says what was wrong', async () => {
      await fault({ route: 'create', malformed: true, times: 1 });
      const result = await run(A);
      expect(result.items.map((i) => i.outcome)).toStrictEqual(['outcome-unknown']);
      expect((await entry('a'))!.pending_create!.status).toBe('unknown');
      expect((await w.live()).length).toBe(1);
    });

    const answers: Array<[string, (s: Session) => unknown]> = [
      ['no session id', ({ session_id: _id, ...s }) => s],
      ['an empty session id', (s) => ({ ...s, session_id: '' })],
      ['a session id that is not a string', (s) => ({ ...s, session_id: 7 })],
      ['no MCP block', ({ mcp: _mcp, ...s }) => s],
      ['an MCP URL that is not a string', (s) => ({ ...s, mcp: { ...s.mcp, url: null } })],
      ['no tool list', ({ tool_router_tools: _t, ...s }) => s],
      ['a tool list that is not a list', (s) => ({ ...s, tool_router_tools: 'COMPOSIO_SEARCH_TOOLS' })],
      ['nothing at all', () => undefined],
    ];
    test.each(answers)('a 201 with %s is not a session: outcome unknown, with the reason', async (_what, edit) => {
      const api: ApplyApi = { ...client(), createSession: async (b) => edit(await w.client.createSession(b)) as Session };
      const result = await run(A, { api });
      expect(result.items.map((i) => [i.outcome, i.session_id])).toStrictEqual([['outcome-unknown', undefined]]);
      expect((await entry('a'))!.pending_create).toStrictEqual({ since: NOW.toISOString(), body_hash: hashOf(A), status: 'unknown', reason: 'the service answered the create without a session id, MCP URL or tool list' });
      expect((await entry('a'))!.session_id).toBe('');
    });

    test('an unknown outcome deletes none of the sessions the entry still has to delete', async () => {
      await run(tool('old'));
      const x = (await w.client.createSession({ user_id: 'alice' })).session_id;
      const s = await w.open();
      await s.record({ ...s.get('a', 'alice')!, superseded: [x] });
      await s.unlock();
      await fault({ route: 'create', reset: 'after', times: 1 });
      const result = await run(tool('new'));
      expect(result.items.map((i) => [i.action, i.outcome])).toStrictEqual([['replace', 'outcome-unknown']]);
      expect(await w.received('delete')).toBe(0);
      expect(await w.live()).toContain(x);
      expect((await entry('a'))!.superseded).toStrictEqual([x]);
    });

    test('an unknown outcome during a replace keeps the session the entry had, and marks the create', async () => {
      await run(tool('old'));
      const old = (await entry('a'))!;
      await fault({ route: 'create', reset: 'after', times: 1 });
      const result = await run(tool('new'));
      expect(result.items.map((i) => [i.action, i.outcome])).toStrictEqual([['replace', 'outcome-unknown']]);
      const now2 = (await entry('a'))!;
      expect({ ...now2, pending_create: undefined }).toStrictEqual({ ...old, pending_create: undefined });
      expect([now2.pending_create!.status, now2.pending_create!.body_hash]).toStrictEqual(['unknown', hashOf(tool('new'))]);
      // The old session is not deleted: the replace did not finish.
      expect(await w.live()).toContain(old.session_id);
    });
  });

  describe('a refused create', () => {
    test('nothing was created: failed, and the intent is removed (no entry at all)', async () => {
      await fault({ route: 'create', status: 400, times: 1 });
      const result = await run(A);
      const [item] = result.items;
      expect([item!.outcome, item!.diagnostics.map((d) => [d.code, d.severity])]).toStrictEqual(['failed', [['apply/create-failed', 'error']]]);
      expect(item!.diagnostics[0]!.message).toMatch(/^a: create refused \(HTTP 400.*\): /);
      expect(await w.entries()).toStrictEqual([]);
      expect(await w.live()).toStrictEqual([]);
      // Nothing stands in the way of the next run.
      expect((await run(A)).items.map((i) => i.outcome)).toStrictEqual(['created']);
    });

    test('a connection refused (the request never left): refused, not unknown, and the intent removed', async () => {
      const { createClient } = await import('../../../src/client/client.js');
      const dead = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'apply-unit-key-0001', retries: { maxRetries: 0 } });
      try {
        const result = await run(A, { api: { ...client(), createSession: (b) => dead.createSession(b) } });
        expect(result.items.map((i) => [i.outcome, i.diagnostics.map((d) => d.code)])).toStrictEqual([['failed', ['apply/create-failed']]]);
        expect(result.items[0]!.diagnostics[0]!.message).toMatch(/^a: create refused \(network\): /);
        expect(await w.entries()).toStrictEqual([]);
      } finally {
        await dead.close();
      }
    });

    test('a connection reset, before or after the service handled it: the client cannot tell, so the outcome is unknown', async () => {
      await fault({ route: 'create', reset: 'before', times: 1 });
      const result = await run(A);
      expect(result.items.map((i) => i.outcome)).toStrictEqual(['outcome-unknown']);
      expect((await w.entries()).map((e) => e.pending_create?.status)).toStrictEqual(['unknown']);
      expect(await w.live()).toStrictEqual([]);
    });

    test('during a replace: the entry is what it was, the old session alive and still recorded', async () => {
      await run(tool('old'));
      const old = (await entry('a'))!;
      await fault({ route: 'create', status: 422, times: 1 });
      const result = await run(tool('new'));
      expect(result.items.map((i) => [i.action, i.outcome, i.replaced_session])).toStrictEqual([['replace', 'failed', undefined]]);
      expect(await w.entries()).toStrictEqual([old]);
      expect(await w.live()).toStrictEqual([old.session_id]);
    });

    test('with --recreate-unknown over an intent: refused, and the entry is what it was (the earlier create still of unknown outcome)', async () => {
      await fault({ route: 'create', reset: 'after', times: 1 });
      await run(A);
      const before = await w.entries();
      await fault({ route: 'create', status: 400, times: 1 });
      const result = await run(A, { recreateUnknown: true, now: () => new Date('2026-11-26T00:00:00.000Z') });
      expect(result.items.map((i) => i.outcome)).toStrictEqual(['failed']);
      // Not an entry without a session and without an intent, which nothing would ever clean up.
      expect(await w.entries()).toStrictEqual(before);
    });
  });

  describe('a PATCH that fails', () => {
    test('a failed update deletes none of the sessions its entry still has to delete: they wait for a run that succeeds', async () => {
      await run(A);
      const left = (await w.client.createSession({ user_id: 'alice' })).session_id;
      const state = await w.open();
      await state.record({ ...state.get('a', 'alice')!, superseded: [left] });
      await state.unlock();
      await fault({ route: 'update', status: 400, times: 1 });
      const result = await run(A.replace('[gmail, slack]', '[gmail]'));
      expect(result.items.map((i) => i.outcome)).toStrictEqual(['failed']);
      expect([await w.received('delete'), (await entry('a'))!.superseded]).toStrictEqual([0, [left]]);
      expect(await w.live()).toContain(left);
    });

    test('409: a conflict naming both versions; nothing overwritten, the entry as it was', async () => {
      await run(A);
      const before = (await entry('a'))!;
      await w.admin('POST', `sessions/${before.session_id}/config`, { config: { workbench: { enable: true } } });
      const result = await run(A.replace('[gmail, slack]', '[gmail]'));
      const [item] = result.items;
      expect([item!.outcome, item!.session_id, item!.mcp_url]).toStrictEqual(['failed', before.session_id, undefined]);
      expect(item!.diagnostics.map((d) => [d.code, d.severity, d.pointer, d.message, d.hint])).toStrictEqual([
        [
          'apply/conflict',
          'error',
          '/name',
          `a: session ${before.session_id} changed while it was being updated: it is at config version 2, sessionctl read version 1; nothing was overwritten`,
          'someone else changed the session; run `sessionctl plan --refresh` to see its live config, then apply again (apply reads the current version first)',
        ],
      ]);
      expect(await w.entries()).toStrictEqual([before]);
      const live = await w.client.getSession(before.session_id);
      expect([live.config['toolkits'], live.config_version]).toStrictEqual([{ enabled: ['gmail', 'slack'] }, 2]);
    });

    test('a conflict the service does not detail falls back to the versions sessionctl knows', async () => {
      const { ApiError } = await import('../../../src/client/errors.js');
      await run(A);
      const id = (await entry('a'))!.session_id;
      const api: ApplyApi = { ...client(), updateSession: () => Promise.reject(new ApiError('conflict', { kind: 'conflict', method: 'PATCH', path: 'x', status: 409 })) };
      const result = await run(A.replace('[gmail, slack]', '[gmail]'), { api });
      expect(result.items[0]!.diagnostics[0]!.message).toBe(`a: session ${id} changed while it was being updated: it is at config version unknown, sessionctl read version 1; nothing was overwritten`);
      const s = await w.open();
      await s.record({ ...s.get('a', 'alice')!, config_version: null });
      await s.unlock();
      const unknown = await run(A.replace('[gmail, slack]', '[gmail]'), { api });
      expect(unknown.items[0]!.diagnostics[0]!.message).toContain('it is at config version unknown, sessionctl read version unknown;');
      // After a refresh, the version read is the live one.
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const { refreshPlan } = await import('../../../src/plan/refresh.js');
      const { applyPlan } = await import('../../../src/apply/apply.js');
      const state = await w.open();
      const plan = await refreshPlan(buildPlan(w.docs(A.replace('[gmail, slack]', '[gmail]')), state), { getSession: (x) => w.client.getSession(x), concurrency: 1 });
      const refreshed = await applyPlan(plan, { api, state, cwd: w.dir, now });
      await state.unlock();
      expect(refreshed.items[0]!.diagnostics[0]!.message).toContain('it is at config version unknown, sessionctl read version 1;');
      expect(plan.items[0]!.live?.config_version).toBe(1);
    });

    test('refused otherwise: update-failed, the entry as it was', async () => {
      await run(A);
      const before = (await entry('a'))!;
      await fault({ route: 'update', status: 400, times: 1 });
      const result = await run(A.replace('[gmail, slack]', '[gmail]'));
      expect(result.items.map((i) => [i.outcome, i.session_id, i.diagnostics.map((d) => d.code)])).toStrictEqual([['failed', before.session_id, ['apply/update-failed']]]);
      expect(result.items[0]!.diagnostics[0]!.message).toMatch(/^a: update refused \(HTTP 400.*\): /);
      expect(await w.entries()).toStrictEqual([before]);
    });
  });

  describe('a replace whose delete fails', () => {
    test('same entry: a warning; the entry keeps the old session, and the next run deletes it', async () => {
      await run(tool('old'));
      const old = (await entry('a'))!.session_id;
      await fault({ route: 'delete', status: 500, times: 1 });
      const result = await run(tool('new'));
      const [item] = result.items;
      expect([item!.outcome, item!.replaced_session, item!.diagnostics.map((d) => [d.code, d.severity])]).toStrictEqual(['replaced', old, [['apply/delete-failed', 'warning']]]);
      expect((await entry('a'))!.superseded).toStrictEqual([old]);
      expect(await w.live()).toHaveLength(2);
      const next = await run(tool('new'));
      expect(next.items.map((i) => [i.action, i.outcome, i.diagnostics])).toStrictEqual([['no-op', 'unchanged', []]]);
      expect(await entry('a')).not.toHaveProperty('superseded');
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
    });

    test('user changed: a warning, and — as it promises — a later apply deletes the old session', async () => {
      await run(A);
      const old = (await entry('a'))!.session_id;
      await fault({ route: 'delete', status: 500, times: 1 });
      const moved = A.replace('user_id: alice', 'user_id: alice-2');
      const result = await run(moved);
      const [item] = result.items;
      expect([item!.outcome, item!.diagnostics.map((d) => [d.code, d.severity])]).toStrictEqual(['replaced', [['apply/delete-failed', 'warning']]]);
      expect(item!.diagnostics[0]!.message).toMatch(new RegExp(`^a: the replaced session ${old} could not be deleted \\(.+\\); it stays alive until a later apply deletes it$`));
      expect(await w.live()).toContain(old);
      await run(moved);
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
      expect((await w.entries()).map((e) => [e.user_id, e.superseded])).toStrictEqual([['alice-2', undefined]]);
    });
    test('user changed: the old session is held by the new entry before the old entry is forgotten, with what the old entry still had to delete', async () => {
      await run(A);
      const old = (await entry('a'))!;
      const extra = (await w.client.createSession({ user_id: 'alice' })).session_id;
      const s = await w.open();
      await s.record({ ...old, superseded: [extra] });
      await s.unlock();
      const seen: Array<Array<[string, string[] | undefined]>> = [];
      const api: ApplyApi = { ...client(), deleteSession: async (id) => (seen.push((await w.entries()).map((e) => [e.user_id, e.superseded])), w.client.deleteSession(id)) };
      const result = await run(A.replace('user_id: alice', 'user_id: alice-2'), { api });
      expect(result.items.map((i) => [i.outcome, i.replaced_session, i.diagnostics])).toStrictEqual([['replaced', old.session_id, []]]);
      expect(seen).toStrictEqual([[['alice-2', [extra, old.session_id]]], [['alice-2', [old.session_id]]]]);
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
    });
  });

  describe('a recorded session that refresh could not read', () => {
    test('is failed, not unchanged: nothing is sent for it, what an earlier replace left waits, and the entry stays as it was', async () => {
      await run(A);
      const old = (await entry('a'))!;
      const s = await w.open();
      await s.record({ ...old, superseded: ['trs_leftover00001'] });
      await s.unlock();
      const before = await w.entries();
      await fault({ route: 'get', status: 503, times: 1 });
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const { refreshPlan } = await import('../../../src/plan/refresh.js');
      const { applyPlan } = await import('../../../src/apply/apply.js');
      const state = await w.open();
      let result;
      try {
        const plan = await refreshPlan(buildPlan(w.docs(A), state), { getSession: (id) => w.client.getSession(id), concurrency: 1 });
        expect(plan.items.map((i) => [i.action, i.reason])).toStrictEqual([['unknown', 'unreadable']]);
        result = await applyPlan(plan, { api: client(), state, cwd: w.dir, now });
      } finally {
        await state.unlock();
      }
      expect(result.items.map((i) => [i.action, i.outcome, i.session_id, i.mcp_url, i.drifted, i.diagnostics])).toStrictEqual([['unknown', 'failed', old.session_id, old.mcp_url, false, []]]);
      expect(result.tally).toStrictEqual({ created: 0, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 1 });
      expect(result.diagnostics.map((d) => [d.code, d.severity])).toStrictEqual([['state/refresh-failed', 'error']]);
      expect([await w.received('update'), await w.received('delete'), await w.received('create')]).toStrictEqual([0, 0, 1]);
      expect(await w.entries()).toStrictEqual(before);
    });
  });

  describe('a state write that fails', () => {
    test('after an update: failed, with the session named; the entry stays as it was', async () => {
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const { applyPlan } = await import('../../../src/apply/apply.js');
      await run(A);
      const old = (await entry('a'))!;
      const state = await w.open();
      const failing = hooked(state, () => Promise.reject(new Error('disk full')));
      const result = await applyPlan(buildPlan(w.docs(A.replace('[gmail, slack]', '[gmail]')), state), { api: client(), state: failing, cwd: w.dir, now });
      await state.unlock();
      const [item] = result.items;
      const live = await w.client.getSession(old.session_id);
      expect([item!.outcome, item!.session_id, item!.mcp_url, item!.tool_router_tools]).toStrictEqual(['failed', old.session_id, live.mcp.url, live.tool_router_tools]);
      expect(item!.diagnostics.map((d) => [d.code, d.severity, d.message, d.hint])).toStrictEqual([
        ['state/write-failed', 'error', `a: session ${old.session_id} was updated, but the state could not be written: disk full`, 'apply again once the state can be written: it reads the session, sends the update again (it changes nothing more) and records it'],
      ]);
      expect(await w.entries()).toStrictEqual([old]);
    });

    test('after a create: failed, with the session named; after a user change the old entry is kept (the only record of either session)', async () => {
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const { applyPlan } = await import('../../../src/apply/apply.js');
      await run(A);
      const old = (await entry('a'))!;
      const state = await w.open();
      const failing = hooked(state, (e, record) => (e.session_id !== '' && e.user_id === 'alice-2' ? Promise.reject(new Error('disk full')) : record(e)));
      const result = await applyPlan(buildPlan(w.docs(A.replace('user_id: alice', 'user_id: alice-2')), state), { api: client(), state: failing, cwd: w.dir, now });
      await state.unlock();
      const [item] = result.items;
      expect([item!.outcome, item!.replaced_session]).toStrictEqual(['failed', undefined]);
      expect(item!.diagnostics.map((d) => [d.code, d.severity, d.message])).toStrictEqual([['state/write-failed', 'error', `a: session ${item!.session_id} was created, but the state could not be written: disk full`]]);
      const stateArg = state.location.startsWith('postgres://') ? ` --state '${state.location}'` : '';
      expect(item!.diagnostics[0]!.hint).toBe(
        `once the state can be written again, adopt the session with \`sessionctl import a ${item!.session_id} m/a.yaml${stateArg}\`; until then the state holds a create of unknown outcome for a, and apply sends nothing for it`,
      );
      expect((await w.entries()).find((e) => e.user_id === 'alice')).toStrictEqual(old);
      // What the state holds for the new user: the create's intent, which blocks the next run until the session is adopted.
      expect((await w.entries()).find((e) => e.user_id === 'alice-2')?.pending_create?.status).toBe('in-flight');
      expect(await w.live()).toContain(old.session_id);
    });

    test('after the create of a replace on the same entry: the hint forgets the old session first, since import refuses a name that records another', async () => {
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const { applyPlan } = await import('../../../src/apply/apply.js');
      await run(tool('one'));
      const old = (await entry('a'))!;
      const state = await w.open();
      const failing = hooked(state, (e, record) => (e.session_id !== old.session_id ? Promise.reject(new Error('disk full')) : record(e)));
      const result = await applyPlan(buildPlan(w.docs(tool('two')), state), { api: client(), state: failing, cwd: w.dir, now });
      await state.unlock();
      const [item] = result.items;
      expect([item!.action, item!.outcome, item!.replaced_session]).toStrictEqual(['replace', 'failed', undefined]);
      const stateArg = state.location.startsWith('postgres://') ? ` --state '${state.location}'` : '';
      expect(item!.diagnostics.map((d) => [d.code, d.message, d.hint])).toStrictEqual([
        [
          'state/write-failed',
          `a: session ${item!.session_id} was created, but the state could not be written: disk full`,
          `once the state can be written again, adopt the session with \`sessionctl state rm a\` and then \`sessionctl import a ${item!.session_id} m/a.yaml${stateArg}\` (the state still records ${old.session_id}: forgotten, it stays alive until it is deleted by hand); until then the state holds a create of unknown outcome for a, and apply sends nothing for it`,
        ],
      ]);
      // The old session is alive and recorded, with the create's intent: nothing was deleted.
      expect((await entry('a'))!.pending_create?.status).toBe('in-flight');
      expect(await w.live()).toStrictEqual([item!.session_id, old.session_id].sort());
    });

    test('after a delete (--prune): failed with the state’s words, the session named; the entry stays, and nothing starts after it', async () => {
      await run(`${A}---\nname: b\nuser_id: bob\n---\nname: c\nuser_id: carol\n`);
      const [b, c] = [(await entry('b'))!, (await entry('c'))!];
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const { applyPlan } = await import('../../../src/apply/apply.js');
      const state = await w.open();
      const failing = { ...hooked(state, (e, record) => record(e)), forget: () => Promise.reject(new Error('disk full')) };
      const plan = buildPlan(w.docs(A), state, { prune: { roots: ['m'], cwd: w.dir } });
      expect(plan.deletions.map((d) => d.name)).toStrictEqual(['b', 'c']);
      const result = await applyPlan(plan, { api: client(), state: failing, cwd: w.dir, now, concurrency: 1 });
      await state.unlock();
      expect(result.items.map((i) => [i.name, i.action, i.outcome, i.session_id, i.diagnostics.map((d) => [d.code, d.message])])).toStrictEqual([
        ['a', 'no-op', 'unchanged', (await entry('a'))!.session_id, []],
        ['b', 'delete', 'failed', b.session_id, [['state/write-failed', 'b: the state could not be written: disk full']]],
        ['c', 'delete', 'skipped', undefined, [['apply/interrupted', 'c: not applied: the run was interrupted (the state could not be written) before it started']]],
      ]);
      // b is gone at the service and still recorded (the next run finds it gone); c was not touched.
      expect(await w.live()).not.toContain(b.session_id);
      expect(await w.live()).toContain(c.session_id);
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['a', 'b', 'c']);
    });
  });

  describe('a prune whose deletes fail', () => {
    test('a left-over session that cannot be deleted is not forgotten: the deletion fails and the next run retries', async () => {
      await run(`${A}---\nname: b\nuser_id: bob\n`);
      const b = (await entry('b'))!;
      const extra = (await w.client.createSession({ user_id: 'bob' })).session_id;
      const s = await w.open();
      await s.record({ ...b, superseded: [extra] });
      await s.unlock();
      let deletes = 0;
      const api: ApplyApi = {
        ...client(),
        deleteSession: async (id) => {
          // The left-over's delete fails, whichever order they are sent in.
          if (id === extra && deletes++ === 0) await fault({ route: 'delete', status: 500, times: 1 });
          return w.client.deleteSession(id);
        },
      };
      const result = await run(A, { api, prune: { roots: ['m'], cwd: w.dir } });
      expect(result.items[1]!.outcome).toBe('failed');
      expect(result.items[1]!.diagnostics.map((d) => d.code)).toStrictEqual(['apply/delete-failed']);
      expect(result.items[1]!.diagnostics[0]!.message).toMatch(new RegExp(`^b: session ${extra} \\(user "bob"\\) may or may not have been deleted: .+ \\(HTTP 500\\); it stays recorded$`));
      expect(await w.live()).toContain(extra);
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['a', 'b']);
      expect(await entry('b')).toStrictEqual({ ...b, superseded: [extra] });
      expect(result.tally).toMatchObject({ deleted: 0, failed: 1 });
      await run(A, { prune: { roots: ['m'], cwd: w.dir } });
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['a']);
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
    });

    test('of two left-overs, the one deleted is dropped and the one the network failed stays, named without an HTTP status', async () => {
      await run(`${A}---\nname: b\nuser_id: bob\n`);
      const b = (await entry('b'))!;
      const gone = (await w.client.createSession({ user_id: 'bob' })).session_id;
      const stays = (await w.client.createSession({ user_id: 'bob' })).session_id;
      const s = await w.open();
      await s.record({ ...b, superseded: [gone, stays] });
      await s.unlock();
      const { createClient } = await import('../../../src/client/client.js');
      const dead = createClient({ baseUrl: 'http://127.0.0.1:1', apiKey: 'apply-unit-key-0001', retries: { maxRetries: 0 } });
      try {
        const api: ApplyApi = { ...client(), deleteSession: (id) => (id === stays ? dead.deleteSession(id) : w.client.deleteSession(id)) };
        const result = await run(A, { api, prune: { roots: ['m'], cwd: w.dir } });
        expect(result.items[1]!.outcome).toBe('failed');
        expect(result.items[1]!.diagnostics.map((d) => d.code)).toStrictEqual(['apply/delete-failed']);
        // The network's own words, and nothing after them: no status, as none came.
        const why = await dead.deleteSession(stays).then(
          () => 'answered',
          (err: Error) => err.message,
        );
        expect(result.items[1]!.diagnostics[0]!.message).toBe(`b: session ${stays} (user "bob") could not be deleted: ${why}; it stays recorded`);
        expect(await entry('b')).toStrictEqual({ ...b, superseded: [stays] });
        expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id, stays].sort());
      } finally {
        await dead.close();
      }
    });
  });
});
