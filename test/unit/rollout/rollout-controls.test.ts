import { readFileSync, writeFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../../src/emulator/server.js';
import { openSessions } from '../../../src/library/open-sessions.js';
import { db, dropSchema, stateUrl, uniqueSchema } from '../../helpers/postgres.js';
import { emulatorAdmin } from '../../helpers/emulator-admin.js';
import { runCli } from '../../helpers/run-cli.js';
import { removeAllTempDirs, tempDir } from '../../helpers/temp-dir.js';
import { githubOf, manifestOf } from '../../e2e/fleet/rollout-world.js';

/*
 * The rollout's controls, against the emulator over loopback: the canary that stops on sessions
 * read back with another config, the failure budget, the rate limit a shared service enforces,
 * and the plan's summary of a fleet.
 */

const KEY = 'rollout-controls-key';
const validateReport = new Ajv({ strict: true, allErrors: true }).compile(JSON.parse(readFileSync(new URL('../../../schemas/report.schema.json', import.meta.url), 'utf8')) as object);
afterAll(() => removeAllTempDirs());

interface Backend {
  name: string;
  make(dir: string): { url: string; env: Record<string, string>; cleanup(): Promise<void> };
}
const backends: Backend[] = [
  { name: 'file', make: (dir) => ({ url: join(dir, 'state.json'), env: {}, cleanup: async () => undefined }) },
  ...(db === null
    ? []
    : [{ name: 'postgres', make: () => {
        const schema = uniqueSchema('controls');
        return { url: stateUrl(db!, schema), env: { ...(db!.env as Record<string, string>) }, cleanup: () => dropSchema(db!, schema) };
      } }]),
];

describe.each(backends)('rollout controls on the $name state', (backend) => {
  let emulator: RunningEmulator;
  let dir: string;
  let state: ReturnType<Backend['make']>;

  const apply = async (version: number, extra: readonly string[] = []) => {
    writeFileSync(join(dir, 'agent.yaml'), manifestOf('agent', version));
    return runCli(['apply', 'agent.yaml', '--base-url', emulator.url, '--state', state.url, ...extra], { cwd: dir, env: { ...state.env, COMPOSIO_API_KEY: KEY } });
  };
  const fleet = async (n: number) => {
    const sessions = await openSessions(state.url, { apiKey: KEY, baseUrl: emulator.url, cwd: dir, env: state.env });
    try {
      const made = [];
      for (let i = 0; i < n; i += 50) made.push(...(await Promise.all(Array.from({ length: Math.min(50, n - i) }, (_, j) => sessions.ensure('agent', `u${String(i + j).padStart(4, '0')}`)))));
      return made;
    } finally {
      await sessions.close();
    }
  };
  const counts = async () => (await emulatorAdmin(emulator.url, 'GET', '/counts?by=/tools/github')) as { by_config_version: Record<string, number>; by_value: Record<string, number> };
  const stats = async () => ((await emulatorAdmin(emulator.url, 'GET', '/stats')) as { routes: Record<string, { received: number; handled: number } | undefined> }).routes;

  beforeEach(async () => {
    emulator = await startEmulator({ port: 0 });
    dir = tempDir('controls');
    state = backend.make(dir);
    expect((await apply(1)).exitCode).toBe(0);
  });
  afterEach(async () => {
    await emulator.close();
    await state.cleanup();
  });

  test('plan summarises the fleet in a few lines: the change once, the counts, three users', { timeout: 60_000 }, async () => {
    await fleet(120);
    writeFileSync(join(dir, 'agent.yaml'), manifestOf('agent', 2));
    const plan = await runCli(['plan', 'agent.yaml', '--state', state.url], { cwd: dir, env: state.env });
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(
      [
        '    ~ publish   agent  every end user, agent.yaml',
        '        the manifest changed: publishes version 2 (was 1)',
        '      ~ tools.github.disable: + GITHUB_ADD_A_REPOSITORY_COLLABORATOR  agent.yaml:5:13',
        '        120 sessions recorded; rollout: update 120 in place, replace 0, unchanged 0',
        '          from version 1 (120 sessions, e.g. "u0000", "u0001", "u0002"): update in place: tools.github.disable + GITHUB_ADD_A_REPOSITORY_COLLABORATOR',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await runCli(['plan', 'agent.yaml', '--state', state.url, '--format', 'json'], { cwd: dir, env: state.env })).stdout);
    expect(json.publications.items[0].rollout).toStrictEqual({
      version: 2,
      update: 120,
      replace: 0,
      unchanged: 0,
      groups: [
        {
          from: 1,
          sessions: 120,
          action: 'update',
          changes: [{ field: 'tools.github.disable', op: 'change', old: ['GITHUB_ADD_ASSIGNEES_TO_AN_ISSUE'], new: ['GITHUB_ADD_ASSIGNEES_TO_AN_ISSUE', 'GITHUB_ADD_A_REPOSITORY_COLLABORATOR'], pointer: '/tools/github/disable' }],
          unpatchable: [],
          known: true,
          sensitive_changed: false,
          samples: ['u0000', 'u0001', 'u0002'],
        },
      ],
      list: 'sessionctl state list --name "agent" --format json',
    });
  });

  test('a canary whose sessions read back with another config stops the rollout, names them, and leaves the rest untouched', { timeout: 60_000 }, async () => {
    const made = await fleet(60);
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', misapply: { tools: { github: { disabled: ['GITHUB_ADD_LABELS_TO_AN_ISSUE'] } } }, times: 1_000 });
    const r = await apply(2, ['--canary', '5', '--concurrency', '2']);
    expect(r.exitCode).toBe(3);
    const canary = made.slice(0, 5);
    expect(r.stdout).toContain(`error  the canary of "agent" version 2 failed on 5 sessions of 5: user "u0000" (${canary[0]!.sessionId}): read back after the PATCH, its effective config differs from the manifest: tools.github.disabled; user "u0001" (${canary[1]!.sessionId})`);
    expect(r.stdout).toContain('The rollout stopped; 55 sessions left untouched  rollout/canary-failed');
    expect(r.stdout).toContain('  ! rollout agent to version 2: 0 patched, 5 failed\n        canary: 5 patched, 5 not on it\n        stopped after the canary: 55 left untouched\n');
    // Only the canary was patched; its sessions stay on version 1 in the state, so the next apply reads them again.
    expect((await stats())['update']?.handled).toBe(5);
    expect((await counts()).by_config_version).toStrictEqual({ 1: 55, 2: 5 });
    await emulatorAdmin(emulator.url, 'DELETE', '/faults');
    const again = await apply(2, ['--canary', '5']);
    expect(again.exitCode, again.stdout).toBe(0);
    expect(again.stdout).toContain('  ~ rollout agent to version 2: 60 patched, 0 failed\n        canary: 5 patched, read back on the new config\n');
    // The canary's sessions were patched twice (the second time needed: the first left them wrong), the others once.
    expect(await counts()).toMatchObject({ by_config_version: { 2: 55, 3: 5 }, by_value: { [githubOf(2)]: 60 } });
  });

  test('a change PATCH cannot carry is not rolled out: said, nothing sent, new users get the new version', { timeout: 60_000 }, async () => {
    const tz = (zone: string) => `name: agent\nuser_id: <end-user>\ntoolkits: [gmail]\nexperimental:\n  assistive_prompt_config: { user_timezone: ${zone} }\n`;
    const applyTz = async (zone: string) => {
      writeFileSync(join(dir, 'agent.yaml'), tz(zone));
      return runCli(['apply', 'agent.yaml', '--base-url', emulator.url, '--state', state.url, '--api-version', '3.1'], { cwd: dir, env: { ...state.env, COMPOSIO_API_KEY: KEY } });
    };
    expect((await applyTz('Europe/Paris')).exitCode).toBe(0);
    await fleet(12);
    const updates = (await stats())['update']?.received ?? 0;
    const r = await applyTz('Europe/Berlin');
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('replace (PATCH cannot change experimental.assistive_prompt_config)');
    expect(r.stdout).toContain('error  12 sessions of "agent" cannot be rolled out in place: the change is one PATCH cannot carry (see the plan). They keep their config; new users get version 3  rollout/needs-replace');
    expect((await stats())['update']?.received ?? 0).toBe(updates);
  });

  test('--max-failures stops the rollout with the rest untouched, and says so', { timeout: 60_000 }, async () => {
    await fleet(40);
    await emulatorAdmin(emulator.url, 'POST', '/faults', { route: 'update', status: 400, times: 1_000 });
    const r = await apply(2, ['--max-failures', '3', '--concurrency', '1']);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/error {2}4 sessions of "agent" not rolled out to version 2: user "u0000" \(trs_[\w-]+\): Injected fault: HTTP 400/);
    expect(r.stdout).toContain('error  the rollout of "agent" stopped: 4 sessions failed, more than the failure budget of 3 (--max-failures; by default 1% of the sessions, at least 10); 36 sessions left untouched on an older version. The next apply resumes where it stopped  rollout/stopped');
    expect(r.stdout).toContain('        stopped: 4 failed, more than the budget of 3; 36 left untouched (the next apply resumes)\n');
    expect((await stats())['update']?.received).toBe(4);
    expect((await counts()).by_config_version).toStrictEqual({ 1: 40 });
    // The JSON report says the same, in the published schema.
    const json = await apply(2, ['--max-failures', '0', '--concurrency', '1', '--format', 'json']);
    const report = JSON.parse(json.stdout);
    expect(validateReport(report), JSON.stringify(validateReport.errors)).toBe(true);
    expect(report.rollouts).toMatchObject([{ name: 'agent', version: 2, total: 40, patched: 0, failed: 1, stopped: 'max-failures', untouched: 39, max_failures: 0, failures: [{ user_id: 'u0000', kind: 'patch-refused' }] }]);
  });
});
