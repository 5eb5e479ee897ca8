import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, KEY, type ApplyWorld } from './apply-helpers.js';
import { hostileService, type HostileService } from './hostile-service.js';

/*
 * An update is guarded by the config version the session was read at (a 409 overwrites nothing).
 * A service that answers a version no PATCH can carry back (1.5, -1, 1e300, a string ...) gets no
 * PATCH at all: the manifest fails with a finding at its name, the session and the state keep what
 * they had. The session is created on the emulator; the service of the second run is a loopback
 * server that answers the read with the emulator's session and a version of the test's choosing.
 */

const A = 'name: a\nuser_id: u1\ntoolkits: [gmail, slack]\n';
const CHANGED = 'name: a\nuser_id: u1\ntoolkits: [gmail]\n';

let world: ApplyWorld | undefined;
let service: HostileService | undefined;
afterEach(async () => {
  await service?.close();
  await world?.close();
  service = world = undefined;
});

/** Applies A on the emulator, changes it, and starts a service whose read answers `version`. */
async function changedBehind(version: unknown): Promise<{ w: ApplyWorld; s: HostileService; id: string; state: string }> {
  const w = (world = await applyWorld({ 'a.yaml': A }));
  expect((await w.run(['apply', 'a.yaml'])).exitCode).toBe(0);
  const id = (await w.state()).sessions[0]!.session_id;
  const live = (await (await fetch(`${w.emulator.url}/api/v3/tool_router/session/${id}`, { headers: { 'x-api-key': KEY } })).json()) as Record<string, unknown>;
  expect(live['config_version']).toBe(1);
  const s = (service = await hostileService([
    { method: 'GET', path: /^\/api\/v3\/tool_router\/session\/trs_/, answer: () => ({ status: 200, body: { ...live, config_version: version } }) },
    { method: 'PATCH', path: /^\/api\/v3\/tool_router\/session\/trs_/, answer: () => ({ status: 200, body: { ...live, config_version: 8 } }) },
  ]));
  await w.write('a.yaml', CHANGED);
  return { w, s, id, state: await readFile(join(w.dir, '.sessionctl', 'state.json'), 'utf8') };
}

const patches = (s: HostileService): unknown[] => s.received.filter((r) => r.method === 'PATCH').map((r) => JSON.parse(r.body) as unknown);

interface Finding {
  code: string;
  message: string;
  hint: string;
  range: { start: { line: number; col: number } };
}

describe('apply: the config version an update is guarded by', () => {
  const hostile: Array<[string, unknown, string]> = [
    ['not whole', 1.5, '1.5'],
    ['below zero', -1, '-1'],
    ['far past 2^53', 1e300, '1e+300'],
    ['2^53, one past the safe integers', 2 ** 53, '9007199254740992'],
    ['a string of digits', '2', '"2"'],
    ['a boolean', true, 'true'],
    ['an object', { v: 1 }, '{"v":1}'],
    ['a long string, cut short', `\u001b[31m${'x'.repeat(60)}`, `"\\u001b[31m${'x'.repeat(29)}...`],
  ];
  test.each(hostile)('a version %s: no PATCH; the manifest fails at its name, exit 3, the state as it was', async (_what, version, shown) => {
    const { w, s, id, state } = await changedBehind(version);
    const r = await w.run(['apply', 'a.yaml', '--format', 'json'], { COMPOSIO_BASE_URL: s.url });
    expect(r.exitCode, r.stdout).toBe(3);
    const report = JSON.parse(r.stdout) as { diagnostics: Finding[]; applied: { items: Array<{ outcome: string; session_id: string }> } };
    expect(report.diagnostics.map((d) => [d.code, d.range.start, d.message, d.hint])).toStrictEqual([
      [
        'apply/version-invalid',
        { line: 1, col: 1 },
        `a: session ${id} was not updated: the service answered config version ${shown}, which is not a whole number from 0 to 2^53; a PATCH without the version the session was read at could overwrite a change made since`,
        'check what answers at the base URL (a proxy, a test server) or the state entry, then apply again; the session and the state keep what they had',
      ],
    ]);
    expect(report.applied.items.map((i) => [i.outcome, i.session_id])).toStrictEqual([['failed', id]]);
    expect([s.received.map((q) => q.method), patches(s)]).toStrictEqual([['GET'], []]);
    expect(await readFile(join(w.dir, '.sessionctl', 'state.json'), 'utf8')).toBe(state);
  });

  const sent: Array<[string, unknown, number]> = [
    ['a whole number: that one', 7, 7],
    ['0: that one', 0, 0],
    ['null: the one recorded', null, 1],
    ['none: the one recorded', undefined, 1],
  ];
  test.each(sent)('a version that is %s is the guard of the PATCH', async (_what, version, expected) => {
    const { w, s } = await changedBehind(version);
    const r = await w.run(['apply', 'a.yaml', '--format', 'json'], { COMPOSIO_BASE_URL: s.url });
    expect(JSON.parse(r.stdout).applied.items.map((i: { outcome: string }) => i.outcome)).toStrictEqual(['updated']);
    expect(patches(s)).toStrictEqual([{ toolkits: { enable: ['gmail'] }, expected_config_version: expected }]);
  });

  test('a version below zero in the state, without a refresh: no PATCH, and the finding says where the version came from', async () => {
    const { w, s, id } = await changedBehind(1);
    const file = join(w.dir, '.sessionctl', 'state.json');
    const edited = JSON.parse(await readFile(file, 'utf8')) as { sessions: Array<{ config_version: number }> };
    edited.sessions[0]!.config_version = -1;
    await writeFile(file, JSON.stringify(edited, null, 2) + '\n');
    const before = await readFile(file, 'utf8');
    const r = await w.run(['apply', 'a.yaml', '--refresh=false', '--format', 'json'], { COMPOSIO_BASE_URL: s.url });
    expect(r.exitCode, r.stdout).toBe(3);
    expect((JSON.parse(r.stdout) as { diagnostics: Finding[] }).diagnostics.map((d) => [d.code, d.message])).toStrictEqual([
      ['apply/version-invalid', `a: session ${id} was not updated: the state records config version -1, which is not a whole number from 0 to 2^53; a PATCH without the version the session was read at could overwrite a change made since`],
    ]);
    expect(s.received).toStrictEqual([]);
    expect(await readFile(file, 'utf8')).toBe(before);
  });
});
