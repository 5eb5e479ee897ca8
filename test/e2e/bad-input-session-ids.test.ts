/**
 * Issue 29, item 6: what the service sends is checked before it is used or written. A session id
 * has the service's form (`trs_` and up to 128 base64url characters) wherever it comes from (an
 * answer, the state file, `state push`, the command line); an MCP URL holds no control character.
 * A hostile answer is refused with a code (a create's outcome is then unknown), never written raw
 * to `$GITHUB_OUTPUT`, the state or a terminal. A malformed percent-escape in a state URL is exit 2
 * with a message, not a stack trace. The service here is a loopback server the test starts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { STACK_LINE } from './bad-input-cases.js';
import { hostileService, sessionAnswer, type HostileService } from './hostile-service.js';

const open: HostileService[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

const GOOD = 'trs_AbC-12_xyz';

/** Nothing the service or a file sent reaches an output raw. */
function expectInert(text: string): void {
  expect(text).not.toMatch(/[\u0007\u001b\r]/);
  expect(text).not.toMatch(/^::(?!error |warning |notice )/m);
  expect(text).not.toMatch(STACK_LINE);
}

async function service(id: string, mcpUrl: (url: string) => string): Promise<HostileService> {
  const s = await hostileService([
    { method: 'POST', path: /\/session$/, answer: (url) => ({ status: 201, body: sessionAnswer(id, mcpUrl(url)) }) },
    { method: 'GET', path: /\/session\//, answer: (url) => ({ status: 200, body: sessionAnswer(id, mcpUrl(url)) }) },
  ]);
  open.push(s);
  return s;
}

const mcp = (url: string): string => `${url}/mcp`;

describe('a create answered with a session id or MCP URL of another form', () => {
  const answers: Array<[string, string, (url: string) => string]> = [
    // The examples.
    ['an id with ESC', 'trs_a\u001b[2Jb', mcp],
    ['an id with BEL', 'trs_a\u0007b', mcp],
    ['an id with a newline that forges an output', 'trs_a\nevil_mcp_url=https://evil.example', mcp],
    ['an MCP URL with ESC', GOOD, (url) => `${url}/mcp\u001b]8;;https://evil.example\u0007`],
    ['an MCP URL with a newline', GOOD, (url) => `${url}/mcp\nevil_session_id=trs_forged`],
    // New variants of the same class.
    ['an id of dot segments', 'trs_/../../admin', mcp],
    ['an id that is `..`', '..', mcp],
    ['an id with a slash', 'trs_a/b', mcp],
    ['an id without the prefix', 'sess_123', mcp],
    ['an id of 129 characters', `trs_${'a'.repeat(129)}`, mcp],
    ['an id with a right-to-left override', 'trs_a\u202eb', mcp],
    ['an id that is a number', 42 as unknown as string, mcp],
    ['an MCP URL with a carriage return', GOOD, (url) => `${url}/mcp\r::error::forged`],
    ['an MCP URL of another scheme', GOOD, () => 'javascript:alert(1)'],
    ['an MCP URL with a C1 control', GOOD, (url) => `${url}/mcp\u009b2J`],
  ];

  it.each(answers)('%s: apply/outcome-unknown (exit 3), nothing in $GITHUB_OUTPUT or the state but the unknown outcome', async (_name, id, url) => {
    const s = await service(id, url);
    const dir = tempDir('hostile-id');
    await writeFile(join(dir, 'm.yaml'), 'name: evil\nuser_id: u1\ntoolkits: [gmail]\n');
    const output = join(dir, 'github-output.txt');
    const r = await runCli(['apply', 'm.yaml', '--github-output', '--format', 'json'], { cwd: dir, env: { COMPOSIO_API_KEY: 'ak_hostile_ids_0001', COMPOSIO_BASE_URL: s.url, GITHUB_OUTPUT: output } });
    expect(r.exitCode, r.stderr).toBe(3);
    const report = JSON.parse(r.stdout) as { applied: { items: Array<{ outcome: string; session_id?: string; diagnostics: Array<{ code: string; message: string }> }> } };
    const item = report.applied.items[0]!;
    expect([item.outcome, item.session_id ?? null, item.diagnostics.map((d) => d.code)]).toEqual(['outcome-unknown', null, ['apply/outcome-unknown']]);
    expect(item.diagnostics[0]!.message).toMatch(/the service answered 201 with a session sessionctl refuses: .* (is not a session id|holds a control character|is not an http or https URL)/);
    expectInert(r.stdout + r.stderr);
    expect(await readFile(output, 'utf8').catch(() => '')).toBe('');
    const state = await readFile(join(dir, '.sessionctl', 'state.json'), 'utf8');
    expect(JSON.parse(state).sessions.map((e: { session_id: string; mcp_url: string; pending_create?: { status: string } }) => [e.session_id, e.mcp_url, e.pending_create?.status])).toEqual([['', '', 'unknown']]);
    expect(s.received.filter((q) => q.method === 'POST')).toHaveLength(1);
  });

  it('the same answers to a read of a recorded session are refused too (get: exit 3, nothing printed raw)', async () => {
    for (const [, id, url] of answers.slice(0, 5)) {
      const s = await service(id, url);
      const r = await runCli(['get', GOOD], { cwd: tempDir('hostile-get'), env: { COMPOSIO_API_KEY: 'ak_hostile_ids_0001', COMPOSIO_BASE_URL: s.url } });
      expect(r.exitCode, r.stderr).toBe(3);
      expect(r.stderr).toContain('with a session sessionctl refuses');
      expectInert(r.stdout + r.stderr);
    }
  });

  it('an answer about another session than the one asked for is refused', async () => {
    const s = await service('trs_someone_else', mcp);
    const r = await runCli(['get', GOOD], { cwd: tempDir('hostile-other'), env: { COMPOSIO_API_KEY: 'ak_hostile_ids_0001', COMPOSIO_BASE_URL: s.url } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain(`the answer is about session "trs_someone_else", not ${GOOD}`);
  });
});

describe('session ids on the command line', () => {
  it.each([
    ['dot segments', 'trs_../../admin'],
    ['a slash', 'trs_a/b'],
    ['ESC', 'trs_a\u001b[2J'],
    ['a newline', 'trs_a\nb'],
    ['a query', 'trs_a?x=1'],
    ['a percent-escape', 'trs_a%2F..'],
    ['too long', `trs_${'a'.repeat(129)}`],
  ])('with %s: exit 2 before any request, the id shown escaped', async (_name, id) => {
    const s = await service(GOOD, mcp);
    for (const argv of [['get', id], ['history', id], ['diff', 'm.yaml', '--session', id]]) {
      const dir = tempDir('cli-id');
      await writeFile(join(dir, 'm.yaml'), 'name: ok\nuser_id: u1\ntoolkits: [gmail]\n');
      const r = await runCli(argv, { cwd: dir, env: { COMPOSIO_API_KEY: 'ak_hostile_ids_0001', COMPOSIO_BASE_URL: s.url } });
      expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toContain(JSON.stringify(id).slice(0, 40));
      expectInert(r.stdout + r.stderr);
    }
    expect(s.received).toEqual([]);
  });
});

describe('session ids in the state and in `state push`', () => {
  const entry = (over: Record<string, unknown>): Record<string, unknown> => ({ name: 'a', user_id: 'u', session_id: GOOD, mcp_url: 'http://127.0.0.1:1/mcp', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z', ...over });
  it.each([
    ['an id of dot segments', { session_id: '../../etc' }],
    ['an id with ESC', { session_id: 'trs_a\u001b]0;pwned\u0007' }],
    ['an id with a newline', { session_id: 'trs_a\nb' }],
    ['an id with a slash', { session_id: 'trs_a/../b' }],
    ['an MCP URL with ESC', { mcp_url: 'http://x/mcp\u001b[2J' }],
    ['an MCP URL with a newline', { mcp_url: 'http://x/mcp\nevil=1' }],
    ['a superseded id with a slash', { superseded: ['trs_a/b'] }],
  ])('%s: the state file is refused (exit 2) by plan and state list; state push refuses it and writes nothing', async (_name, over) => {
    const dir = tempDir('state-id');
    await writeFile(join(dir, 'm.yaml'), 'name: a\nuser_id: u\ntoolkits: [gmail]\n');
    const doc = JSON.stringify({ version: 2, sessions: [entry(over)] });
    await writeFile(join(dir, 'bad.json'), doc);
    for (const argv of [['plan', 'm.yaml', '--state', 'bad.json'], ['state', 'list', '--state', 'bad.json']]) {
      const r = await runCli(argv, { cwd: dir, env: {} });
      expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/not valid|session id|control character/);
      expectInert(r.stdout + r.stderr);
    }
    const pushed = await runCli(['state', 'push', 'bad.json', '--state', 'target.json'], { cwd: dir, env: {} });
    expect(pushed.exitCode, pushed.stderr).toBe(2);
    expectInert(pushed.stdout + pushed.stderr);
    await expect(readFile(join(dir, 'target.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

describe('a malformed percent-escape in a state URL', () => {
  it.each([
    ['in the user', 'postgres://u%zz@db.invalid/sessions', "the state URL's user has a malformed percent-escape"],
    ['at the end of the user', 'postgres://u%@db.invalid/sessions', "the state URL's user has a malformed percent-escape"],
    ['in the database', 'postgres://u@db.invalid/s%zzessions', "the state URL's database name has a malformed percent-escape"],
    ['not UTF-8', 'postgres://u@db.invalid/%C3%28', "the state URL's database name has a malformed percent-escape"],
    ['a newline once decoded', 'postgres://u%0A@db.invalid/sessions', "the state URL's user holds a control character once decoded"],
    ['ESC once decoded', 'postgres://u@db.invalid/s%1Bx', "the state URL's database name holds a control character once decoded"],
  ])('%s: exit 2 with a message, no stack trace, no connection', async (_name, url, message) => {
    const dir = tempDir('pg-url');
    await writeFile(join(dir, 'm.yaml'), 'name: a\nuser_id: u\ntoolkits: [gmail]\n');
    for (const argv of [['plan', 'm.yaml', '--state', url], ['state', 'list', '--state', url]]) {
      const r = await runCli(argv, { cwd: dir, env: { PGPASSWORD: 'pg-never-shown' } });
      expect(r.exitCode, r.stderr).toBe(2);
      expect(r.stderr.split('\n')[0]).toBe(`error: ${message}${message.endsWith('decoded') ? '' : ' (a % not followed by two hex digits of UTF-8)'}`);
      expect(r.stderr).not.toMatch(/unexpected error|URIError/);
      expect(r.stdout + r.stderr).not.toContain('pg-never-shown');
      expectInert(r.stdout + r.stderr);
    }
  });

  it('a password with a malformed escape in sessionctl.yaml is config/secret (exit 2), not a stack trace', async () => {
    const dir = tempDir('pg-url-config');
    await writeFile(join(dir, 'sessionctl.yaml'), 'state: postgres://u:%zzsecret@db.invalid/sessions\n');
    await writeFile(join(dir, 'm.yaml'), 'name: a\nuser_id: u\ntoolkits: [gmail]\n');
    const r = await runCli(['validate', 'm.yaml', '--format', 'json'], { cwd: dir, env: {} });
    expect(r.exitCode, r.stderr).toBe(2);
    expect((JSON.parse(r.stdout) as { diagnostics: Array<{ code: string }> }).diagnostics.map((d) => d.code)).toEqual(['config/secret']);
    expect(r.stdout).not.toContain('%zzsecret');
  });
});
