/**
 * The MCP Inspector's CLI (`@modelcontextprotocol/inspector-cli`, unmodified, as a child process)
 * against a session's MCP URL (issue 28): with the right key it lists the session's tools; with a
 * wrong key it reports the 401 and makes no OAuth request (the emulator's request log shows only
 * the MCP POST, no `/.well-known/...` discovery).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call } from './emulator-http.js';

const KEY = 'inspector-key-0123456789';
const require = createRequire(import.meta.url);
const cli = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'index.js');
const log: string[] = [];
let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY], log: (line) => log.push(line) });
});
afterAll(() => emu.close());

function inspector(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    // Its build/index.js tests for `../package.json` relative to the working directory (and imports
    // it relative to itself): from its own build directory the two agree, installed on its own too.
    const child = spawn(process.execPath, [cli, ...args], { cwd: dirname(cli), env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('MCP Inspector CLI', () => {
  it('lists the session\'s tools with the key', async () => {
    const s = await call(emu.url, 'POST', '/api/v3.1/tool_router/session', { key: KEY, body: { user_id: 'inspector' } });
    expect(s.status).toBe(201);
    const r = await inspector([s.json.mcp.url, '--transport', 'http', '--method', 'tools/list', '--header', `x-api-key: ${KEY}`]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toEqual(s.json.tool_router_tools);
  });

  it('a wrong key: exit 1 with the 401 reported, and no OAuth request', async () => {
    const s = await call(emu.url, 'POST', '/api/v3.1/tool_router/session', { key: KEY, body: { user_id: 'inspector' } });
    const mcpPath = new URL(s.json.mcp.url as string).pathname;
    log.length = 0;
    const r = await inspector([s.json.mcp.url, '--transport', 'http', '--method', 'tools/list', '--header', 'x-api-key: wrong-key-0000']);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout + r.stderr).toContain('HTTP_Unauthorized');
    expect(r.stdout + r.stderr).not.toMatch(/oauth/i);
    const requests = log.filter((line) => !line.startsWith('internal error'));
    expect(requests.length).toBeGreaterThan(0);
    for (const line of requests) expect(line).toMatch(new RegExp(`^(POST|DELETE) ${mcpPath} 401 `));
  });
});
