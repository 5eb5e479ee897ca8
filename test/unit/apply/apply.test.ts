import { describe, expect, test } from 'vitest';
import { applyPlan, tallyOf, type AppliedItem, type ApplyApi, type ApplyProgress } from '../../../src/apply/apply.js';
import { formatTally } from '../../../src/apply/tally.js';
import { bodyHash, requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { Session } from '../../../src/wire/session.js';
import { docs } from '../validate/helpers.js';
import { A, hooked, now, NOW, onEachState, withTool as tool, type World } from './world.js';

/*
 * applyPlan against the emulator in this process and each state backend (file, PostgreSQL): every action,
 * the state entries it writes (exactly, and the intent written before a create leaves), the
 * results in plan order, progress, concurrency and the tally.
 */

const B = 'name: b\nuser_id: bob\ntoolkits: [github]\n';

let w: World;

/** Plans and applies under the lock with the fixed clock; `api` defaults to the client. */
async function run(yaml: string, options: Parameters<World['apply']>[1] = {}) {
  return w.apply(w.docs(yaml), { now, ...options });
}

const entry = async (name: string): Promise<StateEntry | undefined> => (await w.entries()).find((e) => e.name === name);
const bodyOf = (yaml: string) => requestBody(docs(yaml)[0]!.data as ManifestData);

/** The client, with every create also reporting what the state held when it left. */
function probing(seen: StateEntry[][]): ApplyApi {
  return {
    createSession: async (body) => {
      seen.push(await w.entries());
      return w.client.createSession(body);
    },
    updateSession: (id, body) => w.client.updateSession(id, body),
    deleteSession: (id) => w.client.deleteSession(id),
  };
}

onEachState((fresh) => (w = fresh), () => {

  describe('create', () => {
    test('the intent is recorded before the request leaves; the answer replaces it with the whole entry', async () => {
      const seen: StateEntry[][] = [];
      const result = await run(A, { api: probing(seen) });
      const body = bodyOf(A);
      expect(seen).toStrictEqual([
        [
          {
            name: 'a',
            user_id: 'alice',
            session_id: '',
            mcp_url: '',
            tool_router_tools: [],
            config_version: null,
            body_hash: bodyHash(body),
            body: null,
            applied_at: NOW.toISOString(),
            pending_create: { since: NOW.toISOString(), body_hash: bodyHash(body), status: 'in-flight' },
          },
        ],
      ]);
      const [live] = await w.live();
      const session = await w.client.getSession(live!);
      expect(await w.entries()).toStrictEqual([
        {
          name: 'a',
          user_id: 'alice',
          session_id: live,
          mcp_url: session.mcp.url,
          tool_router_tools: session.tool_router_tools,
          config_version: 1,
          body_hash: bodyHash(body),
          body,
          applied_at: NOW.toISOString(),
          file: 'm/a.yaml',
        },
      ]);
      expect(result.items).toStrictEqual([
        { name: 'a', file: `${w.dir}/m/a.yaml`, user_id: 'alice', action: 'create', outcome: 'created', session_id: live, mcp_url: session.mcp.url, tool_router_tools: session.tool_router_tools, drifted: false, drift: result.items[0]!.drift, diagnostics: [], diff: '' },
      ]);
      expect(result.items[0]!.drift.every((d) => d.kind === 'defaulted')).toBe(true);
      expect(result.tally).toStrictEqual({ created: 1, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 0 });
      expect(result).not.toHaveProperty('interrupted');
      expect(result.diagnostics).toStrictEqual([]);
    });

    test('a manifest from standard input is recorded without a file (not even a key set to undefined, in memory)', async () => {
      const result = await w.apply(docs(A, '<stdin>'), { now });
      expect(result.items.map((i) => [i.outcome, i.file])).toStrictEqual([['created', '<stdin>']]);
      expect(await entry('a')).not.toHaveProperty('file');
    });

    test('a file outside the working folder is recorded relative to it', async () => {
      const state = await w.open();
      const documents = docs(A, `${w.dir}/../elsewhere/a.yaml`);
      await applyPlan((await import('../../../src/plan/plan.js')).buildPlan(documents, state), { api: w.client, state, cwd: `${w.dir}/m`, now });
      await state.unlock();
      expect((await entry('a'))!.file).toBe('../../elsewhere/a.yaml');
    });

    test('a session that answers with another config than declared is created, recorded, and reported drifted with its diff', async () => {
      const api: ApplyApi = {
        ...probing([]),
        createSession: async (body) => {
          const s = await w.client.createSession(body);
          return { ...s, config: { ...s.config, workbench: { ...(s.config['workbench'] as object), enable: true } } };
        },
      };
      const result = await run(A, { api });
      const [item] = result.items;
      expect([item!.outcome, item!.drifted]).toStrictEqual(['created', true]);
      expect(item!.diagnostics.map((d) => [d.code, d.range?.start])).toStrictEqual([['drift/changed', { line: 6, col: 3 }]]);
      expect(item!.diff).toContain(`--- a (declared)\n+++ ${item!.session_id} (effective)\n`);
      expect(item!.diff).toContain('-      "enable": false,\n+      "enable": true,\n');
      expect(result.tally).toMatchObject({ created: 1, drifted: 1, failed: 0 });
      expect(result.diagnostics).toStrictEqual(item!.diagnostics);
      expect((await entry('a'))!.session_id).toBe(item!.session_id);
    });

    // The state file and the database hold a whole number or null: anything else recorded would
    // make the state unreadable (file) or its write fail (bigint column) after the session exists.
    const versions: Array<[string, (v: number | undefined) => unknown]> = [
      ['no config version', () => undefined],
      ['a config version that is a string', (v) => String(v)],
      ['a config version that is not whole', (v) => v! + 0.5],
      ['a config version past the safe integers', () => 2 ** 53],
      ['a config version below zero', () => -1],
    ];
    test.each(versions)('an answer with %s records null, on a create and on an update, and the state stays readable', async (_what, edit) => {
      const answer = (s: Session): Session => ({ ...s, config_version: edit(s.config_version) }) as Session;
      const api: ApplyApi = {
        ...probing([]),
        createSession: async (body) => answer(await w.client.createSession(body)),
        updateSession: async (id, body) => answer(await w.client.updateSession(id, body)),
      };
      const created = await run(A, { api });
      expect([created.items[0]!.outcome, (await entry('a'))!.config_version]).toStrictEqual(['created', null]);
      const updated = await run(A.replace('[gmail, slack]', '[gmail]'), { api });
      expect([updated.items[0]!.outcome, (await entry('a'))!.config_version]).toStrictEqual(['updated', null]);
    });

    test('the mask is applied to the MCP URL the state records, on a create and on an update', async () => {
      const mask = (text: string): string => text.replace(/trs_[A-Za-z0-9_-]+/g, '***');
      await run(A, { mask });
      const [live] = await w.live();
      const url = (await w.client.getSession(live!)).mcp.url;
      expect(url).toContain(live);
      expect((await entry('a'))!.mcp_url).toBe(mask(url));
      expect((await entry('a'))!.mcp_url).not.toContain(live);
      await run(A.replace('[gmail, slack]', '[gmail]'), { mask });
      expect((await entry('a'))!.mcp_url).toBe(mask(url));
    });

    test('--strict counts what the service added as drift', async () => {
      const api: ApplyApi = {
        ...probing([]),
        createSession: async (body) => {
          const s = await w.client.createSession(body);
          return { ...s, config: { ...s.config, tags: { enabled: ['readOnlyHint'] } } };
        },
      };
      expect((await run(A, { api })).items[0]!.drifted).toBe(false);
      await w.admin('DELETE', `sessions/${(await entry('a'))!.session_id}`);
      const state = await w.open();
      await state.forget('a', 'alice');
      await state.unlock();
      expect((await run(A, { api, strict: true })).items[0]!.drifted).toBe(true);
    });
  });

  describe('no-op, update', () => {
    test('an unchanged manifest sends nothing and reports the recorded session', async () => {
      await run(A);
      const before = (await entry('a'))!;
      const result = await run(A);
      expect(await w.received('update')).toBe(0);
      expect(result.items).toStrictEqual([
        { name: 'a', file: `${w.dir}/m/a.yaml`, user_id: 'alice', action: 'no-op', outcome: 'unchanged', session_id: before.session_id, mcp_url: before.mcp_url, tool_router_tools: before.tool_router_tools, drifted: false, drift: [], diagnostics: [], diff: '' },
      ]);
      expect(await w.entries()).toStrictEqual([before]);
      expect(result.tally).toStrictEqual({ created: 0, updated: 0, replaced: 0, deleted: 0, unchanged: 1, drifted: 0, failed: 0 });
    });

    test('after a refresh, an unchanged manifest is verified against the live session: drifted with --strict when something was added', async () => {
      await run(A);
      await w.admin('POST', `sessions/${(await entry('a'))!.session_id}/config`, { config: { tags: { enabled: ['readOnlyHint'] } } });
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const { refreshPlan } = await import('../../../src/plan/refresh.js');
      const state = await w.open();
      const plan = await refreshPlan(buildPlan(w.docs(A), state), { getSession: (x) => w.client.getSession(x), concurrency: 1 });
      const lax = await applyPlan(plan, { api: w.client, state, cwd: w.dir, now });
      const strict = await applyPlan(plan, { api: w.client, state, cwd: w.dir, now, strict: true });
      await state.unlock();
      expect(lax.items.map((i) => [i.outcome, i.drifted, i.diff, i.diagnostics.map((d) => [d.code, d.severity])])).toStrictEqual([['unchanged', false, '', [['drift/added', 'warning']]]]);
      expect(lax.items[0]!.drift.some((d) => d.kind === 'added' && d.path === '/config/tags')).toBe(true);
      expect(strict.items.map((i) => [i.outcome, i.drifted])).toStrictEqual([['unchanged', true]]);
      expect(strict.items[0]!.diff).toContain(`+++ ${(await entry('a'))!.session_id} (effective)`);
      expect(strict.tally).toMatchObject({ unchanged: 1, drifted: 1, failed: 0 });
    });

    test('an update verified without --strict: what the manifest does not declare is reported, not drift, and shows no diff', async () => {
      await run(A);
      // Added out of band at the version the state recorded, so the PATCH is not a conflict.
      await w.admin('POST', `sessions/${(await entry('a'))!.session_id}/config`, { config: { tags: { enabled: ['readOnlyHint'] } }, config_version: 1 });
      const result = await run(A.replace('[gmail, slack]', '[gmail]'));
      expect(result.items.map((i) => [i.outcome, i.drifted, i.diff, i.diagnostics.map((d) => [d.code, d.severity])])).toStrictEqual([['updated', false, '', [['drift/added', 'warning']]]]);
    });

    test('a failed create is the item and its finding, nothing else', async () => {
      await w.admin('POST', 'faults', { route: 'create', status: 400, times: 1 });
      const result = await run(A);
      expect({ ...result.items[0]!, diagnostics: [] }).toStrictEqual({ name: 'a', file: `${w.dir}/m/a.yaml`, user_id: 'alice', action: 'create', outcome: 'failed', drifted: false, drift: [], diagnostics: [], diff: '' });
    });

    test('a changed manifest is PATCHed in place: same session and URL, config version 2, the new body recorded', async () => {
      await run(A);
      const before = (await entry('a'))!;
      const edited = A.replace('[gmail, slack]', '[gmail, notion]');
      const later = new Date('2026-11-26T00:00:00.000Z');
      const result = await run(edited, { now: () => later });
      const session = await w.client.getSession(before.session_id);
      expect(session.config['toolkits']).toStrictEqual({ enabled: ['gmail', 'notion'] });
      expect(await w.entries()).toStrictEqual([{ ...before, config_version: 2, body: bodyOf(edited), body_hash: bodyHash(bodyOf(edited)), applied_at: later.toISOString(), tool_router_tools: session.tool_router_tools }]);
      expect(result.items.map((i) => [i.action, i.outcome, i.session_id, i.mcp_url, i.drifted])).toStrictEqual([['update', 'updated', before.session_id, before.mcp_url, false]]);
      expect(result.tally).toStrictEqual({ created: 0, updated: 1, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 0 });
    });

    test('the PATCH carries the version read: the live one after a refresh, else the recorded one, else none', async () => {
      await run(A);
      const id = (await entry('a'))!.session_id;
      const sent: unknown[] = [];
      const api: ApplyApi = { ...probing([]), updateSession: (sid, body) => (sent.push(body), w.client.updateSession(sid, body)) };
      await run(A.replace('[gmail, slack]', '[gmail]'), { api });
      // Moved on behind our back (version 3); the plan is refreshed, so the PATCH expects 3.
      await w.admin('POST', `sessions/${id}/config`, { config: { toolkits: { enabled: ['gmail'] } } });
      const state = await w.open();
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const { refreshPlan } = await import('../../../src/plan/refresh.js');
      const plan = await refreshPlan(buildPlan(w.docs(A.replace('[gmail, slack]', '[jira]')), state), { getSession: (x) => w.client.getSession(x), concurrency: 1 });
      await applyPlan(plan, { api, state, cwd: w.dir, now });
      await state.unlock();
      // An entry that does not know its version (state version 1, an import) sends none.
      const s2 = await w.open();
      await s2.record({ ...s2.get('a', 'alice')!, config_version: null });
      await s2.unlock();
      await run(A, { api });
      expect(sent).toStrictEqual([
        { toolkits: { enable: ['gmail'] }, expected_config_version: 1 },
        { toolkits: { enable: ['jira'] }, expected_config_version: 3 },
        { toolkits: { enable: ['gmail', 'slack'] } },
      ]);
      expect((await entry('a'))!.config_version).toBe(5);
    });

    test('an update keeps the sessions an earlier replace left to delete, and deletes them', async () => {
      await run(tool('old'));
      const oldId = (await entry('a'))!.session_id;
      await w.admin('POST', 'faults', { route: 'delete', status: 503, times: 1 });
      const replaced = await run(tool('new'));
      expect(replaced.items[0]!.diagnostics.map((d) => [d.code, d.severity])).toStrictEqual([['apply/delete-failed', 'warning']]);
      expect((await entry('a'))!.superseded).toStrictEqual([oldId]);
      const result = await run(tool('new').replace('[gmail, slack]', '[gmail]'));
      expect(result.items.map((i) => [i.action, i.outcome, i.diagnostics])).toStrictEqual([['update', 'updated', []]]);
      expect(await entry('a')).not.toHaveProperty('superseded');
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
    });
  });

  describe('drift repaired', () => {
    async function refreshAndApply(yaml: string, strict: boolean) {
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const { refreshPlan } = await import('../../../src/plan/refresh.js');
      const state = await w.open();
      try {
        const plan = await refreshPlan(buildPlan(w.docs(yaml), state), { getSession: (x) => w.client.getSession(x), concurrency: 1, strict });
        return { plan, result: await applyPlan(plan, { api: w.client, state, cwd: w.dir, now, strict }) };
      } finally {
        await state.unlock();
      }
    }

    test('a declared value changed behind the manifest: PATCHed back, in sync afterwards', async () => {
      await run(A);
      const id = (await entry('a'))!.session_id;
      await w.admin('POST', `sessions/${id}/config`, { config: { workbench: { enable: true } } });
      const { plan, result } = await refreshAndApply(A, false);
      expect(plan.items.map((i) => [i.action, i.reason, i.patch])).toStrictEqual([['update', 'drifted', { workbench: { enable: false } }]]);
      expect(result.items.map((i) => [i.outcome, i.drifted])).toStrictEqual([['updated', false]]);
      expect((await entry('a'))!.config_version).toBe(3);
    });

    test('without --strict, a member the manifest does not declare is not drift: the repair of its block leaves it as it is', async () => {
      await run(A);
      const id = (await entry('a'))!.session_id;
      await w.admin('POST', `sessions/${id}/config`, { config: { workbench: { enable: true, sandbox_size: 'large' } } });
      const { plan, result } = await refreshAndApply(A, false);
      expect(plan.items.map((i) => [i.action, i.reason, i.patch])).toStrictEqual([['update', 'drifted', { workbench: { enable: false } }]]);
      expect(result.items.map((i) => [i.outcome, i.drifted])).toStrictEqual([['updated', false]]);
      const live = (await w.client.getSession(id)).config['workbench'] as Record<string, unknown>;
      expect([live['enable'], live['sandbox_size']]).toStrictEqual([false, 'large']);
      expect((await refreshAndApply(A, false)).result.items.map((i) => i.outcome)).toStrictEqual(['unchanged']);
    });

    test('with --strict, members added behind the manifest inside a merged block (a callback URL, a sandbox size) are taken away', async () => {
      const declared = 'name: a\nuser_id: u\nworkbench:\n  enable: true\nmanage_connections:\n  enable: true\n';
      await run(declared);
      const id = (await entry('a'))!.session_id;
      await w.admin('POST', `sessions/${id}/config`, { config: { workbench: { sandbox_size: 'large' }, manage_connections: { callback_url: 'https://evil.example/cb' } } });
      const { result } = await refreshAndApply(declared, true);
      expect(result.items.map((i) => [i.outcome, i.drifted, i.diagnostics])).toStrictEqual([['updated', false, []]]);
      const live = await w.client.getSession(id);
      expect([live.config['manage_connections'], (live.config['workbench'] as Record<string, unknown>)['sandbox_size']]).toStrictEqual([
        { enabled: true, enable_wait_for_connections: false, enable_connection_removal: true },
        'standard',
      ]);
      expect((await refreshAndApply(declared, true)).result.items.map((i) => i.outcome)).toStrictEqual(['unchanged']);
    });
  });

  describe('replace', () => {
    test('custom tools changed: a new session recorded under the same entry, then the old one deleted', async () => {
      await run(tool('old'));
      const old = (await entry('a'))!;
      const result = await run(tool('new'));
      const now2 = (await entry('a'))!;
      expect(now2.session_id).not.toBe(old.session_id);
      expect(now2).not.toHaveProperty('superseded');
      expect(now2.body).toStrictEqual(bodyOf(tool('new')));
      expect(await w.live()).toStrictEqual([now2.session_id]);
      expect(result.items.map((i) => [i.action, i.outcome, i.session_id, i.replaced_session, i.diagnostics])).toStrictEqual([['replace', 'replaced', now2.session_id, old.session_id, []]]);
      expect(result.tally).toStrictEqual({ created: 0, updated: 0, replaced: 1, deleted: 0, unchanged: 0, drifted: 0, failed: 0 });
    });

    test('--keep-replaced: the old session stays alive and is forgotten', async () => {
      await run(tool('old'));
      const old = (await entry('a'))!;
      const result = await run(tool('new'), { keepReplaced: true });
      expect((await w.entries()).map((e) => [e.name, e.session_id, e.superseded])).toStrictEqual([['a', result.items[0]!.session_id, undefined]]);
      expect((await w.live()).sort()).toStrictEqual([old.session_id, result.items[0]!.session_id].sort());
      expect(result.items[0]!.replaced_session).toBe(old.session_id);
      expect(await w.received('delete')).toBe(0);
    });

    test('the old session is kept to delete while the replace is under way: the new entry records it first', async () => {
      await run(tool('old'));
      const old = (await entry('a'))!.session_id;
      const seen: StateEntry[][] = [];
      const api: ApplyApi = { ...probing([]), deleteSession: async (id) => (seen.push(await w.entries()), w.client.deleteSession(id)) };
      await run(tool('new'), { api });
      expect(seen.map((entries) => entries.map((e) => [e.session_id === old, e.superseded]))).toStrictEqual([[[false, [old]]]]);
    });

    test('custom tools changed on an entry that still holds a session to delete: each is deleted once, that one first, then the old session', async () => {
      await run(tool('old'));
      const old = (await entry('a'))!.session_id;
      const x = (await w.client.createSession(bodyOf(B))).session_id;
      const state = await w.open();
      await state.record({ ...state.get('a', 'alice')!, superseded: [x] });
      await state.unlock();
      const seen: Array<[string, string[] | undefined]> = [];
      const api: ApplyApi = { ...probing([]), deleteSession: async (id) => (seen.push([id, (await entry('a'))!.superseded]), w.client.deleteSession(id)) };
      const result = await run(tool('new'), { api });
      expect(seen).toStrictEqual([
        [x, [x, old]],
        [old, [old]],
      ]);
      expect(result.items.map((i) => [i.outcome, i.replaced_session, i.diagnostics])).toStrictEqual([['replaced', old, []]]);
      expect(await entry('a')).not.toHaveProperty('superseded');
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
    });

    test('user_id changed: the new user’s session is created, the old one deleted and its entry forgotten', async () => {
      await run(A);
      const old = (await entry('a'))!;
      const result = await run(A.replace('user_id: alice', 'user_id: alice-2'));
      expect((await w.entries()).map((e) => [e.name, e.user_id, e.superseded])).toStrictEqual([['a', 'alice-2', undefined]]);
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
      expect(result.items.map((i) => [i.action, i.outcome, i.user_id, i.replaced_session, i.diagnostics])).toStrictEqual([['replace', 'replaced', 'alice-2', old.session_id, []]]);
    });

    test('user_id changed with --keep-replaced: the old session lives on, its entry is forgotten', async () => {
      await run(A);
      const old = (await entry('a'))!;
      const result = await run(A.replace('user_id: alice', 'user_id: alice-2'), { keepReplaced: true });
      expect((await w.entries()).map((e) => e.user_id)).toStrictEqual(['alice-2']);
      expect(await w.live()).toContain(old.session_id);
      expect(result.items[0]!.replaced_session).toBe(old.session_id);
    });
  });

  describe('sessions left to delete (cleanup)', () => {
    test('a no-op deletes what the entry holds as superseded, one by one, recording each; a 404 counts as deleted', async () => {
      await run(A);
      const extra = (await w.client.createSession(bodyOf(B))).session_id;
      const state = await w.open();
      await state.record({ ...state.get('a', 'alice')!, superseded: ['trs_gone00000000', extra] });
      await state.unlock();
      const seen: Array<string[] | undefined> = [];
      const api: ApplyApi = { ...probing([]), deleteSession: async (id) => (seen.push((await entry('a'))!.superseded), w.client.deleteSession(id)) };
      const result = await run(A, { api });
      expect(seen).toStrictEqual([['trs_gone00000000', extra], [extra]]);
      expect(await entry('a')).not.toHaveProperty('superseded');
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
      expect(result.items.map((i) => [i.outcome, i.diagnostics])).toStrictEqual([['unchanged', []]]);
    });

    test('a session the list names twice (a state merged by hand) is deleted once, and the entry ends with none left', async () => {
      await run(A);
      const x = (await w.client.createSession(bodyOf(B))).session_id;
      const state = await w.open();
      await state.record({ ...state.get('a', 'alice')!, superseded: [x, x] });
      await state.unlock();
      const result = await run(A);
      expect(await w.received('delete')).toBe(1);
      expect(result.items.map((i) => [i.outcome, i.diagnostics])).toStrictEqual([['unchanged', []]]);
      expect(await entry('a')).not.toHaveProperty('superseded');
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
    });

    test('a delete that fails is a warning, and the entry keeps that session for the next run', async () => {
      await run(A);
      const x = (await w.client.createSession(bodyOf(B))).session_id;
      const y = (await w.client.createSession(bodyOf(B))).session_id;
      const state = await w.open();
      await state.record({ ...state.get('a', 'alice')!, superseded: [x, y] });
      await state.unlock();
      await w.admin('POST', 'faults', { route: 'delete', status: 500, times: 1 });
      const result = await run(A);
      const [d] = result.items[0]!.diagnostics;
      expect([result.items[0]!.outcome, result.items[0]!.diagnostics.length, d!.code, d!.severity, d!.pointer]).toStrictEqual(['unchanged', 1, 'apply/delete-failed', 'warning', '/name']);
      expect(d!.message).toMatch(new RegExp(`^a: the replaced session ${x} could not be deleted \\(.+\\); it stays alive until a later apply deletes it$`));
      expect(d!.hint).toBe('apply again to retry the delete; the state remembers the session');
      expect((await entry('a'))!.superseded).toStrictEqual([x]);
      expect(result.tally.failed).toBe(0);
      await run(A);
      expect(await entry('a')).not.toHaveProperty('superseded');
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
    });
  });

  describe('delete (--prune, destroy)', () => {
    test('deletes the session and its left-overs, then forgets the entry; a session already gone counts as deleted', async () => {
      await run(`${A}---\n${B}`);
      const b = (await entry('b'))!;
      const extra = (await w.client.createSession(bodyOf(B))).session_id;
      const state = await w.open();
      await state.record({ ...b, superseded: [extra] });
      await state.unlock();
      const result = await run(A, { prune: { roots: ['m'], cwd: w.dir } });
      expect(result.items.map((i) => [i.name, i.action, i.outcome])).toStrictEqual([
        ['a', 'no-op', 'unchanged'],
        ['b', 'delete', 'deleted'],
      ]);
      expect(result.items[1]).toStrictEqual({ name: 'b', file: 'm/a.yaml', user_id: 'bob', action: 'delete', outcome: 'deleted', session_id: b.session_id, drifted: false, drift: [], diagnostics: [], diff: '' });
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['a']);
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
      expect(result.tally).toStrictEqual({ created: 0, updated: 0, replaced: 0, deleted: 1, unchanged: 1, drifted: 0, failed: 0 });
      // Gone already: deleted all the same.
      const c = (await w.client.createSession(bodyOf(B))).session_id;
      const s2 = await w.open();
      await s2.record({ ...b, session_id: c, file: 'm/b.yaml' });
      await s2.unlock();
      await w.admin('DELETE', `sessions/${c}`);
      expect((await run(A, { prune: { roots: ['m'], cwd: w.dir } })).items[1]!.outcome).toBe('deleted');
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['a']);
    });

    /** b applied, with c recording b's session as well (imported under a second name), both holding x to delete. */
    async function sharedSession(): Promise<{ b: StateEntry; x: string; deleted: string[]; api: (failOn?: string) => ApplyApi }> {
      await run(`${A}---\n${B}`);
      const b = (await entry('b'))!;
      const x = (await w.client.createSession(bodyOf(B))).session_id;
      const state = await w.open();
      await state.record({ ...b, superseded: [x, x] });
      await state.record({ ...b, name: 'c', superseded: [x] });
      await state.unlock();
      const deleted: string[] = [];
      const api = (failOn?: string): ApplyApi => ({
        ...probing([]),
        deleteSession: async (id) => {
          deleted.push(id);
          if (id === failOn) await w.admin('POST', 'faults', { route: 'delete', status: 500, times: 1 });
          return w.client.deleteSession(id);
        },
      });
      return { b, x, deleted, api };
    }

    test('a session two entries record, and a left-over they both hold: each deleted once, both entries forgotten, one deletion counted', async () => {
      const { b, x, deleted, api } = await sharedSession();
      const result = await run(A, { api: api(), prune: { roots: ['m'], cwd: w.dir } });
      expect([deleted, await w.received('delete')]).toStrictEqual([[b.session_id, x], 2]);
      expect(result.items.map((i) => [i.name, i.action, i.outcome, i.diagnostics])).toStrictEqual([
        ['a', 'no-op', 'unchanged', []],
        ['b', 'delete', 'deleted', []],
      ]);
      expect(result.tally).toStrictEqual({ created: 0, updated: 0, replaced: 0, deleted: 1, unchanged: 1, drifted: 0, failed: 0 });
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['a']);
      expect(await w.live()).toStrictEqual([(await entry('a'))!.session_id]);
    });

    test('the shared session whose delete fails: both entries stay as they were; a left-over that fails stays on the first, the other is forgotten', async () => {
      const { b, x, deleted, api } = await sharedSession();
      const before = await w.entries();
      const failed = await run(A, { api: api(b.session_id), prune: { roots: ['m'], cwd: w.dir } });
      expect([deleted, failed.tally.failed, failed.tally.deleted]).toStrictEqual([[b.session_id], 1, 0]);
      expect(await w.entries()).toStrictEqual(before);
      deleted.length = 0;
      const again = await run(A, { api: api(x), prune: { roots: ['m'], cwd: w.dir } });
      expect(deleted).toStrictEqual([b.session_id, x]);
      expect(again.items[1]!.diagnostics.map((d) => [d.code, d.message.startsWith(`b: session ${x} (user "bob") may or may not have been deleted:`)])).toStrictEqual([['apply/delete-failed', true]]);
      expect((await w.entries()).map((e) => [e.name, e.session_id, e.superseded])).toStrictEqual([
        ['a', (await entry('a'))!.session_id, undefined],
        ['b', b.session_id, [x]],
      ]);
      deleted.length = 0;
      await run(A, { api: api(), prune: { roots: ['m'], cwd: w.dir } });
      expect(deleted).toStrictEqual([b.session_id, x]);
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['a']);
    });

    test('a delete that fails: failed, with the session, the user and the status named; the entry stays', async () => {
      await run(`${A}---\n${B}`);
      const b = (await entry('b'))!;
      await w.admin('POST', 'faults', { route: 'delete', status: 400, times: 1 });
      const result = await run(A, { prune: { roots: ['m'], cwd: w.dir } });
      expect(result.items[1]!.outcome).toBe('failed');
      expect(result.items[1]!.diagnostics.map((d) => [d.code, d.severity, d.file, d.range])).toStrictEqual([['apply/delete-failed', 'error', undefined, undefined]]);
      expect(result.items[1]!.diagnostics[0]!.message).toMatch(new RegExp(`^b: session ${b.session_id} \\(user "bob"\\) could not be deleted: .+ \\(HTTP 400\\); it stays recorded$`));
      expect((await w.entries()).map((e) => e.name)).toStrictEqual(['a', 'b']);
      expect(result.tally).toMatchObject({ deleted: 0, failed: 1 });
    });

    test('a deletion of an entry that names no file reports an empty file', async () => {
      await run(B);
      const state = await w.open();
      const { deletionOf } = await import('../../../src/plan/plan.js');
      const { file: _f, ...noFile } = state.get('b', 'bob')!;
      const result = await applyPlan({ items: [], deletions: [deletionOf(noFile, 'destroy')], manifestsHash: '', stateHash: '', diagnostics: [], prunable: 0, publications: [] }, { api: w.client, state, cwd: w.dir });
      await state.unlock();
      expect(result.items.map((i) => [i.name, i.file, i.outcome])).toStrictEqual([['b', '', 'deleted']]);
    });
  });

  describe('the run', () => {
    test('results in plan order (items, then deletions), progress once per task as each ends, plan findings first', async () => {
      await run(`${A}---\n${B}---\nname: c\nuser_id: carol\n`);
      const progress: ApplyProgress[] = [];
      const text = `${A.replace('[gmail, slack]', '[gmail]')}---\nname: d\nuser_id: dave\n`;
      const result = await run(text, { onProgress: (p) => progress.push(p), concurrency: 1, prune: { roots: ['m'], cwd: w.dir } });
      expect(result.items.map((i) => [i.name, i.outcome])).toStrictEqual([
        ['a', 'updated'],
        ['d', 'created'],
        ['b', 'deleted'],
        ['c', 'deleted'],
      ]);
      expect(progress.map((p) => [p.done, p.total, p.item.name])).toStrictEqual([
        [1, 4, 'a'],
        [2, 4, 'd'],
        [3, 4, 'b'],
        [4, 4, 'c'],
      ]);
      expect(progress.map((p) => p.item)).toStrictEqual(result.items);
    });

    test.each([
      [undefined, 6, 4],
      [2, 6, 2],
      [1, 3, 1],
      [8, 3, 3],
      [0, 2, 1],
    ])('concurrency %s over %i creates: %i at once', async (concurrency, n, most) => {
      // Each worker writes its create's intent before its first wait, so the intents written when
      // the first create leaves are the workers that run at once.
      const intents: StateEntry[] = [];
      let atFirstCreate: number | undefined;
      let inFlight = 0;
      let peak = 0;
      const api: ApplyApi = {
        ...probing([]),
        createSession: async (body) => {
          atFirstCreate ??= intents.length;
          peak = Math.max(peak, ++inFlight);
          try {
            return await w.client.createSession(body);
          } finally {
            inFlight--;
          }
        },
      };
      const text = Array.from({ length: n }, (_, i) => `name: s${i}\nuser_id: u${i}\n`).join('---\n');
      const state = await w.open();
      const { buildPlan } = await import('../../../src/plan/plan.js');
      const recording = hooked(state, (e, record) => {
        if (e.pending_create?.status === 'in-flight') intents.push(e);
        return record(e);
      });
      const result = await applyPlan(buildPlan(w.docs(text), state), { api, state: recording, cwd: w.dir, now, ...(concurrency !== undefined ? { concurrency } : {}) });
      await state.unlock();
      expect(result.tally.created).toBe(n);
      expect(atFirstCreate).toBe(most);
      expect(peak).toBeLessThanOrEqual(most);
    });

    test('an empty plan does nothing', async () => {
      const result = await run('');
      expect(result).toStrictEqual({ items: [], diagnostics: [], tally: { created: 0, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 0 } });
    });

    test('an error that is not the service’s (a bug) is not swallowed', async () => {
      const api: ApplyApi = { ...probing([]), createSession: () => Promise.reject(new TypeError('boom')) };
      await expect(run(A, { api })).rejects.toThrow('boom');
      const u: ApplyApi = { ...probing([]), updateSession: () => Promise.reject(new TypeError('bang')) };
      await run(B);
      await expect(run(B.replace('[github]', '[jira]'), { api: u })).rejects.toThrow('bang');
      const d: ApplyApi = { ...probing([]), deleteSession: () => Promise.reject(new TypeError('pow')) };
      await expect(run(A, { api: d, prune: { roots: ['m'], cwd: w.dir } })).rejects.toThrow('pow');
    });

    test('an intent the state could not write: nothing sent for it, nothing started after it, the create in flight answered and recorded, and a result that says so', async () => {
      const state = await w.open();
      let failed!: () => void;
      const intentFailed = new Promise<void>((r) => (failed = r));
      const failing = hooked(state, async (e, record) => {
        if (e.user_id === 'u0' && e.pending_create?.status === 'in-flight') {
          failed();
          throw new Error('disk full');
        }
        return record(e);
      });
      const sent: string[] = [];
      const api: ApplyApi = {
        ...probing([]),
        createSession: async (b) => {
          sent.push(b.user_id);
          await intentFailed;
          return w.client.createSession(b);
        },
      };
      const yaml = ['s0', 's1', 's2'].map((n, i) => `name: ${n}\nuser_id: u${i}\n`).join('---\n');
      const { buildPlan } = await import('../../../src/plan/plan.js');
      // s0's intent fails at once; s1's create leaves after that failure.
      const plan = buildPlan(w.docs(yaml), state);
      const result = await applyPlan(plan, { api, state: failing, cwd: w.dir, now, concurrency: 2 });
      const atEnd = state.list().map((x) => [x.name, x.session_id !== '', x.pending_create?.status]);
      // Whatever a worker left running would send now.
      for (let i = 0; i < 3; i++) await w.live();
      await state.unlock();
      expect(result.items.map((i) => [i.name, i.outcome, i.diagnostics.map((d) => [d.code, d.message])])).toStrictEqual([
        ['s0', 'failed', [['state/write-failed', 's0: not created: the state could not record the create before it was sent, so nothing was sent: disk full']]],
        ['s1', 'created', []],
        ['s2', 'skipped', [['apply/interrupted', 's2: not applied: the run was interrupted (the state could not be written) before it started']]],
      ]);
      expect(result.tally).toStrictEqual({ created: 1, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 1, skipped: 1 });
      expect(atEnd).toStrictEqual([['s1', true, undefined]]);
      expect(sent).toStrictEqual(['u1']);
    });
  });
});

describe('tallyOf and formatTally', () => {
  const item = (outcome: AppliedItem['outcome'], drifted = false): AppliedItem => ({ name: 'x', file: '', user_id: 'u', action: 'create', outcome, drifted, drift: [], diagnostics: [], diff: '' });

  test('each outcome in its count; failed and outcome unknown are failures, skipped its own count (only when there are any); drifted also counts in its outcome', () => {
    const t = tallyOf([item('created'), item('created', true), item('updated'), item('replaced'), item('deleted'), item('unchanged', true), item('failed'), item('outcome-unknown'), item('skipped')]);
    expect(t).toStrictEqual({ created: 2, updated: 1, replaced: 1, deleted: 1, unchanged: 1, drifted: 2, failed: 2, skipped: 1 });
    expect(formatTally(t)).toBe('2 created, 1 updated, 1 replaced, 1 deleted, 1 unchanged, 2 drifted, 2 failed, 1 skipped');
    expect(formatTally(tallyOf([]))).toBe('0 created, 0 unchanged, 0 drifted, 0 failed');
  });
});
