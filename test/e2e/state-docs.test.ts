import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import YAML from 'yaml';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { parsePostgresUrl } from '../../src/state/postgres-url.js';
import { db, dropSchema, sql, stateUrl, uniqueSchema } from '../helpers/postgres.js';
import { runCli } from '../helpers/run-cli.js';
import { writeManifests } from './state-processes.js';
import { skipBecause } from '../helpers/skip.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * The docs on state stay true (they were the README's state sections): the application's lookup
 * snippet (docs/library.md) runs as written (its TypeScript compiled, `sessionctl` pointed at
 * dist/) against a state an apply wrote, so does the per-user snippet (docs/per-user.md), and the
 * CI recipes (docs/ci.md) keep a deployment's state in PostgreSQL (never a URL with a password,
 * never a state file), with the service container only where a job rehearses.
 */

const read = (page: string): string => readFileSync(fileURLToPath(new URL(`../../${page}`, import.meta.url)), 'utf8');
const distIndex = fileURLToPath(new URL('../../dist/index.js', import.meta.url));

/** The first fenced block of `lang` after `heading` in `page`. */
function blockAfter(page: string, heading: string, lang: string, containing = ''): string {
  const text = read(page);
  const from = text.indexOf(heading);
  expect(from, heading).toBeGreaterThan(-1);
  const re = new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g');
  re.lastIndex = from;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) if (m[1]!.includes(containing)) return m[1]!;
  throw new Error(`no ${lang} block after ${heading} in ${page}`);
}

describe('the docs on state', () => {
  test('the CI recipes deploy with a PostgreSQL state from secrets, and use a service container only to rehearse', () => {
    const gh = YAML.parse(blockAfter('docs/ci.md', '## GitHub Actions', 'yaml', 'sessions-deploy.yml')) as { jobs: Record<string, { env: Record<string, string>; services?: Record<string, { image: string }>; steps: Array<{ with?: Record<string, string> }> }> };
    const { rehearse, deploy } = gh.jobs as Record<string, (typeof gh.jobs)[string]>;
    expect(deploy!.env['SESSIONCTL_STATE']).toBe('${{ vars.SESSIONCTL_STATE }}');
    expect(deploy!.env['PGPASSWORD']).toMatch(/^\$\{\{ secrets\./);
    expect(deploy!.services).toBeUndefined();
    expect(deploy!.steps.some((s) => s.with?.['state'] !== undefined)).toBe(false);
    expect(rehearse!.services?.['postgres']?.image).toMatch(/^postgres:/);
    expect(rehearse!.steps.find((s) => s.with?.['command'] === 'apply')?.with?.['args']).toContain('--emulator');
    const gl = YAML.parse(blockAfter('docs/ci.md', '## GitLab CI', 'yaml', 'sessions:deploy')) as Record<string, { variables?: Record<string, string>; services?: unknown[]; script?: string[] }>;
    expect(gl['sessions:deploy']!.services).toBeUndefined();
    expect(gl['sessions:rehearse']!.services).toHaveLength(1);
    expect(gl['sessions:rehearse']!.script!.join('\n')).toContain('--emulator');
    // Every state URL in the README and docs/ is one sessionctl accepts: none carries a password.
    const pages = ['README.md', ...readdirSync(fileURLToPath(new URL('../../docs', import.meta.url))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const urls = [...pages.map(read).join('\n').matchAll(/postgres:\/\/[^\s'"`)]+/g)].map((m) => m[0].replace(/[:.,]+$/, '')).filter((u) => !u.includes('USER@HOST') && !['postgres://...', 'postgres://'].includes(u));
    expect(urls.length).toBeGreaterThan(5);
    for (const u of urls) expect(() => parsePostgresUrl(u, {}), u).not.toThrow();
  });

  test('it says what the file backend does in CI', () => {
    expect(read('docs/state.md')).toMatch(/## The file backend in CI\n\n[^#]*creates every session again,\s+on every run/);
  });
});

describe.skipIf(skipBecause(db === null, 'needs a PostgreSQL server (the run printed why there is none)'))('the application\'s lookup and ensure, as docs/library.md and docs/per-user.md write them', () => {
  const schema = uniqueSchema('readme');
  let dir: string;
  let emu: RunningEmulator;
  beforeAll(async () => {
    dir = tempDir('readme');
    await writeManifests(dir, 1);
    emu = await startEmulator({ port: 0 });
  });
  // A snippet that ignores SIGTERM never exits on its own: the test fails on its timeout, and this ends it.
  const children = new Set<ChildProcess>();
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await emu.close();
    await rm(dir, { recursive: true, force: true });
    await dropSchema(db!, schema);
  });

  /** Runs a docs snippet (TypeScript, `sessionctl` pointed at dist/) with `tail` appended: its exit code, stderr and stdout. */
  async function runSnippet(snippet: string, tail: string, env: Record<string, string>, onReady?: (child: ChildProcess) => void): Promise<[unknown, string, string]> {
    const program = `${snippet.replace("from 'sessionctl'", `from ${JSON.stringify(distIndex)}`)}\n${tail}\n`;
    const { code } = await transform(program, { loader: 'ts', format: 'esm' });
    await writeFile(join(dir, 'app.mjs'), code);
    const child = spawn(process.execPath, [join(dir, 'app.mjs')], { env: { PATH: process.env['PATH'] ?? '', ...db!.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(child);
    child.once('close', () => children.delete(child));
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (onReady !== undefined && out.endsWith('ready\n')) onReady(child);
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exit = await new Promise((done) => child.once('close', done));
    return [exit, err, out];
  }

  test('the lookup runs, and finds the MCP URL apply recorded', async () => {
    const url = stateUrl(db!, schema);
    await writeFile(join(dir, 'm', 'svc-00.yaml'), 'name: ci-bot\nuser_id: ci-bot@example.com\ntoolkits: [gmail]\n');
    const applied = await runCli(['apply', 'm', '--state', url, '--base-url', emu.url, '--format', 'json'], { cwd: dir, env: { ...db!.env, COMPOSIO_API_KEY: 'ak_readme_0000001' } });
    expect(applied.exitCode, applied.stderr).toBe(0);
    const mcpUrl = (JSON.parse(applied.stdout) as { applied: { items: Array<{ mcp_url: string }> } }).applied.items[0]!.mcp_url;
    const snippet = blockAfter('docs/library.md', "## The application's lookup", 'ts');
    expect(snippet.split('\n').filter((l) => l.trim() !== '').length).toBeLessThanOrEqual(10);
    expect(await runSnippet(snippet, 'console.log(bot.mcpUrl);\nawait state.close();', { SESSIONCTL_STATE: url })).toEqual([0, '', `${mcpUrl}\n`]);
  });

  test('the lookup snippet\'s SIGTERM handler closes the state and exits 143 while the application still has work pending', async () => {
    const url = stateUrl(db!, schema, 'sigterm');
    await writeFile(join(dir, 'm', 'svc-00.yaml'), 'name: ci-bot\nuser_id: ci-bot@example.com\ntoolkits: [gmail]\n');
    const applied = await runCli(['apply', 'm/svc-00.yaml', '--state', url, '--base-url', emu.url], { cwd: dir, env: { ...db!.env, COMPOSIO_API_KEY: 'ak_readme_0000001' } });
    expect(applied.exitCode, applied.stderr).toBe(0);
    const snippet = blockAfter('docs/library.md', "## The application's lookup", 'ts');
    // An application's server stands in: an interval keeps the event loop busy, as a listening socket would.
    const tail = "setInterval(() => undefined, 60_000);\nconsole.log('ready');";
    const [exit, err, out] = await runSnippet(snippet, tail, { SESSIONCTL_STATE: url }, (child) => child.kill('SIGTERM'));
    expect([exit, err, out]).toEqual([143, '', 'ready\n']);
  });

  test.skipIf(skipBecause(process.env['SESSIONCTL_TEST_APP_ROLE'] === undefined, 'the read-only role test needs SESSIONCTL_TEST_APP_ROLE, a role with a login and no privilege (.ci/run creates sessionctl_test_app)'))(
    'the lookup runs as a role with only the read-only grants docs/library.md lists, which cannot write',
    async () => {
      const role = process.env['SESSIONCTL_TEST_APP_ROLE']!;
      const url = stateUrl(db!, schema, 'readonly');
      await writeFile(join(dir, 'm', 'svc-00.yaml'), 'name: ci-bot\nuser_id: ci-bot@example.com\ntoolkits: [gmail]\n');
      const applied = await runCli(['apply', 'm/svc-00.yaml', '--state', url, '--base-url', emu.url, '--format', 'json'], { cwd: dir, env: { ...db!.env, COMPOSIO_API_KEY: 'ak_readme_0000001' } });
      expect(applied.exitCode, applied.stderr).toBe(0);
      const mcpUrl = (JSON.parse(applied.stdout) as { applied: { items: Array<{ mcp_url: string }> } }).applied.items[0]!.mcp_url;
      const grants = blockAfter('docs/library.md', "## The application's lookup", 'sql', 'app_readonly');
      for (const statement of grants.split(';').map((t) => t.trim()).filter((t) => t !== '')) {
        await sql(db!, statement.replace(/\bsessionctl\./g, `"${schema}".`).replace(/SCHEMA sessionctl\b/, `SCHEMA "${schema}"`).replace(/\bapp_readonly\b/, role));
      }
      const asRole = url.replace(`//${encodeURIComponent(db!.env['PGUSER']!)}@`, `//${role}@`);
      const snippet = blockAfter('docs/library.md', "## The application's lookup", 'ts');
      expect(await runSnippet(snippet, 'console.log(bot.mcpUrl);\nawait state.close();', { SESSIONCTL_STATE: asRole })).toEqual([0, '', `${mcpUrl}\n`]);
      const listed = await runCli(['state', 'list', '--state', asRole, '--format', 'json'], { cwd: dir, env: db!.env });
      expect(listed.exitCode, listed.stderr).toBe(0);
      const can = await sql(db!, `SELECT has_table_privilege('${role}', '"${schema}".entries', 'INSERT') AS i, has_table_privilege('${role}', '"${schema}".entries', 'UPDATE') AS u, has_table_privilege('${role}', '"${schema}".locks', 'INSERT') AS l`);
      expect(can).toStrictEqual([{ i: false, u: false, l: false }]);
    },
  );

  test('the per-user snippet runs: ensure creates the user\'s session once, then reads it', async () => {
    const url = stateUrl(db!, schema, 'per-user');
    const manifest = blockAfter('docs/per-user.md', '# Per-user manifests', 'yaml');
    await writeFile(join(dir, 'm', 'svc-00.yaml'), manifest);
    const env = { ...db!.env, COMPOSIO_API_KEY: 'ak_readme_0000001', COMPOSIO_BASE_URL: emu.url, CALLBACK_TOKEN: 'cb-token' };
    const applied = await runCli(['apply', 'm/svc-00.yaml', '--state', url], { cwd: dir, env });
    expect(applied.exitCode, applied.stderr).toBe(0);
    const snippet = blockAfter('docs/per-user.md', '# Per-user manifests', 'ts').replace("apiKey: process.env.COMPOSIO_API_KEY!,", "apiKey: process.env.COMPOSIO_API_KEY!, baseUrl: process.env.COMPOSIO_BASE_URL,");
    const [exit, err, out] = await runSnippet(snippet, "const a = await mcpUrlFor('alice'); const b = await mcpUrlFor('alice');\nconsole.log(a === b, a.includes('/tool_router/'));\nawait sessions.close();", { ...env, SESSIONCTL_STATE: url });
    expect([exit, err, out]).toEqual([0, '', 'true true\n']);
    expect(((await (await fetch(`${emu.url}/_emulator/counts?user_id=alice`)).json()) as { sessions: number }).sessions).toBe(1);
  });
});
