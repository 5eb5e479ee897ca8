import { join } from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { applyWorld, type ApplyWorld } from './apply-helpers.js';

// Line numbers matter: drift findings must land on these lines.
const SUPPORT = `name: support
user_id: support-bot
toolkits:
  enable:
    - gmail
    - slack
workbench:
  enable: false
`;
const QUIET = `name: quiet
user_id: quiet-bot
`;

let world: ApplyWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function sessionOf(w: ApplyWorld, name: string): Promise<string> {
  return (await w.state()).sessions.find((s) => s.name === name)!.session_id;
}

function found(stdout: string): Array<[string, string, number, number, string]> {
  return JSON.parse(stdout).diagnostics.map((d: any) => [d.code, d.file, d.range.start.line, d.range.start.col, d.pointer]);
}

describe('drift injected through the emulator admin API', () => {
  test('diff and apply report it at the declared line, exit 1; an in-sync session is exit 0', async () => {
    world = await applyWorld({ 'support.yaml': SUPPORT, 'quiet.yaml': QUIET });
    expect((await world.run(['apply', '.'])).exitCode).toBe(0);
    const clean = await world.run(['diff', '.']);
    expect(clean.exitCode).toBe(0);
    expect(clean.stdout).toContain('2 of 2 in sync');

    const id = await sessionOf(world, 'support');
    await world.admin('POST', `sessions/${id}/config`, {
      config: { workbench: { enable: true }, toolkits: { enabled: ['gmail'] } },
      tool_router_tools: ['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_GET_TOOL_SCHEMAS', 'COMPOSIO_MULTI_EXECUTE_TOOL', 'COMPOSIO_MANAGE_CONNECTIONS', 'COMPOSIO_REMOTE_WORKBENCH', 'COMPOSIO_REMOTE_BASH_TOOL'],
    });

    const diff = await world.run(['diff', '.', '--format', 'json']);
    expect(diff.exitCode).toBe(1);
    expect(found(diff.stdout)).toEqual([
      ['drift/changed', 'support.yaml', 6, 7, '/toolkits/enable/1'],
      ['drift/changed', 'support.yaml', 8, 3, '/workbench/enable'],
      ['drift/changed', 'support.yaml', 8, 3, '/workbench/enable'],
      ['drift/changed', 'support.yaml', 8, 3, '/workbench/enable'],
    ]);
    const drift = JSON.parse(diff.stdout).drift.items;
    expect(drift.map((i: any) => [i.name, i.status])).toEqual([
      ['quiet', 'in-sync'],
      ['support', 'drifted'],
    ]);

    const human = await world.run(['diff', '.']);
    expect(human.exitCode).toBe(1);
    expect(human.stdout).toContain('support.yaml:8:3  error  support: config.workbench.enable is true at the service, declared false  drift/changed');
    expect(human.stdout).toContain('--- support (declared)');
    expect(human.stdout).toContain(`+++ ${id} (effective)`);
    expect(human.stdout).toContain('  -      "enable": false,\n  +      "enable": true,');

    const github = await world.run(['diff', '.', '--format', 'github']);
    expect(github.stdout).toContain('::error file=support.yaml,line=8,col=3,');

    // With --refresh=false apply does not look: nothing is sent, the drift stays.
    const blind = await world.run(['apply', '.', '--refresh=false', '--format', 'json']);
    expect(blind.exitCode).toBe(0);
    expect(JSON.parse(blind.stdout).applied.tally).toMatchObject({ updated: 0, unchanged: 2, drifted: 0 });
    expect((await world.run(['diff', '.'])).exitCode).toBe(1);

    // apply reads recorded sessions first and repairs the drift in place: the same session, a PATCH.
    const before = await world.state();
    const apply = await world.run(['apply', '.', '--format', 'json']);
    expect(apply.exitCode).toBe(0);
    expect(JSON.parse(apply.stdout).applied.items.map((i: { name: string; outcome: string }) => [i.name, i.outcome])).toEqual([
      ['quiet', 'unchanged'],
      ['support', 'updated'],
    ]);
    expect(JSON.parse(apply.stdout).applied.tally).toEqual({ created: 0, updated: 1, replaced: 0, deleted: 0, unchanged: 1, drifted: 0, failed: 0 });
    expect(await world.creates()).toBe(2);
    expect((await world.state()).sessions.map((s) => s.session_id)).toEqual(before.sessions.map((s) => s.session_id));
    const after = await world.run(['diff', '.']);
    expect(after.exitCode).toBe(0);
  });

  test('a value the manifest does not declare is added: a warning, drift only with --strict', async () => {
    world = await applyWorld({ 'quiet.yaml': QUIET });
    expect((await world.run(['apply', 'quiet.yaml'])).exitCode).toBe(0);
    await world.admin('POST', `sessions/${await sessionOf(world, 'quiet')}/config`, { config: { tags: { enabled: ['readOnlyHint'] } } });
    const lax = await world.run(['diff', 'quiet.yaml', '--format', 'json']);
    expect(lax.exitCode).toBe(0);
    expect(found(lax.stdout)).toEqual([['drift/added', 'quiet.yaml', 1, 1, '']]);
    expect((await world.run(['diff', 'quiet.yaml', '--strict'])).exitCode).toBe(1);
  });

  test('a dropped key is reported at its line', async () => {
    world = await applyWorld({ 'support.yaml': SUPPORT });
    expect((await world.run(['apply', 'support.yaml'])).exitCode).toBe(0);
    await world.admin('POST', `sessions/${await sessionOf(world, 'support')}/config`, { config: { toolkits: null } });
    const r = await world.run(['diff', 'support.yaml', '--format', 'json']);
    expect(r.exitCode).toBe(1);
    expect(found(r.stdout)).toEqual([['drift/dropped', 'support.yaml', 4, 3, '/toolkits/enable']]);
  });

  test('a manifest never applied is a finding; --session audits any live session', async () => {
    world = await applyWorld({ 'support.yaml': SUPPORT, 'quiet.yaml': QUIET });
    // No state at all is not "nothing applied": it is a state that is not there (a mistyped path).
    const none = await world.run(['diff', 'support.yaml', '--format', 'json']);
    expect([none.exitCode, none.stderr]).toEqual([2, `error: ${join(world.dir, '.sessionctl', 'state.json')}: no state file is there: nothing was ever applied with this state, or the path is mistyped (a pipeline must restore or share its state: see PostgreSQL in docs/state.md)\n`]);

    expect((await world.run(['apply', 'quiet.yaml'])).exitCode).toBe(0);
    const r = await world.run(['diff', 'support.yaml', '--format', 'json']);
    expect(r.exitCode).toBe(1);
    expect(found(r.stdout)).toEqual([['state/not-applied', 'support.yaml', 1, 1, '/name']]);
    const quietId = await sessionOf(world, 'quiet');
    // The quiet session audited against the support manifest: everything it declares differs.
    const audit = await world.run(['diff', 'support.yaml', '--session', quietId, '--format', 'json']);
    expect(audit.exitCode).toBe(1);
    expect(found(audit.stdout).map((f) => f[4])).toContain('/user_id');
    const self = await world.run(['diff', 'quiet.yaml', '--session', quietId]);
    expect(self.exitCode).toBe(0);

    const gone = await world.run(['diff', 'quiet.yaml', '--session', 'trs_doesnotexist']);
    expect(gone.exitCode).toBe(1);
    expect(gone.stdout).toContain('state/session-missing');
    expect((await world.run(['diff', '.', '--session', quietId])).exitCode).toBe(2);
  });

  test('a create answered with another config: apply reports the drift, exits 1, and still records the session', async () => {
    world = await applyWorld({ 'support.yaml': SUPPORT });
    // A service of its own that silently ignores the allowlist and keeps the workbench on.
    const answer = {
      session_id: 'trs_servedOther01',
      mcp: { type: 'http', url: 'https://example.test/tool_router/v3/trs_servedOther01/mcp' },
      tool_router_tools: ['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_GET_TOOL_SCHEMAS', 'COMPOSIO_MULTI_EXECUTE_TOOL', 'COMPOSIO_MANAGE_CONNECTIONS'],
      config: { user_id: 'support-bot', workbench: { enable: true } },
    };
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const ok = req.method === 'POST' && req.url === '/api/v3/tool_router/session';
        res.writeHead(ok ? 201 : 404, { 'content-type': 'application/json' });
        res.end(JSON.stringify(ok ? answer : { error: { message: 'not found', code: 404, slug: 'NotFound', status: 404 } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await world.run(['apply', 'support.yaml', '--format', 'json'], { COMPOSIO_BASE_URL: base });
      expect(r.exitCode).toBe(1);
      const report = JSON.parse(r.stdout);
      expect(report.applied.items.map((i: any) => [i.outcome, i.session_id, i.drifted])).toEqual([['created', 'trs_servedOther01', true]]);
      expect(found(r.stdout)).toEqual([
        ['drift/dropped', 'support.yaml', 4, 3, '/toolkits/enable'],
        ['drift/changed', 'support.yaml', 8, 3, '/workbench/enable'],
      ]);
      expect((await world.state()).sessions.map((s) => s.session_id)).toEqual(['trs_servedOther01']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
