import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createClient, type SessionClient } from '../../../src/client/client.js';
import { KeyRefusedError } from '../../../src/client/errors.js';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { parseManifestText } from '../../../src/manifest/load.js';
import { expectedFor } from '../../../src/rollout/request.js';
import { rollSession, type SessionStepContext } from '../../../src/rollout/session-step.js';
import type { FleetSession } from '../../../src/state/fleet.js';
import { emulatorAdmin } from '../../helpers/emulator-admin.js';
import type { RateLimiter } from '../../../src/util/throttle.js';

/** One session rolled out against the emulator over loopback: each answer the service can give. */

const TEXT = 'name: agent\nuser_id: <end-user>\ntoolkits: [gmail, github]\ntools:\n  github: { disable: [GITHUB_ADD_LABELS_TO_AN_ISSUE] }\n';
const PATCH = { tools: { github: { disable: ['GITHUB_ADD_LABELS_TO_AN_ISSUE'] } } };

let emulator: RunningEmulator;
let api: SessionClient;
let row: FleetSession;

function ctx(overrides: Partial<SessionStepContext> = {}): SessionStepContext {
  const doc = parseManifestText(TEXT, '/w/agent.yaml', { env: {} }).documents[0]!;
  return { api, doc, expected: expectedFor({ doc }), strict: false, version: 2, bodyHash: 'h2', patchFor: () => PATCH, filledByApplication: new Set(), ...overrides };
}
const stats = async (route: string) => ((await emulatorAdmin(emulator.url, 'GET', '/stats')) as { routes: Record<string, { received: number; handled: number } | undefined> }).routes[route] ?? { received: 0, handled: 0 };

beforeEach(async () => {
  emulator = await startEmulator({ port: 0 });
  api = createClient({ baseUrl: emulator.url, apiKey: 'k', retries: { maxRetries: 0 } });
  const s = await api.createSession({ user_id: 'u1', toolkits: { enable: ['gmail', 'github'] } });
  row = { name: 'agent', user_id: 'u1', session_id: s.session_id, mcp_url: s.mcp.url, tool_router_tools: [], config_version: 1, version: 1, body_hash: 'h1', created_at: 't' };
});
afterEach(async () => {
  await api.close();
  await emulator.close();
});

describe('rollSession', () => {
  test('a PATCH guarded by the row\'s config version; the row as answered, on the new version', async () => {
    const out = await rollSession(row, ctx());
    expect(out.kind === 'patched' ? [out.row.version, out.row.body_hash, out.row.config_version, out.row.session_id] : out).toStrictEqual([2, 'h2', 2, row.session_id]);
    expect(await stats('update')).toStrictEqual({ received: 1, handled: 1 });
  });

  test('a 409 whose session is on the new config already (an earlier run\'s PATCH, its record lost): recorded, not patched again', async () => {
    await api.updateSession(row.session_id, PATCH);
    const [updates, reads] = [(await stats('update')).handled, (await stats('get')).handled];
    const out = await rollSession(row, ctx());
    expect([out.kind, out.kind === 'already' ? out.row.config_version : null]).toStrictEqual(['already', 2]);
    expect([(await stats('update')).handled - updates, (await stats('get')).handled - reads]).toStrictEqual([0, 1]);
  });

  test('a 409 whose session another writer moved elsewhere: read, then patched at the version read', async () => {
    await api.updateSession(row.session_id, { tools: { gmail: { disable: ['GMAIL_SEND_EMAIL'] } } });
    const out = await rollSession(row, ctx());
    expect([out.kind, out.kind === 'patched' ? out.row.config_version : null]).toStrictEqual(['patched', 3]);
  });

  test('a session that keeps moving: a conflict after the second try, nothing overwritten', async () => {
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 409, times: 2 });
    expect(await rollSession(row, ctx())).toStrictEqual({
      kind: 'failed',
      failure: { user_id: 'u1', session_id: row.session_id, kind: 'conflict', message: 'another writer changed the session again while it was rolled out; a re-run reads it again' },
    });
  });

  test('refusals and lost answers are failures of their own kind; a refused key stops everything', async () => {
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 400 });
    expect((await rollSession(row, ctx())) as unknown).toMatchObject({ kind: 'failed', failure: { kind: 'patch-refused', session_id: row.session_id } });
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 500 });
    expect((await rollSession(row, ctx())) as unknown).toMatchObject({ kind: 'failed', failure: { kind: 'outcome-unknown' } });
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 404 });
    expect((await rollSession(row, ctx())) as unknown).toMatchObject({ kind: 'failed', failure: { kind: 'missing' } });
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 401 });
    await expect(rollSession(row, ctx())).rejects.toBeInstanceOf(KeyRefusedError);
  });

  test('an answer with another config than the manifest\'s is not recorded; a field the application fills is not compared', async () => {
    const declared = `${TEXT}manage_connections: { callback_url: "https://a.example/cb" }\n`;
    const doc = parseManifestText(declared, '/w/agent.yaml', { env: {} }).documents[0]!;
    const patch = { ...PATCH, manage_connections: { callback_url: 'https://b.example/cb' } };
    const other = ctx({ doc, expected: expectedFor({ doc }), patchFor: () => patch });
    expect((await rollSession(row, other)) as unknown).toMatchObject({ kind: 'failed', failure: { kind: 'drifted', fields: ['manage_connections.callback_url'] } });
    const fresh = { ...row, config_version: 2 };
    const filled = ctx({ doc, expected: expectedFor({ doc }), patchFor: () => patch, filledByApplication: new Set(['/manage_connections/callback_url']) });
    expect((await rollSession(fresh, filled)).kind).toBe('patched');
  });

  test('each session gets its group\'s PATCH (an unknown version is 0); a row without a config version is PATCHed without a guard', async () => {
    const asked: number[] = [];
    const unguarded = { ...row, version: null, config_version: null };
    const out = await rollSession(unguarded, ctx({ patchFor: (from) => (asked.push(from), PATCH) }));
    expect([asked, out.kind === 'patched' ? [out.row.config_version, out.row.tool_router_tools.length > 0, out.row.mcp_url] : out]).toStrictEqual([[0], [2, true, row.mcp_url]]);
  });

  test('the read a 409 made is counted against the rate limit; the failures say what happened, in full', async () => {
    let acquired = 0;
    const limiter = { acquire: async () => void acquired++ } as unknown as RateLimiter;
    await api.updateSession(row.session_id, PATCH);
    expect((await rollSession(row, ctx({ limiter }))).kind).toBe('already');
    expect(acquired).toBe(2);
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 404 });
    expect(await rollSession({ ...row, config_version: 2 }, ctx())).toStrictEqual({
      kind: 'failed',
      failure: { user_id: 'u1', session_id: row.session_id, kind: 'missing', message: 'the session no longer exists at the service (404): its user gets it from ensure until the row is removed (`sessionctl state rm NAME --user-id USER`)' },
    });
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 502 });
    const lost = await rollSession({ ...row, config_version: 2 }, ctx());
    expect(lost.kind === 'failed' ? [lost.failure.kind, lost.failure.message.endsWith('; a re-run reads the session and finishes it'), 'fields' in lost.failure] : lost).toStrictEqual(['outcome-unknown', true, false]);
  });

  test('strict: a field the manifest does not declare counts; anything but the service\'s answer is thrown, not counted', async () => {
    await api.updateSession(row.session_id, { ...PATCH, tags: { disable: ['destructiveHint'] } });
    const fresh = { ...row, config_version: 2 };
    expect(await rollSession(fresh, ctx({ strict: true }))).toMatchObject({ kind: 'failed', failure: { kind: 'drifted', fields: ['tags'] } });
    expect((await rollSession({ ...fresh, config_version: 3 }, ctx())).kind).toBe('patched');
    const broken = { ...api, updateSession: async () => { throw new TypeError('a bug'); } } as SessionClient;
    await expect(rollSession(fresh, ctx({ api: broken }))).rejects.toThrow(new TypeError('a bug'));
  });

  test('a 429 or a 503 with Retry-After (not taken) is waited out and the PATCH sent again; a 503 without one is a lost answer', async () => {
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 429, retry_after: 1, times: 1 });
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 503, retry_after: 1, times: 1 });
    const started = Date.now();
    const out = await rollSession(row, ctx());
    expect([out.kind, Date.now() - started >= 1_900, await stats('update')]).toStrictEqual(['patched', true, { received: 3, handled: 1 }]);
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 503 });
    expect((await rollSession({ ...row, config_version: 2 }, ctx())) as unknown).toMatchObject({ kind: 'failed', failure: { kind: 'outcome-unknown' } });
  }, 20_000);

  test('a group whose change PATCH cannot carry is not sent', async () => {
    expect((await rollSession(row, ctx({ patchFor: () => undefined }))).kind).toBe('not-patchable');
    expect(await stats('update')).toStrictEqual({ received: 0, handled: 0 });
  });
});
