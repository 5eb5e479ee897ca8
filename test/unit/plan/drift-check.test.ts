import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ApiError } from '../../../src/client/errors.js';
import { checkRecordedSessions, checkSession } from '../../../src/plan/drift-check.js';
import { world, type World } from '../apply/world.js';

/*
 * `diff`: declared manifests against the sessions the state records, read over HTTP from the
 * emulator in this process.
 */

const A = 'name: a\nuser_id: alice\nworkbench:\n  enable: false\n';
const B = 'name: b\nuser_id: bob\n';

let w: World;
beforeEach(async () => {
  w = await world();
});
afterEach(async () => {
  await w.close();
});

const idOf = async (name: string): Promise<string> => (await w.entries()).find((e) => e.name === name)!.session_id;

async function check(yaml: string, options: { strict?: boolean; mcp?: string[] } = {}) {
  const state = await w.open();
  try {
    return await checkRecordedSessions(w.docs(yaml), state, {
      getSession: (id) => w.client.getSession(id),
      ...(options.strict !== undefined ? { strict: options.strict } : {}),
      ...(options.mcp !== undefined ? { mcpTools: async () => options.mcp! } : {}),
    });
  } finally {
    await state.unlock();
  }
}

describe('checkRecordedSessions', () => {
  test('in sync, and not applied: one item each, in manifest order, with the finding and its hint', async () => {
    await w.apply(w.docs(A));
    const r = await check(`${A}---\n${B}`);
    expect(r.items.map((i) => [i.name, i.user_id, i.session_id, i.status, i.diff])).toStrictEqual([
      ['a', 'alice', await idOf('a'), 'in-sync', ''],
      ['b', 'bob', null, 'not-applied', ''],
    ]);
    expect(r.items[0]!.differences.every((d) => d.kind === 'defaulted')).toBe(true);
    expect(r.items[1]!.differences).toStrictEqual([]);
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.message, d.hint, d.range?.start])).toStrictEqual([
      ['state/not-applied', 'error', 'b: not applied: no session is recorded for user "bob"', 'run `sessionctl apply` for this manifest, or pass the state file it was applied with (--state)', { line: 6, col: 1 }],
    ]);
  });

  test('drifted: the differences, the findings at their keys and the diff; added only counts with strict', async () => {
    await w.apply(w.docs(A));
    await w.admin('POST', `sessions/${await idOf('a')}/config`, { config: { workbench: { enable: true } } });
    const r = await check(A);
    expect([r.items[0]!.status, r.diagnostics.map((d) => [d.code, d.range?.start])]).toStrictEqual(['drifted', [['drift/changed', { line: 4, col: 3 }]]]);
    expect(r.items[0]!.diff.startsWith(`--- a (declared)\n+++ ${await idOf('a')} (effective)\n`)).toBe(true);
    await w.admin('POST', `sessions/${await idOf('a')}/config`, { config: { workbench: { enable: false }, tags: { enabled: ['readOnlyHint'] } } });
    expect((await check(A)).items[0]!.status).toBe('in-sync');
    expect((await check(A, { strict: true })).items[0]!.status).toBe('drifted');
  });

  test('a session gone: missing, an error with the id and what to do', async () => {
    await w.apply(w.docs(A));
    const id = await idOf('a');
    await w.admin('DELETE', `sessions/${id}`);
    const r = await check(A);
    expect(r.items.map((i) => [i.status, i.session_id])).toStrictEqual([['missing', id]]);
    expect(r.diagnostics.map((d) => [d.code, d.severity, d.message, d.hint])).toStrictEqual([['state/session-missing', 'error', `a: session ${id} no longer exists (404)`, 'run `sessionctl apply` to create it again']]);
  });

  test('a GET that fails otherwise: unreadable, with the status', async () => {
    await w.apply(w.docs(A));
    await w.admin('POST', 'faults', { route: 'get', status: 400, times: 1 });
    const r = await check(A);
    expect(r.items.map((i) => i.status)).toStrictEqual(['unreadable']);
    expect(r.diagnostics[0]!.message).toMatch(new RegExp(`^a: cannot read session ${await idOf('a')}: .+ \\(HTTP 400\\)$`));
    expect(r.diagnostics[0]!.code).toBe('state/refresh-failed');
  });

  test('an error that is not the service’s is not swallowed', async () => {
    await w.apply(w.docs(A));
    const state = await w.open();
    await expect(checkRecordedSessions(w.docs(A), state, { getSession: () => Promise.reject(new TypeError('bug')) })).rejects.toThrow('bug');
    await expect(checkRecordedSessions(w.docs(A), state, { getSession: () => Promise.reject(new ApiError('reset', { kind: 'network', method: 'GET', path: 'x' })) })).resolves.toMatchObject({ items: [{ status: 'unreadable' }] });
    await state.unlock();
  });

  test('a create whose outcome is unknown: no GET of an empty id, the outcome-unknown finding instead of "no longer exists"', async () => {
    await w.admin('POST', 'faults', { route: 'create', reset: 'after', times: 1 });
    await w.apply(w.docs(A));
    const gets = await w.received('get');
    const r = await check(A);
    expect(await w.received('get')).toBe(gets);
    expect(r.items.map((i) => [i.status, i.session_id])).toStrictEqual([['not-applied', null]]);
    expect(r.diagnostics.map((d) => [d.code, d.severity])).toStrictEqual([['state/outcome-unknown', 'error']]);
    expect(r.diagnostics[0]!.hint).toContain('sessionctl import a trs_...');
  });

  test('--mcp: the tools listed over MCP are compared too', async () => {
    await w.apply(w.docs(A));
    const tools = (await w.client.getSession(await idOf('a'))).tool_router_tools;
    expect((await check(A, { mcp: tools })).items.map((i) => i.status)).toStrictEqual(['in-sync']);
    const r = await check(A, { mcp: [...tools, 'COMPOSIO_REMOTE_WORKBENCH'] });
    expect(r.items.map((i) => i.status)).toStrictEqual(['drifted']);
    expect(r.items[0]!.differences.filter((d) => d.kind !== 'defaulted').map((d) => [d.kind, d.path, d.member])).toStrictEqual([['changed', '/tool_router_tools', 'COMPOSIO_REMOTE_WORKBENCH']]);
    expect(r.diagnostics.map((d) => d.message)).toStrictEqual(['a: over MCP the session exposes meta tool COMPOSIO_REMOTE_WORKBENCH']);
  });
});

describe('checkSession', () => {
  test('one manifest against any session, by id', async () => {
    const session = await w.client.createSession({ user_id: 'alice', workbench: { enable: true } });
    const r = await checkSession(w.docs(A)[0]!, session.session_id, { getSession: (id) => w.client.getSession(id) });
    expect(r.items.map((i) => [i.name, i.user_id, i.session_id, i.status])).toStrictEqual([['a', 'alice', session.session_id, 'drifted']]);
    expect(r.diagnostics.map((d) => d.code)).toStrictEqual(['drift/changed', 'drift/changed', 'drift/changed']);
  });
});
