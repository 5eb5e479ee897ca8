import { describe, expect, test } from 'vitest';
import { ApiError } from '../../../src/client/errors.js';
import { bodyHash, requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';
import { effectiveConfig, metaToolsFor } from '../../../src/emulator/effective.js';
import { parseManifestText } from '../../../src/manifest/load.js';
import { buildPlan } from '../../../src/plan/plan.js';
import { refreshPlan } from '../../../src/plan/refresh.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { Json } from '../../../src/wire/json.js';
import type { CreateSessionRequest } from '../../../src/wire/request.js';
import type { Session } from '../../../src/wire/session.js';

const V1 = 'name: a\nuser_id: bot\ntoolkits:\n  enable: [gmail, slack]\nworkbench:\n  enable: false\n';
const V2 = 'name: a\nuser_id: bot\ntoolkits:\n  enable: [gmail, slack, notion]\nworkbench:\n  enable: false\n';

function doc(text: string) {
  const parsed = parseManifestText(text, '/w/a.yaml', { env: {} });
  expect(parsed.diagnostics).toEqual([]);
  return parsed.documents;
}

/** The session the emulator answers for a body, with the config changed by `edit` (drift). */
function session(text: string, edit: (config: Record<string, unknown>) => void = () => undefined): Session {
  const body = requestBody(doc(text)[0]!.data as ManifestData) as CreateSessionRequest;
  const config = effectiveConfig(body) as unknown as Record<string, unknown>;
  edit(config);
  return { session_id: 'trs_a', mcp: { type: 'http', url: 'http://x/trs_a/mcp' }, tool_router_tools: metaToolsFor(config as never), config, config_version: 3 } as unknown as Session;
}

function recorded(text: string): StateEntry {
  const body = requestBody(doc(text)[0]!.data as ManifestData);
  return { name: 'a', user_id: 'bot', session_id: 'trs_a', mcp_url: 'http://x/trs_a/mcp', tool_router_tools: [], config_version: 1, body_hash: bodyHash(body), body: body as unknown as { [key: string]: Json }, applied_at: 't', file: 'a.yaml' };
}

const state = (e: StateEntry) => ({ hashAtLoad: 'h', get: () => e, list: () => [e] });

describe('refreshPlan', () => {
  test('a pending change is not drift: an update whose session holds what was applied before shows only the declared change', async () => {
    const plan = await refreshPlan(buildPlan(doc(V2), state(recorded(V1))), { getSession: async () => session(V1), concurrency: 1 });
    const [item] = plan.items;
    expect([item!.action, item!.reason]).toEqual(['update', 'config-changed']);
    expect(item!.changes.map((c) => [c.field, c.source])).toEqual([['toolkits.enable', 'manifest']]);
    expect(item!.live?.config_version).toBe(3);
  });

  test('drift behind the pending change is repaired too, shown as drift, in the same PATCH', async () => {
    const drifted = session(V1, (c) => ((c['workbench'] as Record<string, unknown>)['enable'] = true));
    const [item] = (await refreshPlan(buildPlan(doc(V2), state(recorded(V1))), { getSession: async () => drifted, concurrency: 1 })).items;
    expect(item!.changes.map((c) => [c.field, c.source, c.old ?? null, c.new ?? null])).toEqual([
      ['toolkits.enable', 'manifest', ['gmail', 'slack'], ['gmail', 'slack', 'notion']],
      ['workbench.enable', 'drift', true, false],
    ]);
    expect(item!.patch).toEqual({ toolkits: { enable: ['gmail', 'slack', 'notion'] }, workbench: { enable: false } });
  });

  test('a no-op whose session drifted becomes an update that repairs it, reason drifted; a list member is shown on its list', async () => {
    const drifted = session(V1, (c) => ((c['toolkits'] as { enabled: string[] }).enabled = ['gmail']));
    const [item] = (await refreshPlan(buildPlan(doc(V1), state(recorded(V1))), { getSession: async () => drifted, concurrency: 1 })).items;
    expect([item!.action, item!.reason]).toEqual(['update', 'drifted']);
    expect(item!.changes.map((c) => [c.field, c.source, c.members])).toEqual([['toolkits.enable', 'drift', { added: ['slack'], removed: [] }]]);
    expect(item!.changes[0]!.range?.start).toEqual({ line: 4, col: 19 });
    expect(item!.patch).toEqual({ toolkits: { enable: ['gmail', 'slack'] } });
  });

  test('a session that is gone is created again; a failed read makes a no-op unknown and says so', async () => {
    const gone = await refreshPlan(buildPlan(doc(V1), state(recorded(V1))), {
      getSession: async () => Promise.reject(new ApiError('not found', { kind: 'http', status: 404, method: 'GET', path: 'session' })),
      concurrency: 1,
    });
    expect(gone.items.map((i) => [i.action, i.reason])).toEqual([['create', 'session-missing']]);
    expect(gone.diagnostics.map((d) => [d.code, d.severity])).toEqual([['state/session-missing', 'warning']]);
    const failed = await refreshPlan(buildPlan(doc(V1), state(recorded(V1))), {
      getSession: async () => Promise.reject(new ApiError('boom', { kind: 'http', status: 500, method: 'GET', path: 'session' })),
      concurrency: 1,
    });
    expect(failed.items.map((i) => [i.action, i.reason])).toEqual([['unknown', 'unreadable']]);
    expect(failed.diagnostics.map((d) => [d.code, d.message])).toEqual([['state/refresh-failed', 'a: cannot read recorded session trs_a: boom (HTTP 500)']]);
  });

  test('a failed read leaves an update as planned: its PATCH carries the recorded version, whatever the read would have said', async () => {
    const update = buildPlan(doc(V2), state(recorded(V1)));
    const failed = await refreshPlan(update, { getSession: async () => Promise.reject(new ApiError('boom', { kind: 'http', status: 500, method: 'GET', path: 'session' })), concurrency: 1 });
    expect(failed.items).toStrictEqual(update.items);
    expect(failed.diagnostics.map((d) => d.code)).toEqual(['state/refresh-failed']);
  });
});
