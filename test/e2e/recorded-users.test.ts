import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { runCli } from '../helpers/run-cli.js';
import { removeAllTempDirs, tempDir } from '../helpers/temp-dir.js';

/*
 * A manifest whose user_id comes from the environment, applied by a pipeline for several users:
 * plan, apply and diff speak for every recorded user, not only the one in this run's environment.
 */

let emulator: RunningEmulator;
let dir: string;
afterAll(() => removeAllTempDirs());
beforeEach(async () => {
  emulator = await startEmulator({ port: 0 });
  dir = tempDir('recorded-users');
  writeFileSync(join(dir, 'triage.yaml'), 'name: triage\nuser_id: ${USER_ID}\ntoolkits: [gmail, slack]\n');
});
afterEach(() => emulator.close());

const cli = (args: string[], user: string) => runCli([...args, '--base-url', emulator.url, '--state', 'state.json'], { cwd: dir, env: { COMPOSIO_API_KEY: 'k-recorded', USER_ID: user } });

test('diff reads every recorded user of a ${VAR} manifest, and apply repairs them all', async () => {
  const ids: Record<string, string> = {};
  for (const user of ['alice', 'bob', 'carol']) {
    const r = await cli(['apply', 'triage.yaml', '--format', 'json'], user);
    expect(r.exitCode, r.stderr).toBe(0);
    ids[user] = (JSON.parse(r.stdout) as { applied: { items: Array<{ user_id: string; session_id: string; outcome: string }> } }).applied.items.find((i) => i.user_id === user)!.session_id;
  }
  for (const user of ['bob', 'carol']) await emulatorAdmin(emulator.url, 'POST', `/sessions/${ids[user]}/config`, { config: { toolkits: { enabled: ['gmail'] } } });

  const diff = await cli(['diff', 'triage.yaml', '--format', 'json'], 'alice');
  expect(diff.exitCode).toBe(1);
  const drift = (JSON.parse(diff.stdout) as { drift: { items: Array<{ user_id: string; status: string }> } }).drift.items.map((i) => [i.user_id, i.status]);
  expect(drift).toStrictEqual([
    ['alice', 'in-sync'],
    ['bob', 'drifted'],
    ['carol', 'drifted'],
  ]);

  const plan = await cli(['plan', 'triage.yaml', '--refresh', '--format', 'json'], 'alice');
  expect((JSON.parse(plan.stdout) as { plan: { items: Array<{ user_id: string; action: string }> } }).plan.items.map((i) => [i.user_id, i.action])).toStrictEqual([
    ['alice', 'no-op'],
    ['bob', 'update'],
    ['carol', 'update'],
  ]);
  const apply = await cli(['apply', 'triage.yaml'], 'alice');
  expect(apply.exitCode, apply.stderr).toBe(0);
  const after = await cli(['diff', 'triage.yaml', '--format', 'json'], 'alice');
  expect([after.exitCode, (JSON.parse(after.stdout) as { drift: { items: Array<{ status: string }> } }).drift.items.map((i) => i.status)]).toStrictEqual([0, ['in-sync', 'in-sync', 'in-sync']]);
  expect((await emulatorAdmin(emulator.url, 'GET', '/counts')).sessions).toBe(3);
});
