import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
import { hostileService, sessionAnswer, type HostileService } from './hostile-service.js';
import { everyFormat } from './sentinel-world.js';

/**
 * Issue 14, item 4: the API key is masked before anything is formatted. A hostile service echoes
 * the key in config values, in the MCP URL (raw and percent-encoded) and in every field of its
 * error bodies; the key holds `_` (markdown escapes it), `"` and `\` (JSON escapes them). Every
 * form of it must be absent from every command's output, report, plan file, state, trace and
 * `$GITHUB_OUTPUT`: the test looks for the key's alphanumeric core, which every spelling keeps.
 */
const CORE = 'K3yS3nt1nelQ7';
const KEY = `ak_${CORE}_"quoted"\\back_slash_0123456789`;

/** The service: sessions echo the key (`ok`), or every call is a 400 that echoes it (`error`). */
async function keyEchoingService(): Promise<HostileService & { mode: 'ok' | 'error' }> {
  const config = { user_id: 'u1', toolkits: { enabled: ['gmail'] }, manage_connections: { enabled: true, callback_url: `https://echo.example/cb?k=${KEY}` }, echoed_key: KEY };
  const error = {
    error: { message: `key ${KEY} refused for "${KEY}"`, code: 10400, slug: `Bad_${KEY}`, status: 400, request_id: `req_${KEY}`, suggested_fix: `stop sending ${KEY}`, errors: [`x-api-key: ${KEY}`] },
  };
  const service = Object.assign(await hostileService(), { mode: 'ok' as 'ok' | 'error' });
  const answer = (status: number) => (url: string) =>
    service.mode === 'error'
      ? { status: 400, body: error, headers: { 'x-echo': KEY } }
      : { status, headers: { 'x-echo': KEY }, body: sessionAnswer('trs_keyecho0001', `${url}/tool_router/v3/trs_keyecho0001/mcp?key=${encodeURIComponent(KEY)}&raw=${KEY}`, config) };
  service.routes.push({ method: 'POST', path: /\/session$/, answer: answer(201) }, { method: 'GET', path: /\/session\/trs_keyecho0001$/, answer: answer(200) });
  return service;
}

let cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...(await listFiles(join(dir, e.name))));
    else out.push(join(dir, e.name));
  }
  return out;
}

describe('a key with _, " and \\ that the service echoes everywhere', () => {
  test('is in no output, report, plan file, state, trace or $GITHUB_OUTPUT of validate, plan, apply, diff and get', async () => {
    const service = await keyEchoingService();
    const dir = tempDir('key-sentinel');
    cleanup.push(service.close);
    await writeFile(join(dir, 'keyecho.yaml'), 'name: keyecho\nuser_id: u1\ntoolkits: [gmail]\n');
    const env = { COMPOSIO_API_KEY: KEY, COMPOSIO_BASE_URL: service.url, GITHUB_OUTPUT: join(dir, 'github-output.txt') };
    const outputs: string[] = [];
    const run = async (argv: string[]) => {
      const r = await runCli(argv, { cwd: dir, env });
      outputs.push(r.stdout, r.stderr);
      return r;
    };

    expect((await run(['validate', 'keyecho.yaml', ...everyFormat('validate')])).exitCode).toBe(0);
    expect((await run(['plan', 'keyecho.yaml', '--out', 'plan.json', ...everyFormat('plan')])).exitCode).toBe(0);
    const applied = await run(['apply', 'plan.json', '--verbose', '--github-output', ...everyFormat('apply')]);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('(sensitive: COMPOSIO_API_KEY)');
    expect(applied.stderr).toContain('< x-echo: (sensitive: COMPOSIO_API_KEY)');
    expect((await run(['plan', 'keyecho.yaml', '--refresh', '--verbose', ...everyFormat('plan-refresh')])).exitCode).toBe(0);
    expect((await run(['diff', 'keyecho.yaml', '--strict', '--verbose', ...everyFormat('diff')])).exitCode).toBe(1);
    expect((await run(['get', 'keyecho'])).exitCode).toBe(0);
    expect((await run(['get', 'trs_keyecho0001', '--format', 'json'])).exitCode).toBe(0);

    service.mode = 'error';
    expect((await run(['apply', 'keyecho.yaml', '--verbose', '--github-output', ...everyFormat('apply-error')])).exitCode).toBe(3);
    expect((await run(['diff', 'keyecho.yaml', '--verbose', ...everyFormat('diff-error')])).exitCode).toBe(3);
    const got = await run(['get', 'keyecho', '--verbose']);
    expect(got.exitCode).toBe(3);
    expect(got.stderr).toContain('slug: Bad_(sensitive: COMPOSIO_API_KEY)');

    // The key was really sent, and the service really echoed it: the absence is not vacuous.
    expect(service.received.map((r) => r.key)).toContain(KEY);
    const files = await listFiles(dir);
    expect(files.map((f) => f.slice(dir.length + 1)).sort()).toEqual(expect.arrayContaining(['.sessionctl/state.json', 'github-output.txt', 'plan.json', 'reports/apply.markdown', 'reports/diff.sarif']));
    const everything = [...outputs, ...(await Promise.all(files.map((f) => readFile(f, 'utf8'))))];
    const leaks = everything.filter((text) => text.includes(CORE)).map((text) => text.slice(Math.max(0, text.indexOf(CORE) - 80), text.indexOf(CORE) + 40));
    expect(leaks).toEqual([]);
  });
});
