import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnEmulator, type SpawnedEmulator } from '../conformance/cli-bundle.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/*
 * The whole lifecycle of issue 11, as a team runs it, against `sessionctl emulator` in a child
 * process, on both API versions: apply, update in place, drift repaired, a replace, a prune, an
 * import, an export that plans as a no-op, the history, and destroy. After every step the
 * emulator's own listing of live sessions equals what the state records.
 */

const KEY = 'lifecycle-key-0001';

const A = `name: agent-a
user_id: alice
toolkits:
  enable: [gmail, slack]
tags: [readOnlyHint]
workbench:
  enable: false
`;
const A2 = `name: agent-a
user_id: alice
toolkits:
  enable: [gmail, slack, notion]
workbench:
  enable: false
`;
const B = `name: agent-b
user_id: bob
toolkits: [github]
`;
const C = `name: agent-c
user_id: carol
toolkits: [hackernews]
`;
const D = `name: agent-d
user_id: dave
toolkits: [slack]
`;

interface Json {
  [key: string]: unknown;
}

describe.each(['3', '3.1'] as const)('the session lifecycle on API v%s', (version) => {
  let emu: SpawnedEmulator;
  let dir: string;
  beforeAll(async () => {
    emu = await spawnEmulator(['--port', '0', '--api-key', KEY]);
    dir = tempDir(`lifecycle-${version.replace('.', '')}`);
    mkdirSync(join(dir, 'm'));
    writeFileSync(join(dir, 'm', 'a.yaml'), A);
    writeFileSync(join(dir, 'm', 'b.yaml'), B);
    writeFileSync(join(dir, 'm', 'c.yaml'), C);
  }, 60_000);
  afterAll(async () => {
    await emu.stop();
  });

  const env = (): Record<string, string> => ({ COMPOSIO_BASE_URL: emu.url, COMPOSIO_API_KEY: KEY, COMPOSIO_API_VERSION: version });
  const run = (...args: string[]): Promise<CliResult> => runCli(args, { cwd: dir, env: env() });
  const json = (r: CliResult): Json => JSON.parse(r.stdout) as Json;
  const state = (): Array<{ name: string; user_id: string; session_id: string; mcp_url: string; config_version: number | null }> =>
    (JSON.parse(readFileSync(join(dir, '.sessionctl', 'state.json'), 'utf8')) as { sessions: never[] }).sessions;
  const live = async (): Promise<string[]> => {
    const res = await fetch(`${emu.url}/_emulator/sessions`, { headers: { 'x-api-key': KEY } });
    return ((await res.json()) as { sessions: Array<{ session_id: string }> }).sessions.map((s) => s.session_id).sort();
  };
  const get = (id: string): Promise<Response> => fetch(`${emu.url}/api/v3.1/tool_router/session/${id}`, { headers: { 'x-api-key': KEY } });
  /** The emulator holds exactly the sessions the state records. */
  const consistent = async (): Promise<void> => {
    expect(await live()).toEqual(state().map((e) => e.session_id).filter((id) => id !== '').sort());
  };
  const idOf = (name: string): string => state().find((e) => e.name === name)!.session_id;

  it('applies three manifests', async () => {
    const r = await run('apply', 'm', '--format', 'json');
    expect(r.exitCode, r.stderr).toBe(0);
    expect((json(r)['applied'] as Json)['tally']).toMatchObject({ created: 3, failed: 0 });
    expect(state().map((e) => e.name)).toEqual(['agent-a', 'agent-b', 'agent-c']);
    await consistent();
  });

  it('plans an edit (a toolkit added, a tag removed) as one update with exactly those two changes, at their lines', async () => {
    writeFileSync(join(dir, 'm', 'a.yaml'), A2);
    const r = await run('plan', 'm', '--format', 'json', '--detailed-exitcode');
    expect(r.exitCode).toBe(4);
    const items = (json(r)['plan'] as { items: Array<{ name: string; action: string; changes: Array<{ field: string; op: string; members?: unknown; range: { start: { line: number; col: number } } }> }> }).items;
    expect(items.map((i) => [i.name, i.action])).toEqual([
      ['agent-a', 'update'],
      ['agent-b', 'no-op'],
      ['agent-c', 'no-op'],
    ]);
    expect(items[0]!.changes.map((c) => [c.field, c.op, c.members ?? null, c.range.start])).toEqual([
      ['tags', 'remove', null, { line: 1, col: 1 }],
      ['toolkits.enable', 'change', { added: ['notion'], removed: [] }, { line: 4, col: 3 }],
    ]);
    const human = await run('plan', 'm');
    expect(human.stdout).toContain('~ toolkits.enable: + notion  m/a.yaml:4:3');
  });

  it('applies it in place: the same session id and MCP URL, config version 2', async () => {
    const before = state().find((e) => e.name === 'agent-a')!;
    const r = await run('apply', 'm', '--format', 'json');
    expect(r.exitCode, r.stdout).toBe(0);
    expect((json(r)['applied'] as Json)['tally']).toMatchObject({ created: 0, updated: 1, unchanged: 2 });
    const after = state().find((e) => e.name === 'agent-a')!;
    expect([after.session_id, after.mcp_url, after.config_version]).toEqual([before.session_id, before.mcp_url, 2]);
    await consistent();
  });

  it('repairs drift made behind its back: plan --refresh shows it, apply PATCHes it back', async () => {
    const id = idOf('agent-a');
    const patched = await fetch(`${emu.url}/_emulator/sessions/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify({ workbench: { enable: true } }) });
    expect(patched.status, await patched.text()).toBe(200);
    const plan = await run('plan', 'm', '--refresh', '--format', 'json');
    const a = (json(plan)['plan'] as { items: Array<{ name: string; action: string; reason: string; changes: Array<{ field: string; source: string; old: unknown; new: unknown }> }> }).items[0]!;
    expect([a.action, a.reason]).toEqual(['update', 'drifted']);
    expect(a.changes.map((c) => [c.field, c.source, c.old, c.new])).toContainEqual(['workbench.enable', 'drift', true, false]);
    const apply = await run('apply', 'm', '--format', 'json');
    expect(apply.exitCode, apply.stdout).toBe(0);
    expect((json(apply)['applied'] as Json)['tally']).toMatchObject({ updated: 1, drifted: 0 });
    expect(idOf('agent-a')).toBe(id);
    expect((await run('diff', 'm')).exitCode).toBe(0);
    await consistent();
  });

  it('replaces what PATCH cannot change (user_id), and leaves one live session for it', async () => {
    const old = idOf('agent-b');
    writeFileSync(join(dir, 'm', 'b.yaml'), B.replace('user_id: bob', 'user_id: bobby'));
    const plan = await run('plan', 'm', '--format', 'json');
    const b = (json(plan)['plan'] as { items: Array<{ name: string; action: string; reason: string }> }).items.find((i) => i.name === 'agent-b')!;
    expect([b.action, b.reason]).toEqual(['replace', 'user-changed']);
    expect((await run('plan', 'm')).stdout).toContain("PATCH cannot change a session's user");
    const apply = await run('apply', 'm', '--format', 'json');
    expect(apply.exitCode, apply.stdout).toBe(0);
    expect((json(apply)['applied'] as Json)['tally']).toMatchObject({ replaced: 1 });
    expect(state().filter((e) => e.name === 'agent-b').map((e) => e.user_id)).toEqual(['bobby']);
    expect(idOf('agent-b')).not.toBe(old);
    expect((await get(old)).status).toBe(404);
    await consistent();
  });

  it('prunes a removed manifest: plan --prune shows the delete, apply --prune deletes it', async () => {
    const gone = idOf('agent-c');
    rmSync(join(dir, 'm', 'c.yaml'));
    const quiet = await run('plan', 'm');
    expect(quiet.stdout).toContain(`1 recorded session has no manifest in these paths any more; --prune deletes it:\n  agent-c  user carol  ${gone}\n`);
    // apply without --prune names them too, in its report and its JSON.
    const kept = await run('apply', 'm');
    expect(kept.exitCode, kept.stdout).toBe(0);
    expect(kept.stdout).toContain(`\n1 recorded session has no manifest in these paths any more; --prune deletes it:\n  agent-c  user carol  ${gone}\n`);
    const keptJson = await run('apply', 'm', '--format', 'json');
    expect((json(keptJson)['applied'] as Json)['orphans']).toStrictEqual([{ name: 'agent-c', user_id: 'carol', session_id: gone }]);
    expect((json(await run('plan', 'm', '--format', 'json'))['plan'] as Json)['orphans']).toStrictEqual([{ name: 'agent-c', user_id: 'carol', session_id: gone }]);
    const plan = await run('plan', 'm', '--prune', '--format', 'json');
    expect((json(plan)['plan'] as { deletions: Array<{ name: string; session_id: string }> }).deletions.map((d) => [d.name, d.session_id])).toEqual([['agent-c', gone]]);
    // A bot that reads every change's action sees the delete beside the items' actions.
    const planned = json(plan)['plan'] as { items: Array<{ name: string; action: string }>; deletions: Array<{ name: string; action: string }> };
    expect([...planned.items, ...planned.deletions].map((c) => [c.name, c.action])).toEqual([
      ['agent-a', 'no-op'],
      ['agent-b', 'no-op'],
      ['agent-c', 'delete'],
    ]);
    const apply = await run('apply', 'm', '--prune', '--format', 'json');
    expect(apply.exitCode, apply.stdout).toBe(0);
    expect(apply.stderr).toContain(`apply --prune will delete 1 session:\n  - agent-c  user carol  ${gone}\n`);
    expect((json(apply)['applied'] as Json)['tally']).toMatchObject({ deleted: 1 });
    expect((await get(gone)).status).toBe(404);
    await consistent();
  });

  it('imports a session that exists already; the next plan is a no-op', async () => {
    const created = await fetch(`${emu.url}/api/v3/tool_router/session`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify({ user_id: 'dave', toolkits: { enable: ['slack'] } }) });
    const id = ((await created.json()) as { session_id: string }).session_id;
    writeFileSync(join(dir, 'm', 'd.yaml'), D);
    const r = await run('import', 'agent-d', id, 'm');
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stderr).toContain(`imported ${id} as agent-d (user dave)`);
    expect(idOf('agent-d')).toBe(id);
    expect((await run('plan', 'm', '--detailed-exitcode')).exitCode).toBe(0);
    await consistent();
  });

  it('exports a session into YAML that validates clean and plans as a no-op', async () => {
    const r = await run('export', 'agent-a', '--out', 'exported/agent-a.yaml');
    expect(r.exitCode, r.stderr).toBe(0);
    const text = readFileSync(join(dir, 'exported', 'agent-a.yaml'), 'utf8');
    expect(text).toMatch(/^# yaml-language-server: \$schema=/);
    expect(text).toContain('name: agent-a');
    expect((await run('validate', 'exported')).exitCode).toBe(0);
    expect((await run('plan', 'exported', '--detailed-exitcode')).exitCode).toBe(0);
    const yaml = await run('get', 'agent-a', '--format', 'yaml');
    expect(yaml.stdout.split('\n').slice(2).join('\n')).toBe(text.split('\n').slice(2).join('\n'));
  });

  it('lists the config versions of a session, and diffs two', async () => {
    const r = await run('history', 'agent-a', '--format', 'json', '--all');
    expect(r.exitCode, r.stderr).toBe(0);
    const items = (json(r) as { items: Array<{ version: number; is_current: boolean }> }).items;
    expect(items.map((i) => [i.version, i.is_current])).toEqual([
      [4, true],
      [3, false],
      [2, false],
      [1, false],
    ]);
    const diff = await run('history', 'agent-a', '--diff', '1', '2');
    expect(diff.stdout).toContain('+      "notion"');
  });

  it('destroys the rest', async () => {
    const refused = await run('destroy', 'm');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('elsewhere pass --auto-approve');
    expect(await live()).toHaveLength(3);
    const r = await run('destroy', 'm', '--auto-approve', '--format', 'json');
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect((json(r)['applied'] as Json)['tally']).toMatchObject({ deleted: 3, failed: 0 });
    expect(state()).toEqual([]);
    expect(await live()).toEqual([]);
  });
});

describe('diff --mcp: what an agent sees at mcp.url, against what the manifest expects', () => {
  let emu: SpawnedEmulator;
  let dir: string;
  beforeAll(async () => {
    emu = await spawnEmulator(['--port', '0', '--api-key', KEY]);
    dir = tempDir('diff-mcp');
    writeFileSync(join(dir, 'a.yaml'), 'name: agent-a\nuser_id: alice\nmanage_connections:\n  enable: true\n');
  }, 60_000);
  afterAll(async () => {
    await emu.stop();
  });
  const run = (...args: string[]): Promise<CliResult> => runCli(args, { cwd: dir, env: { COMPOSIO_BASE_URL: emu.url, COMPOSIO_API_KEY: KEY } });

  it('is in sync after apply, and reports a tool the MCP endpoint no longer lists at the key that decides it', async () => {
    expect((await run('apply', 'a.yaml')).exitCode).toBe(0);
    expect((await run('diff', 'a.yaml', '--mcp')).exitCode).toBe(0);
    const id = (JSON.parse(readFileSync(join(dir, '.sessionctl', 'state.json'), 'utf8')) as { sessions: Array<{ session_id: string }> }).sessions[0]!.session_id;
    const patched = await fetch(`${emu.url}/_emulator/sessions/${id}`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'x-api-key': KEY }, body: JSON.stringify({ manage_connections: { enable: false } }) });
    expect(patched.status).toBe(200);
    const r = await run('diff', 'a.yaml', '--mcp', '--format', 'json');
    expect(r.exitCode).toBe(1);
    const found = (JSON.parse(r.stdout) as { diagnostics: Array<{ code: string; message: string; range: { start: { line: number; col: number } } }> }).diagnostics;
    expect(found.filter((d) => d.message.includes('over MCP')).map((d) => [d.code, d.range.start, d.message])).toEqual([
      ['drift/changed', { line: 4, col: 3 }, 'agent-a: over MCP the session does not expose meta tool COMPOSIO_MANAGE_CONNECTIONS'],
    ]);
  });
});
