import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ApiError } from '../../../src/client/errors.js';
import type { DriftItem } from '../../../src/config/drift.js';
import type { Plan } from '../../../src/plan/plan.js';
import { driftChange, refreshPlan, type RefreshOptions } from '../../../src/plan/refresh.js';
import { RateLimiter } from '../../../src/util/throttle.js';
import { world, type World } from '../apply/world.js';

/*
 * plan's refresh against the emulator in this process: recorded sessions are read over HTTP, a
 * session gone is planned for a create, a drifted one for a repair in place, and a GET that fails
 * leaves the item with a finding.
 */

const A = 'name: a\nuser_id: alice\ntoolkits:\n  enable: [gmail, slack]\nworkbench:\n  enable: false\n';
const B = 'name: b\nuser_id: bob\ntoolkits: [github]\n';

let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(async () => {
  await w.close();
});

/** Applies the manifests, then plans them again (as written now) and refreshes that plan. */
async function refreshed(applied: string, now: string = applied, options: Partial<RefreshOptions> = {}): Promise<{ before: Plan; after: Plan; gets: string[] }> {
  await w.apply(w.docs(applied));
  const before = await w.plan(w.docs(now));
  const gets: string[] = [];
  const after = await refreshPlan(before, {
    getSession: (id) => {
      gets.push(id);
      return w.client.getSession(id);
    },
    concurrency: 2,
    ...options,
  });
  return { before, after, gets };
}

const idOf = async (name: string): Promise<string> => (await w.entries()).find((e) => e.name === name)!.session_id;

describe('refreshPlan', () => {
  test('an in-sync session: the item as planned, with the live session; one GET per recorded session', async () => {
    const { before, after, gets } = await refreshed(`${A}---\n${B}`);
    expect(gets).toStrictEqual([await idOf('a'), await idOf('b')]);
    expect(after.items.map((i) => [i.name, i.action, i.reason, i.changes, i.patch, i.live?.session_id, i.live?.config_version])).toStrictEqual([
      ['a', 'no-op', 'up-to-date', [], undefined, await idOf('a'), 1],
      ['b', 'no-op', 'up-to-date', [], undefined, await idOf('b'), 1],
    ]);
    expect(after.diagnostics).toStrictEqual([]);
    expect({ ...after, items: after.items.map(({ live: _live, ...rest }) => rest) }).toStrictEqual(before);
  });

  test('creates, blocked items and intents are not read', async () => {
    await w.apply(w.docs(A));
    const state = await w.open();
    await state.record({ ...state.get('a', 'alice')!, pending_create: { since: 't', body_hash: 'h', status: 'unknown' } });
    await state.unlock();
    const plan = await w.plan(w.docs(`${A}---\n${B}`));
    expect(plan.items.map((i) => [i.name, i.action, i.blocked])).toStrictEqual([
      ['a', 'update', true],
      ['b', 'create', false],
    ]);
    const gets: string[] = [];
    const after = await refreshPlan(plan, { getSession: async (id) => (gets.push(id), w.client.getSession(id)), concurrency: 1 });
    expect(gets).toStrictEqual([]);
    expect(after.items).toStrictEqual(plan.items);
    expect(after.diagnostics.map((d) => d.code)).toStrictEqual(['state/outcome-unknown']);
  });

  test('a session that answers 404: planned for a create again, with a warning at the name; a replace forgets what it replaced', async () => {
    const tool = (d: string): string => `${A}experimental:\n  custom_tools:\n    - slug: LOCAL_X\n      name: X\n      description: ${d}\n      input_schema: { type: object }\n`;
    await w.apply(w.docs(`${tool('old')}---\n${B}`));
    const [a, b] = [await idOf('a'), await idOf('b')];
    await w.admin('DELETE', `sessions/${a}`);
    await w.admin('DELETE', `sessions/${b}`);
    const plan = await w.plan(w.docs(`${tool('new')}---\n${B}`));
    expect(plan.items.map((i) => [i.action, i.replaces?.session_id])).toStrictEqual([
      ['replace', a],
      ['no-op', undefined],
    ]);
    const after = await refreshPlan(plan, { getSession: (id) => w.client.getSession(id), concurrency: 1 });
    expect(after.items.map((i) => [i.name, i.action, i.reason, i.changes, 'replaces' in i, 'patch' in i, i.live])).toStrictEqual([
      ['a', 'create', 'session-missing', [], false, false, undefined],
      ['b', 'create', 'session-missing', [], false, false, undefined],
    ]);
    expect(after.items[0]!.recorded?.session_id).toBe(a);
    expect(after.diagnostics.map((d) => [d.code, d.severity, d.pointer, d.range?.start, d.message])).toStrictEqual([
      ['state/session-missing', 'warning', '/name', { line: 1, col: 1 }, `a: recorded session ${a} no longer exists (404); it will be created again`],
      ['state/session-missing', 'warning', '/name', { line: 14, col: 1 }, `b: recorded session ${b} no longer exists (404); it will be created again`],
    ]);
  });

  test('a GET that fails otherwise: the no-op is unknown, and an error names the session, the failure and its status', async () => {
    await w.apply(w.docs(A));
    await w.admin('POST', 'faults', { route: 'get', status: 400, times: 1 });
    const plan = await w.plan(w.docs(A));
    const after = await refreshPlan(plan, { getSession: (id) => w.client.getSession(id), concurrency: 1 });
    expect(after.items).toStrictEqual(plan.items.map((i) => ({ ...i, action: 'unknown', reason: 'unreadable' })));
    const [d] = after.diagnostics;
    expect([after.diagnostics.length, d!.code, d!.severity, d!.pointer]).toStrictEqual([1, 'state/refresh-failed', 'error', '/name']);
    expect(d!.message).toMatch(new RegExp(`^a: cannot read recorded session ${await idOf('a')}: .+ \\(HTTP 400\\)$`));
  });

  test.each<[string, unknown, string]>([
    ['a client error without a status', new ApiError('the connection was reset', { kind: 'network', method: 'GET', path: '/x' }), 'the connection was reset'],
    ['an Error', new Error('socket hang up'), 'socket hang up'],
    ['something else thrown', 'no answer', 'no answer'],
  ])('%s is described as it is', async (_what, thrown, described) => {
    await w.apply(w.docs(A));
    const plan = await w.plan(w.docs(A));
    const after = await refreshPlan(plan, {
      getSession: () => Promise.reject(thrown),
      concurrency: 1,
    });
    expect(after.diagnostics.map((d) => d.message)).toStrictEqual([`a: cannot read recorded session ${await idOf('a')}: ${described}`]);
  });

  test('drift: an update that repairs exactly the drifted keys, the drifted fields as changes at their lines', async () => {
    await w.apply(w.docs(A));
    const id = await idOf('a');
    await w.admin('POST', `sessions/${id}/config`, { config: { toolkits: { enabled: ['gmail', 'notion'] }, workbench: { enable: true } } });
    const plan = await w.plan(w.docs(A));
    const after = await refreshPlan(plan, { getSession: (x) => w.client.getSession(x), concurrency: 1 });
    const [item] = after.items;
    expect([item!.action, item!.reason, item!.live?.config_version]).toStrictEqual(['update', 'drifted', 2]);
    expect(item!.patch).toStrictEqual({ toolkits: { enable: ['gmail', 'slack'] }, workbench: { enable: false } });
    expect(item!.changes.map((c) => [c.field, c.pointer, c.op, c.old ?? null, c.new ?? null, c.members ?? null, c.source, c.range?.start])).toStrictEqual([
      ['toolkits.enable', '/toolkits/enable/1', 'change', null, null, { added: ['slack'], removed: [] }, 'drift', { line: 4, col: 19 }],
      ['toolkits.enable', '/toolkits/enable', 'change', null, null, { added: [], removed: ['notion'] }, 'drift', { line: 4, col: 3 }],
      ['workbench.enable', '/workbench/enable', 'change', true, false, null, 'drift', { line: 6, col: 3 }],
    ]);
    // The meta tools follow the workbench: not a key of their own to send.
    expect(after.diagnostics).toStrictEqual([]);
  });

  test('drift next to a declared change: the declared PATCH wins where both touch a key, the reason stays config-changed', async () => {
    await w.apply(w.docs(A));
    await w.admin('POST', `sessions/${await idOf('a')}/config`, { config: { toolkits: { enabled: ['jira'] }, workbench: { enable: true } } });
    const edited = A.replace('[gmail, slack]', '[gmail]');
    const plan = await w.plan(w.docs(edited));
    expect(plan.items[0]!.patch).toStrictEqual({ toolkits: { enable: ['gmail'] } });
    const after = await refreshPlan(plan, { getSession: (x) => w.client.getSession(x), concurrency: 1 });
    const [item] = after.items;
    expect([item!.action, item!.reason]).toStrictEqual(['update', 'config-changed']);
    expect(item!.patch).toStrictEqual({ toolkits: { enable: ['gmail'] }, workbench: { enable: false } });
    expect(item!.changes.map((c) => [c.field, c.source])).toStrictEqual([
      ['toolkits.enable', 'manifest'],
      ['toolkits.enable', 'drift'],
      ['toolkits.enable', 'drift'],
      ['workbench.enable', 'drift'],
    ]);
  });

  test('a declared value the service no longer holds (dropped) is drift: sent again as declared', async () => {
    const tagged = `${A}tags: [readOnlyHint]\n`;
    await w.apply(w.docs(tagged));
    await w.admin('POST', `sessions/${await idOf('a')}/config`, { config: { tags: null } });
    const [item] = (await refreshPlan(await w.plan(w.docs(tagged)), { getSession: (x) => w.client.getSession(x), concurrency: 1 })).items;
    expect([item!.action, item!.reason, item!.patch]).toStrictEqual(['update', 'drifted', { tags: ['readOnlyHint'] }]);
    expect(item!.changes.map((c) => [c.field, c.op, c.source])).toStrictEqual([['tags', 'add', 'drift']]);
  });

  test('a meta tool that drifted on its own (its key did not) is a change of its own, repaired by sending the key that decides it', async () => {
    await w.apply(w.docs(A));
    const id = await idOf('a');
    const tools = (await w.client.getSession(id)).tool_router_tools;
    await w.admin('POST', `sessions/${id}/config`, { tool_router_tools: [...tools, 'COMPOSIO_REMOTE_WORKBENCH'] });
    const [item] = (await refreshPlan(await w.plan(w.docs(A)), { getSession: (x) => w.client.getSession(x), concurrency: 1 })).items;
    expect([item!.action, item!.reason, item!.patch]).toStrictEqual(['update', 'drifted', { workbench: { enable: false } }]);
    expect(item!.changes.map((c) => [c.field, c.pointer, c.members, c.source])).toStrictEqual([['tool_router_tools', '/workbench/enable', { added: [], removed: ['COMPOSIO_REMOTE_WORKBENCH'] }, 'drift']]);
  });

  test('an update of an entry without a recorded body (adopted by import, or state version 1): drift is measured against the declared config', async () => {
    await w.apply(w.docs(A));
    const state = await w.open();
    await state.record({ ...state.get('a', 'alice')!, body: null, body_hash: 'imported' });
    await state.unlock();
    await w.admin('POST', `sessions/${await idOf('a')}/config`, { config: { workbench: { enable: true } } });
    const plan = await w.plan(w.docs(A));
    expect([plan.items[0]!.action, plan.items[0]!.changes]).toStrictEqual(['update', []]);
    const [item] = (await refreshPlan(plan, { getSession: (x) => w.client.getSession(x), concurrency: 1 })).items;
    expect([item!.action, item!.reason]).toStrictEqual(['update', 'config-changed']);
    expect(item!.changes.map((c) => [c.field, c.source, c.old, c.new])).toStrictEqual([['workbench.enable', 'drift', true, false]]);
    expect(item!.patch).toStrictEqual(plan.items[0]!.patch);
  });

  test('an undeclared key added behind the manifest is drift to repair only with strict; it is then sent as null', async () => {
    await w.apply(w.docs(A));
    await w.admin('POST', `sessions/${await idOf('a')}/config`, { config: { tags: { enabled: ['readOnlyHint'] } } });
    const plan = await w.plan(w.docs(A));
    const lax = await refreshPlan(plan, { getSession: (x) => w.client.getSession(x), concurrency: 1 });
    expect(lax.items.map((i) => [i.action, i.patch])).toStrictEqual([['no-op', undefined]]);
    const strict = await refreshPlan(plan, { getSession: (x) => w.client.getSession(x), concurrency: 1, strict: true });
    expect(strict.items.map((i) => [i.action, i.reason, i.patch])).toStrictEqual([['update', 'drifted', { tags: null }]]);
    expect(strict.items[0]!.changes.map((c) => [c.field, c.pointer, c.op, c.old, c.range?.start])).toStrictEqual([['tags', '', 'remove', { enabled: ['readOnlyHint'] }, { line: 1, col: 1 }]]);
  });

  test('a replace is not repaired (its new session is made from the manifest anyway), but keeps what it read', async () => {
    await w.apply(w.docs(A));
    await w.admin('POST', `sessions/${await idOf('a')}/config`, { config: { workbench: { enable: true } } });
    const plan = await w.plan(w.docs(A.replace('user_id: alice', 'user_id: alice-2')));
    expect(plan.items.map((i) => i.action)).toStrictEqual(['replace']);
    const after = await refreshPlan(plan, { getSession: (x) => w.client.getSession(x), concurrency: 1 });
    // The replace's own entry (alice-2) records nothing yet: nothing to read.
    expect(after.items).toStrictEqual(plan.items);
  });

  test('a replace of changed custom tools reads the old session and leaves the plan as it was', async () => {
    const tool = (d: string): string => `${A}experimental:\n  custom_tools:\n    - slug: LOCAL_X\n      name: X\n      description: ${d}\n      input_schema: { type: object }\n`;
    await w.apply(w.docs(tool('old')));
    await w.admin('POST', `sessions/${await idOf('a')}/config`, { config: { workbench: { enable: true } } });
    const plan = await w.plan(w.docs(tool('new')));
    const after = await refreshPlan(plan, { getSession: (x) => w.client.getSession(x), concurrency: 1 });
    expect(after.items.map((i) => [i.action, i.reason, i.patch, i.live?.session_id])).toStrictEqual([['replace', 'custom-tools-changed', undefined, await idOf('a')]]);
    expect(after.items[0]!.changes).toStrictEqual(plan.items[0]!.changes);
  });

  test('the rate limiter spaces out every GET', async () => {
    const sleeps: number[] = [];
    const limiter = new RateLimiter(60, { now: () => 0, sleep: async (ms) => void sleeps.push(ms) });
    await refreshed(`${A}---\n${B}`, undefined, { limiter, concurrency: 1 });
    expect(sleeps.length).toBe(1);
    expect(sleeps[0]).toBeGreaterThan(1000);
  });
});

describe('driftChange: a drift item as a change from live to declared', () => {
  const item = (d: Partial<DriftItem>): DriftItem => ({ kind: 'changed', path: '/config/workbench/enable', pointer: '/workbench/enable', ...d });

  test.each<[string, DriftItem, object]>([
    ['a changed value', item({ expected: false, actual: true }), { field: 'workbench.enable', pointer: '/workbench/enable', source: 'drift', op: 'change', old: true, new: false }],
    ['a changed value the service dropped to nothing', item({ expected: false }), { field: 'workbench.enable', pointer: '/workbench/enable', source: 'drift', op: 'change', old: null, new: false }],
    ['a changed value, declared true', item({ expected: true, actual: false }), { field: 'workbench.enable', pointer: '/workbench/enable', source: 'drift', op: 'change', old: false, new: true }],
    ['a value under a list index, not a member: its field keeps the index', item({ path: '/config/x/0', pointer: '/x/0', expected: 1, actual: 2 }), { field: 'x.0', pointer: '/x/0', source: 'drift', op: 'change', old: 2, new: 1 }],
    ['a dropped value', item({ kind: 'dropped', expected: ['x'] }), { field: 'workbench.enable', pointer: '/workbench/enable', source: 'drift', op: 'add', new: ['x'] }],
    ['a dropped value without one', item({ kind: 'dropped' }), { field: 'workbench.enable', pointer: '/workbench/enable', source: 'drift', op: 'add', new: null }],
    ['an added value', item({ kind: 'added', pointer: '', path: '/config/tags', actual: { enabled: ['a'] } }), { field: 'tags', pointer: '', source: 'drift', op: 'remove', old: { enabled: ['a'] } }],
    ['an added value without one', item({ kind: 'added', pointer: '', path: '/config/tags/enabled' }), { field: 'tags.enabled', pointer: '', source: 'drift', op: 'remove', old: null }],
    ['a member the service holds and the manifest does not', item({ path: '/config/toolkits/enabled', pointer: '/toolkits/enable', actual: ['a', 'b'], member: 'b' }), { field: 'toolkits.enable', pointer: '/toolkits/enable', source: 'drift', op: 'change', members: { added: [], removed: ['b'] } }],
    ['a member the manifest declares and the service lost: the field is the list, shown at the member', item({ path: '/config/toolkits/enabled', pointer: '/toolkits/enable/1', actual: ['a'], member: 'b' }), { field: 'toolkits.enable', pointer: '/toolkits/enable/1', source: 'drift', op: 'change', members: { added: ['b'], removed: [] } }],
    ['a member past the tenth, in a list under an index: only the member index goes', item({ path: '/config/x', pointer: '/x/0/list/12', actual: [], member: 'm' }), { field: 'x.0.list', pointer: '/x/0/list/12', source: 'drift', op: 'change', members: { added: ['m'], removed: [] } }],
    ['a member of a list the service does not hold', item({ path: '/config/tags/enabled', pointer: '/tags/0', actual: 'x', member: 'x' }), { field: 'tags', pointer: '/tags/0', source: 'drift', op: 'change', members: { added: ['x'], removed: [] } }],
    ['an object member, compared as JSON', item({ path: '/config/x', pointer: '/x', actual: [{ a: 1 }], member: { a: 1 } }), { field: 'x', pointer: '/x', source: 'drift', op: 'change', members: { added: [], removed: [{ a: 1 }] } }],
    ['a meta tool', item({ kind: 'changed', path: '/tool_router_tools', pointer: '/workbench/enable', actual: ['T'], member: 'COMPOSIO_REMOTE_WORKBENCH' }), { field: 'tool_router_tools', pointer: '/workbench/enable', source: 'drift', op: 'change', members: { added: ['COMPOSIO_REMOTE_WORKBENCH'], removed: [] } }],
  ])('%s', (_what, d, change) => {
    expect(driftChange(d)).toStrictEqual(change);
  });
});
