import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createClient, type SessionClient } from '../../../src/client/client.js';
import { requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { parseManifestText } from '../../../src/manifest/parse.js';
import { planPublication } from '../../../src/plan/publications.js';
import { repairStep } from '../../../src/rollout/repair.js';
import { stepContext } from '../../../src/rollout/rollout.js';
import type { RolloutOptions } from '../../../src/rollout/run.js';
import type { FleetSession } from '../../../src/state/fleet.js';
import type { Json } from '../../../src/wire/json.js';
import { emulatorAdmin } from '../../helpers/emulator-admin.js';

const MANIFEST = 'name: agent\nuser_id: <end-user>\ntoolkits: [gmail, github]\nworkbench: { enable: false }\n';
const doc = parseManifestText(MANIFEST, '/w/agent.yaml', {}).documents[0]!;
const plan = planPublication(doc, {}, '3');
const values = requestBody(doc.data as ManifestData) as unknown as { [key: string]: Json };

describe('repairStep: one session of a per-user manifest PATCHed back to it', () => {
  let emulator: RunningEmulator;
  let api: SessionClient;
  beforeEach(async () => {
    emulator = await startEmulator({ port: 0 });
    api = createClient({ baseUrl: emulator.url, apiKey: 'repair-unit-key-0001', retries: { maxRetries: 0 } });
  });
  afterEach(async () => {
    await api.close();
    await emulator.close();
  });

  const sessionOf = async (user: string): Promise<FleetSession> => {
    const s = await api.createSession({ ...values, user_id: user } as never);
    return { name: 'agent', user_id: user, session_id: s.session_id, mcp_url: s.mcp.url, tool_router_tools: s.tool_router_tools, config_version: 1, version: 1, body_hash: plan.body_hash, created_at: null };
  };
  const drift = (id: string) => emulatorAdmin(emulator.url, 'POST', `/sessions/${id}/config`, { config: { workbench: { enable: true } } });
  const step = (a: Pick<SessionClient, 'getSession' | 'updateSession'> = api) => ({ run: repairStep(values, '3'), ctx: stepContext(plan, { api: a, strict: false, concurrency: 1 } as unknown as RolloutOptions, () => undefined) });

  test('a session in sync is left alone; one behind is the rollout\'s; one gone is named missing', async () => {
    const row = await sessionOf('alice');
    const { run, ctx } = step();
    expect((await run(row, ctx)).kind).toBe('in-sync');
    expect((await run({ ...row, version: 0 }, ctx)).kind).toBe('skipped');
    await emulatorAdmin(emulator.url, 'DELETE', `/sessions/${row.session_id}`);
    const gone = await run(row, ctx);
    expect(gone.kind === 'failed' && gone.failure.kind).toBe('missing');
  });

  test('a drifted session gets a PATCH of the drifted key; another writer\'s change in between (409) is read again, then repaired', async () => {
    const row = await sessionOf('bob');
    await drift(row.session_id);
    let moved = false;
    // Another writer PATCHes the session after the repair read it: the guarded PATCH meets a 409.
    const racing: Pick<SessionClient, 'getSession' | 'updateSession'> = {
      getSession: (id) => api.getSession(id),
      updateSession: async (id, body) => {
        if (!moved) {
          moved = true;
          await emulatorAdmin(emulator.url, 'POST', `/sessions/${id}/config`, { config: { workbench: { enable: true } } });
        }
        return api.updateSession(id, body);
      },
    };
    const { run, ctx } = step(racing);
    const out = await run(row, ctx);
    expect(out.kind).toBe('patched');
    const live = await emulatorAdmin(emulator.url, 'GET', `/sessions/${row.session_id}`);
    expect([live.config.workbench.enable, live.config_version]).toStrictEqual([false, 4]);
    expect(out.kind === 'patched' && out.row.config_version).toBe(4);
  });
});
