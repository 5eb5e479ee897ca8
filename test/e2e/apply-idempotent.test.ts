import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

const SUPPORT = `name: support
user_id: \${SUPPORT_USER:-support-bot}
toolkits: [gmail, slack]
workbench:
  enable: false
`;
const TRIAGE = `name: triage
user_id: triage-bot
toolkits:
  enable: [github]
tools:
  github:
    disable: [GITHUB_DELETE_A_REPOSITORY]
`;
const ONCALL = `name: oncall
user_id: oncall
manage_connections:
  enable_wait_for_connections: true
`;

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('apply against the emulator over HTTP', () => {
  test('creates every session, records it, and a re-apply creates nothing', async () => {
    world = await applyWorld({ 'm/support.yaml': SUPPORT, 'm/triage.yaml': TRIAGE, 'm/oncall.yaml': ONCALL });
    const first = await world.run(['apply', 'm', '--format', 'json']);
    expect(first.stderr.split('\n').filter((l) => l !== '').map((l) => l.replace(/ \(user.*/, '').replace(/^\[\d\/3\] /, ''))).toEqual(expect.arrayContaining(['created oncall', 'created support', 'created triage']));
    expect(first.exitCode).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report.applied.tally).toEqual({ created: 3, updated: 0, replaced: 0, deleted: 0, unchanged: 0, drifted: 0, failed: 0 });
    expect(report.applied.items.map((i: any) => [i.name, i.action, i.outcome, i.diagnostics])).toEqual([
      ['oncall', 'create', 'created', []],
      ['support', 'create', 'created', []],
      ['triage', 'create', 'created', []],
    ]);
    const oncall = report.applied.items[0];
    expect(oncall.session_id).toMatch(/^trs_/);
    expect(oncall.mcp_url).toBe(`${world.emulator.url}/tool_router/v3/${oncall.session_id}/mcp`);
    expect(oncall.tool_router_tools).toContain('COMPOSIO_WAIT_FOR_CONNECTIONS');
    expect(await world.creates()).toBe(3);

    const state = await world.state();
    expect(state.version).toBe(2);
    expect(state.sessions.map((s) => [s.name, s.user_id, s.session_id])).toEqual(report.applied.items.map((i: any) => [i.name, i.user_id, i.session_id]));
    expect((await stat(join(world.dir, '.sessionctl', 'state.json'))).mode & 0o777).toBe(0o600);

    const again = await world.run(['apply', 'm']);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toContain('0 created, 3 unchanged, 0 drifted, 0 failed');
    expect(await world.creates()).toBe(3);
    expect(await world.state()).toEqual(state);
  });

  test('a changed manifest is updated in place: its own session only, same id, config version 2', async () => {
    world = await applyWorld({ 'm/support.yaml': SUPPORT, 'm/triage.yaml': TRIAGE });
    expect((await world.run(['apply', 'm'])).exitCode).toBe(0);
    const before = await world.state();
    await world.write('m/triage.yaml', TRIAGE.replace('[GITHUB_DELETE_A_REPOSITORY]', '[GITHUB_DELETE_A_REPOSITORY, GITHUB_CREATE_AN_ISSUE]'));

    const plan = await world.run(['plan', 'm', '--detailed-exitcode', '--format', 'json']);
    expect(plan.exitCode).toBe(4);
    expect(JSON.parse(plan.stdout).plan.items.map((i: any) => [i.name, i.action, i.reason])).toEqual([
      ['support', 'no-op', 'up-to-date'],
      ['triage', 'update', 'config-changed'],
    ]);

    const applied = await world.run(['apply', 'm']);
    expect(applied.exitCode).toBe(0);
    expect(applied.stdout).toContain('0 created, 1 updated, 1 unchanged, 0 drifted, 0 failed');
    expect(await world.creates()).toBe(2);
    const after = await world.state();
    const entry = (s: typeof after, name: string) => s.sessions.find((e) => e.name === name)! as (typeof after)['sessions'][number] & { config_version: number };
    expect(entry(after, 'support')).toEqual(entry(before, 'support'));
    expect(entry(after, 'triage').session_id).toBe(entry(before, 'triage').session_id);
    expect(entry(after, 'triage').mcp_url).toBe(entry(before, 'triage').mcp_url);
    expect([entry(before, 'triage').config_version, entry(after, 'triage').config_version]).toEqual([1, 2]);

    expect((await world.run(['plan', 'm', '--detailed-exitcode'])).exitCode).toBe(0);
  });

  test('one manifest serves several users: state is per resolved user_id, and a run speaks for every recorded user', async () => {
    world = await applyWorld({ 'support.yaml': SUPPORT });
    expect((await world.run(['apply', 'support.yaml'], { SUPPORT_USER: 'alice' })).exitCode).toBe(0);
    expect((await world.run(['apply', 'support.yaml'], { SUPPORT_USER: 'bob' })).exitCode).toBe(0);
    expect((await world.run(['apply', 'support.yaml'], { SUPPORT_USER: 'alice' })).stdout).toContain('0 created, 2 unchanged');
    expect((await world.state()).sessions.map((s) => [s.name, s.user_id])).toEqual([
      ['support', 'alice'],
      ['support', 'bob'],
    ]);
    expect(await world.creates()).toBe(2);
  });

  test('a recorded session that is gone is created again', async () => {
    world = await applyWorld({ 'support.yaml': SUPPORT });
    expect((await world.run(['apply', 'support.yaml'])).exitCode).toBe(0);
    await world.admin('POST', 'reset');
    const plan = await world.run(['plan', 'support.yaml', '--refresh', '--format', 'json']);
    expect(JSON.parse(plan.stdout).plan.items[0]).toMatchObject({ action: 'create', reason: 'session-missing' });
    const applied = await world.run(['apply', 'support.yaml']);
    expect(applied.exitCode).toBe(0);
    expect(applied.stdout).toContain('1 created, 0 unchanged');
  });

  test('validation errors stop apply before any request', async () => {
    world = await applyWorld({ 'bad.yaml': 'name: bad\nuser_id: u\ntoolkits: { enable: [a], disable: [b] }\n', 'ok.yaml': SUPPORT });
    const r = await world.run(['apply', '.', '--format', 'json']);
    expect(r.exitCode).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.applied).toBeUndefined();
    expect(report.diagnostics.length).toBeGreaterThan(0);
    expect((await world.admin('GET', 'stats')).total.received).toBe(0);
  });

  test('a saved plan applies only while manifests and state are unchanged', async () => {
    world = await applyWorld({ 'support.yaml': SUPPORT, 'triage.yaml': TRIAGE });
    expect((await world.run(['plan', 'support.yaml', 'triage.yaml', '--out', 'plan.json'])).exitCode).toBe(0);
    const saved = JSON.parse(await readFile(join(world.dir, 'plan.json'), 'utf8'));
    expect(saved).toMatchObject({ planVersion: 1, files: ['support.yaml', 'triage.yaml'], state: '.sessionctl/state.json', state_hash: '' });

    await world.write('triage.yaml', TRIAGE.replace('triage-bot', 'someone-else'));
    const stale = await world.run(['apply', 'plan.json', '--format', 'json']);
    expect(stale.exitCode).toBe(1);
    expect(JSON.parse(stale.stdout).diagnostics.map((d: any) => [d.code, d.file])).toEqual([['plan/stale', 'plan.json']]);
    expect(await world.creates()).toBe(0);

    await world.write('triage.yaml', TRIAGE);
    const ok = await world.run(['apply', 'plan.json']);
    expect(ok.exitCode).toBe(0);
    expect(ok.stdout).toContain('2 created');
    // The state moved on: the same plan is stale now.
    const again = await world.run(['apply', 'plan.json', '--format', 'json']);
    expect(JSON.parse(again.stdout).diagnostics[0].message).toContain('the state file changed');
    expect(await world.creates()).toBe(2);
  });

  test('--github-output appends session ids and MCP URLs under sanitised names', async () => {
    world = await applyWorld({ 'support.yaml': SUPPORT, 'two.yaml': 'user_id: a\n---\nuser_id: b\n' });
    await world.write('gh-output', 'earlier=1\n');
    const r = await world.run(['apply', '.', '--github-output'], { GITHUB_OUTPUT: join(world.dir, 'gh-output') });
    expect(r.exitCode).toBe(0);
    const lines = (await readFile(join(world.dir, 'gh-output'), 'utf8')).split('\n');
    expect(lines[0]).toBe('earlier=1');
    expect(lines.filter((l) => l !== '').map((l) => l.replace(/=.*/, ''))).toEqual([
      'earlier',
      'support_session_id',
      'support_mcp_url',
      'two_session_id',
      'two_mcp_url',
      'two_2_session_id',
      'two_2_mcp_url',
    ]);
    const missing = await world.run(['apply', '.', '--github-output']);
    expect(missing.exitCode).toBe(2);
  });

  test('--dry-run is a plan: no lock, no request', async () => {
    world = await applyWorld({ 'support.yaml': SUPPORT });
    const r = await world.run(['apply', 'support.yaml', '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('Plan: 1 to create, 0 to update, 0 to replace, 0 to delete, 0 no-op');
    expect((await world.admin('GET', 'stats')).total.received).toBe(0);
    await expect(stat(join(world.dir, '.sessionctl'))).rejects.toThrow(/ENOENT/);
  });
});
