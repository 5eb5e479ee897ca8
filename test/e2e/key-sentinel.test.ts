import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';
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

interface Hostile {
  url: string;
  /** `ok`: sessions echo the key; `error`: every call is a 400 that echoes it. */
  mode: 'ok' | 'error';
  received: string[];
  close(): Promise<void>;
}

async function hostileService(): Promise<Hostile> {
  const session = (url: string) => ({
    session_id: 'trs_keyecho0001',
    mcp: { type: 'http', url: `${url}/tool_router/v3/trs_keyecho0001/mcp?key=${encodeURIComponent(KEY)}&raw=${KEY}` },
    tool_router_tools: ['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_GET_TOOL_SCHEMAS', 'COMPOSIO_MULTI_EXECUTE_TOOL', 'COMPOSIO_MANAGE_CONNECTIONS', 'COMPOSIO_REMOTE_WORKBENCH', 'COMPOSIO_REMOTE_BASH_TOOL'],
    config: { user_id: 'u1', toolkits: { enabled: ['gmail'] }, manage_connections: { enabled: true, callback_url: `https://echo.example/cb?k=${KEY}` }, echoed_key: KEY },
    config_version: 1,
  });
  const error = {
    error: { message: `key ${KEY} refused for "${KEY}"`, code: 10400, slug: `Bad_${KEY}`, status: 400, request_id: `req_${KEY}`, suggested_fix: `stop sending ${KEY}`, errors: [`x-api-key: ${KEY}`] },
  };
  const state: Hostile = { url: '', mode: 'ok', received: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    state.received.push(String(req.headers['x-api-key']));
    req.resume();
    req.on('end', () => {
      const isSession = /^\/api\/v3\/tool_router\/session(\/trs_keyecho0001)?$/.test(req.url ?? '');
      const status = state.mode === 'error' || !isSession ? 400 : req.method === 'POST' ? 201 : 200;
      res.writeHead(status, { 'content-type': 'application/json', 'x-echo': KEY });
      res.end(JSON.stringify(status === 400 ? error : session(state.url)));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise<void>((r) => server.close(() => r()));
  return state;
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
    const service = await hostileService();
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
    expect(service.received).toContain(KEY);
    const files = await listFiles(dir);
    expect(files.map((f) => f.slice(dir.length + 1)).sort()).toEqual(expect.arrayContaining(['.sessionctl/state.json', 'github-output.txt', 'plan.json', 'reports/apply.markdown', 'reports/diff.sarif']));
    const everything = [...outputs, ...(await Promise.all(files.map((f) => readFile(f, 'utf8'))))];
    const leaks = everything.filter((text) => text.includes(CORE)).map((text) => text.slice(Math.max(0, text.indexOf(CORE) - 80), text.indexOf(CORE) + 40));
    expect(leaks).toEqual([]);
  });
});
