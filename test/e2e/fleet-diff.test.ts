import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { removeAllTempDirs } from '../helpers/temp-dir.js';
import { fleetBackends, fleetWorld, usersOf } from './fleet/fleet-world.js';

/*
 * `diff` of a per-user manifest over real HTTP to the emulator: every recorded session of it read
 * (paged through the state, no lock), compared with the manifest, and summarised by field; a line
 * per field, never one per session.
 */

const MANIFEST = `name: support-agent
user_id: <end-user>
toolkits: [gmail, github]
tools:
  github: { disable: [GITHUB_DELETE_A_REPOSITORY] }
workbench: { enable: false }
`;

afterAll(() => removeAllTempDirs());

describe.each(fleetBackends)('diff of a per-user manifest on the $name state', (backend) => {
  const w = fleetWorld(backend);
  const drift = (id: string) => emulatorAdmin(w.emulator.url, 'POST', `/sessions/${id}/config`, { config: { tools: { github: { disabled: [] } }, workbench: { enable: true } } });

  test('200 sessions, 30 drifted on two fields: counted per field with the first users, exit 2; JSON carries the counts', async () => {
    await w.apply('support.yaml', MANIFEST);
    const users = usersOf(200);
    const sessions = await w.ensure('support-agent', users);
    // Every sixth user from user-001: user-001, user-007, user-013, ... (30 of them).
    const drifted = users.filter((_, i) => i % 6 === 1 && i < 180);
    expect(drifted).toHaveLength(30);
    for (const u of drifted) await drift(sessions.get(u)!);
    const before = await w.stat('get');

    const human = await w.cli(['diff', 'support.yaml', '--concurrency', '8']);
    expect(human.exitCode, human.stderr).toBe(2);
    expect(human.stdout).toBe(`support.yaml:5:13  error  support-agent: tools.github.disable: 30 sessions of 200 differ from the manifest, e.g. "user-001", "user-007", "user-013"  drift/fleet
    3 | toolkits: [gmail, github]
    4 | tools:
  > 5 |   github: { disable: [GITHUB_DELETE_A_REPOSITORY] }
      |             ^^^^^^^
    6 | workbench: { enable: false }
  hint: \`diff --user USER\` shows one session's whole diff; \`apply --repair-fleet\` repairs them

support.yaml:6:14  error  support-agent: workbench.enable: 30 sessions of 200 differ from the manifest, e.g. "user-001", "user-007", "user-013"  drift/fleet
    4 | tools:
    5 |   github: { disable: [GITHUB_DELETE_A_REPOSITORY] }
  > 6 | workbench: { enable: false }
      |              ^^^^^^
  hint: \`diff --user USER\` shows one session's whole diff; \`apply --repair-fleet\` repairs them

Fleet drift:

  ! support-agent  200 sessions recorded, version 1 published
        30 differ from the manifest:
          tools.github.disable: 30 sessions differ, e.g. "user-001", "user-007", "user-013"
          workbench.enable: 30 sessions differ, e.g. "user-001", "user-007", "user-013"
        170 in sync

✖ 2 problems (2 errors) in 1 file
`);
    // Progress on stderr, never a line per session.
    expect(human.stderr).toMatch(/^diff support-agent: 200\/200 sessions  [\d,]+\/s, 0 s left\n$/);
    // One GET per session, none twice.
    expect((await w.stat('get')).handled - before.handled).toBe(200);

    const json = await w.cli(['diff', 'support.yaml', '--format', 'json']);
    expect(json.exitCode).toBe(2);
    const report = JSON.parse(json.stdout);
    expect(report.drift).toBeUndefined();
    expect(report.fleet_drift).toStrictEqual([
      {
        name: 'support-agent',
        file: 'support.yaml',
        version: 1,
        manifest_published: true,
        sessions: 200,
        in_sync: 170,
        drifted: { count: 30, samples: ['user-001', 'user-007', 'user-013'] },
        fields: [
          { field: 'tools.github.disable', pointer: '/tools/github/disable', count: 30, samples: ['user-001', 'user-007', 'user-013'] },
          { field: 'workbench.enable', pointer: '/workbench/enable', count: 30, samples: ['user-001', 'user-007', 'user-013'] },
        ],
        behind: { count: 0, samples: [] },
        missing: { count: 0, samples: [] },
        unreadable: { count: 0, samples: [], error: null },
        interrupted: false,
      },
    ]);
    expect(report.diagnostics.map((d: { code: string }) => d.code)).toStrictEqual(['drift/fleet', 'drift/fleet']);
  }, 60_000);

  test('--user narrows to one user\'s session and shows its whole diff, as a fixed session\'s; a user without a session is not applied', async () => {
    await w.apply('support.yaml', MANIFEST);
    const sessions = await w.ensure('support-agent', usersOf(3));
    await drift(sessions.get('user-001')!);
    const before = await w.stat('get');

    const one = await w.cli(['diff', 'support.yaml', '--user', 'user-001', '--format', 'json']);
    expect(one.exitCode, one.stderr).toBe(2);
    const report = JSON.parse(one.stdout);
    expect(report.fleet_drift).toBeUndefined();
    expect(report.drift.items.map((i: { user_id: string; session_id: string; status: string }) => [i.user_id, i.session_id, i.status])).toStrictEqual([['user-001', sessions.get('user-001'), 'drifted']]);
    expect(report.diagnostics.map((d: { code: string; message: string; range: { start: { line: number } } }) => [d.code, d.range.start.line, d.message])).toStrictEqual([
      ['drift/fleet', 1, 'support-agent: the session of user "user-001" differs from the manifest (below); `sessionctl apply --repair-fleet` repairs it'],
      ['drift/changed', 5, 'support-agent: config.tools.github.disabled lacks "GITHUB_DELETE_A_REPOSITORY", which is declared'],
      ['drift/changed', 6, 'support-agent: config.workbench.enable is true at the service, declared false'],
    ]);
    expect((await w.stat('get')).handled - before.handled).toBe(1);

    const human = await w.cli(['diff', 'support.yaml', '--user', 'user-001']);
    expect(human.stdout).toContain(`Drift:\n  drifted  support-agent  user user-001  ${sessions.get('user-001')}\n\n  --- support-agent (declared)\n  +++ ${sessions.get('user-001')} (effective)\n`);
    expect(human.stdout).toContain('\n  -      "enable": false,\n  +      "enable": true,\n');
    expect(human.stdout).not.toContain('Fleet drift');

    const clean = await w.cli(['diff', 'support.yaml', '--user', 'user-002']);
    expect([clean.exitCode, clean.stdout.includes('1 of 1 in sync')]).toStrictEqual([0, true]);

    const nobody = await w.cli(['diff', 'support.yaml', '--user', 'nobody', '--format', 'json']);
    expect(nobody.exitCode).toBe(1);
    expect(JSON.parse(nobody.stdout).diagnostics.map((d: { code: string; message: string }) => [d.code, d.message])).toStrictEqual([['state/not-applied', 'support-agent: no session is recorded for user "nobody"']]);

    const both = await w.cli(['diff', 'support.yaml', '--user', 'user-001', '--session', sessions.get('user-001')!]);
    expect([both.exitCode, both.stderr]).toStrictEqual([2, expect.stringContaining('--session and --user')]);
  }, 60_000);

  test('sessions gone at the service (404) and unreadable ones are counted apart from drift, with a few users', async () => {
    await w.apply('support.yaml', MANIFEST);
    const users = usersOf(40);
    const sessions = await w.ensure('support-agent', users);
    for (const u of ['user-005', 'user-011', 'user-023', 'user-030']) await emulatorAdmin(w.emulator.url, 'DELETE', `/sessions/${sessions.get(u)!}`);
    await drift(sessions.get('user-039')!);
    // Two reads the service refuses outright (a 400 is not retried).
    await emulatorAdmin(w.emulator.url, 'POST', '/faults', { route: 'get', status: 400, times: 2 });

    const r = await w.cli(['diff', 'support.yaml', '--concurrency', '1', '--format', 'json']);
    // A read the service failed is exit 3, as for a fixed session (it comes before the drift's 2).
    expect(r.exitCode, r.stderr).toBe(3);
    const [f] = JSON.parse(r.stdout).fleet_drift;
    expect([f.sessions, f.in_sync, f.drifted, f.missing, f.unreadable.count, f.unreadable.samples]).toStrictEqual([
      40,
      33,
      { count: 1, samples: ['user-039'] },
      { count: 4, samples: ['user-005', 'user-011', 'user-023'] },
      2,
      ['user-000', 'user-001'],
    ]);
    const codes = JSON.parse(r.stdout).diagnostics.map((d: { code: string; message: string }) => [d.code, d.message]);
    expect(codes).toContainEqual(['state/session-missing', 'support-agent: 4 recorded sessions no longer exist at the service (404), e.g. "user-005", "user-011", "user-023"']);
    expect(codes.map((c: string[]) => c[0]).sort()).toStrictEqual(['drift/fleet', 'drift/fleet', 'state/refresh-failed', 'state/session-missing']);
  }, 60_000);

  test('sessions on an older published version are behind (the next apply rolls them out), not drift: exit 0', async () => {
    await w.apply('support.yaml', MANIFEST);
    await w.ensure('support-agent', usersOf(20));
    // Version 2 is published, and its rollout stops at the first PATCH the service refuses: all 20 stay on version 1.
    await emulatorAdmin(w.emulator.url, 'POST', '/faults', { route: 'update', status: 400, times: 100 });
    const v2 = MANIFEST.replace('workbench: { enable: false }', 'workbench: { enable: false }\ntags: [readOnlyHint]');
    writeFileSync(join(w.dir, 'support.yaml'), v2);
    const applied = await w.cli(['apply', 'support.yaml', '--max-failures', '0']);
    expect(applied.exitCode).not.toBe(0);
    await emulatorAdmin(w.emulator.url, 'DELETE', '/faults');
    const before = await w.stat('get');

    const r = await w.cli(['diff', 'support.yaml']);
    expect([r.exitCode, r.stdout]).toStrictEqual([
      0,
      `Fleet drift:

  = support-agent  20 sessions recorded, version 2 published
        20 behind (apply rolls them out), e.g. "user-000", "user-001", "user-002"
        0 in sync

✔ No problems in 1 manifest (1 file)
`,
    ]);
    // Sessions behind are not read.
    expect((await w.stat('get')).handled).toBe(before.handled);
    const one = await w.cli(['diff', 'support.yaml', '--user', 'user-003', '--format', 'json']);
    expect(one.exitCode).toBe(0);
    expect(JSON.parse(one.stdout).diagnostics.map((d: { severity: string; code: string }) => [d.severity, d.code])).toStrictEqual([
      ['info', 'drift/fleet'],
      ['info', 'drift/dropped'],
    ]);
  }, 60_000);

  test('a manifest changed since it was published is compared as written; a per-user manifest with no sessions is clean and needs no key', async () => {
    await w.apply('support.yaml', MANIFEST);
    const none = await w.cli(['diff', 'support.yaml'], { env: { COMPOSIO_API_KEY: undefined } });
    expect([none.exitCode, none.stdout]).toStrictEqual([0, 'Fleet drift:\n\n  = support-agent  no sessions recorded, version 1 published\n\n✔ No problems in 1 manifest (1 file)\n']);
    await w.ensure('support-agent', usersOf(2));
    writeFileSync(join(w.dir, 'support.yaml'), MANIFEST.replace('enable: false', 'enable: true'));
    const r = await w.cli(['diff', 'support.yaml']);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toContain('  ! support-agent  2 sessions recorded, version 1 published\n        the manifest changed since version 1 was published: compared as written (apply publishes it and rolls it out)\n        2 differ from the manifest:\n          workbench.enable: 2 sessions differ, e.g. "user-000", "user-001"\n');
  }, 60_000);

  test('apply --repair-fleet PATCHes back the drifted sessions only (guarded by their config version), then diff is clean', async () => {
    await w.apply('support.yaml', MANIFEST);
    const users = usersOf(60);
    const sessions = await w.ensure('support-agent', users);
    const drifted = users.filter((_, i) => i % 6 === 1);
    for (const u of drifted) await drift(sessions.get(u)!);
    const patchesBefore = await w.stat('update');

    const r = await w.cli(['apply', 'support.yaml', '--repair-fleet', '--format', 'json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).rollouts).toStrictEqual([
      { kind: 'repair', name: 'support-agent', version: 1, total: 60, patched: 10, already_done: 50, failed: 0, failures: [], not_patchable: 0, raced: 0, creates_under_way: 0, untouched: 0, max_failures: 10 },
    ]);
    expect((await w.stat('update')).handled - patchesBefore.handled).toBe(10);
    const live = await emulatorAdmin(w.emulator.url, 'GET', `/sessions/${sessions.get('user-001')!}`);
    expect([live.config.workbench.enable, live.config.tools.github]).toStrictEqual([false, { disabled: ['GITHUB_DELETE_A_REPOSITORY'] }]);

    const human = await w.cli(['apply', 'support.yaml', '--repair-fleet']);
    expect(human.stdout).toContain('Rolled out:\n\n  ~ repair support-agent (version 1): 0 repaired, 60 in sync, 0 failed\n');
    expect((await w.cli(['diff', 'support.yaml'])).exitCode).toBe(0);
  }, 60_000);
});
