import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { startEmulator } from '../../src/emulator/server.js';
import { openSessions } from '../../src/library/open-sessions.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { runCli } from '../helpers/run-cli.js';
import { removeAllTempDirs, tempDir } from '../helpers/temp-dir.js';
import { githubOf, manifestOf } from './fleet/rollout-world.js';

/*
 * A rollout against a service that enforces a rate limit: more PATCHes than one minute's window
 * allows, spaced by --rate-limit at the same limit, so that none is answered 429. Minutes long by
 * nature, so an e2e test (mutation testing runs the unit tests).
 */

const KEY = 'rollout-rate-key';
afterAll(() => removeAllTempDirs());

describe('rollout at the service\'s rate limit', () => {
  test('the emulator at 2000/min and the rollout at the same limit: no 429, every session patched', { timeout: 180_000 }, async () => {
    const emulator = await startEmulator({ port: 0 });
    try {
      const dir = tempDir('rate');
      const url = join(dir, 'state.json');
      writeFileSync(join(dir, 'agent.yaml'), manifestOf('agent', 1));
      expect((await runCli(['apply', 'agent.yaml', '--base-url', emulator.url, '--state', url], { cwd: dir, env: { COMPOSIO_API_KEY: KEY } })).exitCode).toBe(0);
      const sessions = await openSessions(url, { apiKey: KEY, baseUrl: emulator.url, cwd: dir, env: {} });
      const users = Array.from({ length: 2_100 }, (_, i) => `r${i}`);
      for (let i = 0; i < users.length; i += 100) await Promise.all(users.slice(i, i + 100).map((u) => sessions.ensure('agent', u)));
      await sessions.close();
      // The limit from here on: more PATCHes than one window allows, so that only spacing them avoids a 429.
      await emulatorAdmin(emulator.url, 'POST', '/rate-limit', { per_minute: 2_000 });
      writeFileSync(join(dir, 'agent.yaml'), manifestOf('agent', 2));
      const before = ((await emulatorAdmin(emulator.url, 'GET', '/stats')) as { routes: Record<string, { received: number; handled: number }> }).routes;
      const r = await runCli(['apply', 'agent.yaml', '--base-url', emulator.url, '--state', url, '--rate-limit', '2000/min', '--concurrency', '32'], { cwd: dir, env: { COMPOSIO_API_KEY: KEY } });
      expect(r.exitCode, r.stdout).toBe(0);
      const after = ((await emulatorAdmin(emulator.url, 'GET', '/stats')) as { routes: Record<string, { received: number; handled: number }> }).routes;
      const patches = { received: after['update']!.received - (before['update']?.received ?? 0), handled: after['update']!.handled - (before['update']?.handled ?? 0) };
      expect(patches).toStrictEqual({ received: 2_100, handled: 2_100 });
      expect(((await emulatorAdmin(emulator.url, 'GET', '/counts?by=/tools/github')) as { by_value: unknown }).by_value).toStrictEqual({ [githubOf(2)]: 2_100 });
    } finally {
      await emulator.close();
    }
  });
});
