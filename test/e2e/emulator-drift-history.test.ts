/**
 * Issue 29, item 10: drift injected through the emulator's admin surface keeps every config
 * version in the session's config_history, as a PATCH does: the version it replaces is archived.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call } from '../conformance/emulator-http.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';

const KEY = 'drift-history-key-0123';
const S31 = '/api/v3.1/tool_router/session';
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0 });
});
afterAll(() => emu.close());

async function create(): Promise<string> {
  const r = await call(emu.url, 'POST', S31, { key: KEY, body: { user_id: 'd1', tags: ['readOnlyHint'] } });
  expect(r.status, r.text).toBe(201);
  return r.json.session_id as string;
}
const patch = async (id: string, body: unknown) => expect((await call(emu.url, 'PATCH', `${S31}/${id}`, { key: KEY, body })).status).toBe(200);
const drift = (id: string, body: unknown) => emulatorAdmin(emu.url, 'POST', `/sessions/${id}/config`, body);
async function history(id: string): Promise<Array<[number, boolean, unknown]>> {
  const h = await call(emu.url, 'GET', `${S31}/${id}/config_history`, { key: KEY });
  expect(h.status).toBe(200);
  return h.json.items.map((i: any) => [i.version, i.is_current, i.config.tags]);
}

describe('drift injection keeps every history version', () => {
  it('a drift between two PATCHes: versions 1 to 4, each with its config', async () => {
    const id = await create();
    await patch(id, { tags: ['destructiveHint'] });
    await drift(id, { config: { tags: { enabled: ['idempotentHint'] } } });
    await patch(id, { tags: null });
    expect(await history(id)).toEqual([
      [4, true, undefined],
      [3, false, { enabled: ['idempotentHint'] }],
      [2, false, { enabled: ['destructiveHint'] }],
      [1, false, { enabled: ['readOnlyHint'] }],
    ]);
  });

  it('two drifts in a row', async () => {
    const id = await create();
    await drift(id, { config: { tags: { enabled: ['openWorldHint'] } } });
    await drift(id, { config: { tags: { enabled: ['idempotentHint'] } } });
    expect((await history(id)).map(([v, current]) => [v, current])).toEqual([
      [3, true],
      [2, false],
      [1, false],
    ]);
  });

  it('a drift of the tools alone is a version too', async () => {
    const id = await create();
    await drift(id, { tool_router_tools: ['COMPOSIO_SEARCH_TOOLS'] });
    expect((await history(id)).map(([v]) => v)).toEqual([2, 1]);
  });

  it('a drift that jumps the version keeps the one it replaced', async () => {
    const id = await create();
    await drift(id, { config: { tags: { enabled: ['openWorldHint'] } }, config_version: 7 });
    expect(await history(id)).toEqual([
      [7, true, { enabled: ['openWorldHint'] }],
      [1, false, { enabled: ['readOnlyHint'] }],
    ]);
  });

  it('a drift that keeps the version (config_version: the current one) adds none', async () => {
    const id = await create();
    await drift(id, { config: { tags: { enabled: ['openWorldHint'] } }, config_version: 1 });
    expect(await history(id)).toEqual([[1, true, { enabled: ['openWorldHint'] }]]);
  });

  it('a paged read counts every version', async () => {
    const id = await create();
    await drift(id, { config: { tags: { enabled: ['openWorldHint'] } } });
    await patch(id, { tags: ['destructiveHint'] });
    const listed = await call(emu.url, 'GET', `${S31}/${id}/config_history?limit=1`, { key: KEY });
    expect(listed.json.total_items).toBe(3);
  });
});
