import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { allCommands } from '../../src/cli/commands/index.js';
import { memoryIo } from '../../src/cli/io.js';
import { runCli as runWith } from '../../src/cli/run.js';
import { startEmulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { hostileService, sessionAnswer, type HostileService } from './hostile-service.js';
import { everyFormat } from './sentinel-world.js';

/**
 * Issue 14, items 5, 13 and 11. Text from outside (ids and URLs from the service, manifest keys,
 * file names) cannot drive a terminal or forge a workflow command in any format; a refused key is
 * one line and stops the run; an interrupted download leaves no temp file.
 */
const open: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

/** What each format may not carry: an escape character, a line that a runner reads as a command. */
function expectInert(where: string, text: string): void {
  expect(text.includes('\u001b'), `${where}: a raw escape character`).toBe(false);
  expect(text.includes('\r'), `${where}: a raw carriage return`).toBe(false);
  expect(text.includes('##['), `${where}: a legacy ##[command]`).toBe(false);
  const commands = text.split('\n').filter((l) => /^\s*::/.test(l));
  // Only --format github writes workflow commands, and only its own annotations.
  for (const line of commands) expect(line, `${where}: a forged workflow command`).toMatch(/^::(error|warning|notice) (file=[^:]*,)?(line=\d+,col=\d+,endLine=\d+,endColumn=\d+,)?title=[a-z-]+\/[a-z-]+::/);
}

async function everyOutput(dir: string, streams: string[]): Promise<Array<[string, string]>> {
  const reports = await readdir(join(dir, 'reports')).catch(() => [] as string[]);
  return [...streams.map((s, i): [string, string] => [`stream ${i}`, s]), ...(await Promise.all(reports.map(async (f): Promise<[string, string]> => [f, await readFile(join(dir, 'reports', f), 'utf8')])))];
}

const FORGED = '\u001b[2J\u001b]8;;https://evil.example\u0007\r\n::error::forged by the service\n##[error]legacy';

describe('text from outside is inert in every format (item 5)', () => {
  test('session ids and MCP URLs with escape sequences, line breaks and workflow commands', async () => {
    const id = `trs_evil${FORGED}|cell`;
    const service = await hostileService([
      { method: 'POST', path: /\/session$/, answer: (url) => ({ status: 201, body: sessionAnswer(id, `${url}/mcp${FORGED}`) }) },
      { method: 'GET', path: /\/session\//, answer: (url) => ({ status: 200, body: sessionAnswer(id, `${url}/mcp${FORGED}`) }) },
    ]);
    open.push(service);
    const dir = tempDir('hostile-ids');
    await writeFile(join(dir, 'm.yaml'), 'name: evil\nuser_id: u1\ntoolkits: [gmail]\n');
    const env = { COMPOSIO_API_KEY: 'ak_hostile_ids_key_0001', COMPOSIO_BASE_URL: service.url, GITHUB_OUTPUT: join(dir, 'github-output.txt') };
    const streams: string[] = [];
    for (const argv of [
      ['apply', 'm.yaml', '--verbose', '--github-output', ...everyFormat('apply')],
      ['plan', 'm.yaml', '--refresh', ...everyFormat('plan')],
      ['diff', 'm.yaml', '--strict', ...everyFormat('diff')],
      ['get', 'evil', '--verbose'],
    ]) {
      const r = await runCli(argv, { cwd: dir, env });
      // Issue 29: such an answer is refused (the create's outcome is unknown, exit 3), never used.
      expect(r.exitCode, `${argv[0]}: ${r.stderr}`).toBeLessThanOrEqual(argv[0] === 'apply' ? 3 : 2);
      streams.push(r.stdout, r.stderr);
    }
    expect(service.received.map((r) => r.method)).toContain('POST');
    for (const [where, text] of await everyOutput(dir, streams)) expectInert(where, text);
    // $GITHUB_OUTPUT gets nothing from a refused answer: no line from the service makes an output.
    expect(await readFile(join(dir, 'github-output.txt'), 'utf8').catch(() => '')).toBe('');
  });

  test('manifest keys and file names with escape sequences, line breaks and workflow commands', async () => {
    const dir = tempDir('hostile-keys');
    await writeFile(join(dir, 'evil##[warning]name.yaml'), `name: evil\nuser_id: u1\ntoolkits: [gmail]\n${JSON.stringify(`bad${FORGED}`)}: 1\nworkbench: { sandbox_size: ${JSON.stringify(`x${FORGED}`)} }\n`);
    const r = await runCli(['validate', '.', ...everyFormat('validate')], { cwd: dir });
    expect(r.exitCode).toBe(1);
    const github = await runCli(['validate', '.', '--format', 'github'], { cwd: dir });
    expect(github.stdout.split('\n').filter((l) => l.startsWith('::error ')).length).toBe(2);
    for (const [where, text] of await everyOutput(dir, [r.stdout, r.stderr, github.stdout])) expectInert(where, text);
  });
});

describe('a refused key (item 13)', () => {
  test.each([
    ['apply (the refresh reads first)', ['apply', 'm']],
    ['plan --refresh', ['plan', 'm', '--refresh']],
    ['diff', ['diff', 'm']],
  ])('%s: one line naming the problem, exit 3, nothing else done', async (_name, argv) => {
    const emulator = await startEmulator({ port: 0, apiKeys: ['ak_the_right_key_000001'] });
    open.push(emulator);
    const dir = tempDir('refused-key');
    await mkdir(join(dir, 'm'));
    for (const n of ['a', 'b', 'c', 'd', 'e']) await writeFile(join(dir, 'm', `${n}.yaml`), `name: ${n}\nuser_id: u1\ntoolkits: [gmail]\n`);
    const good = { COMPOSIO_BASE_URL: emulator.url, COMPOSIO_API_KEY: 'ak_the_right_key_000001' };
    expect((await runCli(['apply', 'm'], { cwd: dir, env: good })).exitCode).toBe(0);
    // A state bound to the good key refuses another before any request (test/e2e/guard-rails); one
    // written before bindings existed reaches the service, which refuses the key: that is this case.
    const bound = JSON.parse(await readFile(join(dir, '.sessionctl/state.json'), 'utf8')) as Record<string, unknown>;
    delete bound['binding'];
    await writeFile(join(dir, '.sessionctl/state.json'), JSON.stringify(bound, null, 2) + '\n');
    const state = await readFile(join(dir, '.sessionctl/state.json'), 'utf8');

    const r = await runCli(argv, { cwd: dir, env: { ...good, COMPOSIO_API_KEY: 'ak_a_revoked_key_0000001' } });
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^error: the service refused the API key \(HTTP 401\): .*; the run stopped there\. Check COMPOSIO_API_KEY/)]);
    expect(await readFile(join(dir, '.sessionctl/state.json'), 'utf8')).toBe(state);
  });

  test('apply with nothing recorded: the first create refused stops the others, and no intent is left', async () => {
    const emulator = await startEmulator({ port: 0, apiKeys: ['ak_the_right_key_000001'], adminKeys: ['ak_the_admin_key_000001'] });
    open.push(emulator);
    const dir = tempDir('refused-create');
    for (const n of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) await writeFile(join(dir, `${n}.yaml`), `name: ${n}\nuser_id: u1\ntoolkits: [gmail]\n`);
    const r = await runCli(['apply', '.', '--concurrency', '1'], { cwd: dir, env: { COMPOSIO_BASE_URL: emulator.url, COMPOSIO_API_KEY: 'ak_a_revoked_key_0000001' } });
    expect(r.exitCode).toBe(3);
    expect(r.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(/^note: new state at /), expect.stringMatching(/^error: the service refused the API key \(HTTP 401\)/)]);
    // The admin key's count: the refused key's create belongs to no tenant.
    const stats = (await (await fetch(`${emulator.url}/_emulator/stats`, { headers: { 'x-api-key': 'ak_the_admin_key_000001' } })).json()) as { routes: { create?: { received: number } } };
    expect(stats.routes.create?.received).toBe(1);
    // Nothing recorded, and no binding to the refused key either: the right key is not refused next.
    expect(JSON.parse(await readFile(join(dir, '.sessionctl/state.json'), 'utf8'))).toEqual({ version: 2, sessions: [] });
  });
});

describe('files get, interrupted (item 11)', () => {
  test('Ctrl-C during the transfer: exit 130, no temp file and no target left', async () => {
    let served = false;
    const service: HostileService = await hostileService([
      {
        method: 'POST',
        path: /\/mounts\/files\/download_url$/,
        answer: (url) => ({ status: 201, body: { download_url: `${url}/blob/report.csv`, mount_relative_path: 'report.csv', sandbox_mount_prefix: '/mnt/files', expires_at: '2030-01-01T00:00:00Z' } }),
      },
      {
        method: 'GET',
        path: /^\/blob\//,
        answer: () => {
          served = true;
          return { status: 200, headers: { 'content-type': 'text/csv', 'content-length': '1000000' }, stall: 'id,amount\n1,2\n' };
        },
      },
    ]);
    open.push(service);
    const dir = tempDir('files-get-interrupt');
    let handler: ((signal: 'SIGINT' | 'SIGTERM') => void) | undefined;
    const io = { ...memoryIo({ cwd: dir, env: { COMPOSIO_API_KEY: 'ak_files_get_key_000001', COMPOSIO_BASE_URL: service.url } }), onSignal: (h: (signal: 'SIGINT' | 'SIGTERM') => void) => ((handler = h), () => undefined) };
    const done = runWith(['files', 'get', 'trs_files0001', 'report.csv', 'copy.csv'], io, allCommands);
    // The transfer is under way once its temp file exists.
    for (let i = 0; i < 400 && !(served && (await readdir(dir)).some((f) => f.endsWith('.tmp'))); i++) await new Promise((r) => setTimeout(r, 10));
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toHaveLength(1);
    handler!('SIGINT');
    expect(await done).toBe(130);
    expect(await readdir(dir)).toEqual([]);
    expect(io.err()).toContain('files get: SIGINT received: the download was stopped and nothing was written');
  });
});
