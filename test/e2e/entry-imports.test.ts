import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { call } from '../conformance/emulator-http.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * What importing the package's entry loads: the static import graph of dist/index.js (what Node
 * evaluates on `import 'sessionctl'`), without what is imported on first use (`import(...)`).
 * The emulator and the MCP SDK it serves with are for tests and the CLI, not for an application.
 */
const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist');

/** `import ... from '...'`, `export ... from '...'`, `import '...'`: static only, not `import(...)`. */
const STATIC = /^\s*(?:import|export)\s(?:[^'"();]*?\sfrom\s)?['"]([^'"]+)['"]/gm;

function staticGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(STATIC)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(resolve(dirname(file), spec));
      else packages.add(spec);
    }
  };
  visit(entry);
  return { files: [...files].map((f) => relative(dist, f)), packages: [...packages] };
}

describe('importing the entry', () => {
  test('loads no emulator module and not the MCP SDK (dist, built by npm test before vitest)', () => {
    const { files, packages } = staticGraph(join(dist, 'index.js'));
    expect(files.length).toBeGreaterThan(10);
    expect(files.filter((f) => f.startsWith('emulator/'))).toStrictEqual([]);
    expect(packages.filter((p) => p.startsWith('@modelcontextprotocol/'))).toStrictEqual([]);
  });

  test('the reader sees static imports and skips dynamic ones', () => {
    const text = "import { a } from './a.js';\nexport { b } from './b.js';\nimport './c.js';\nconst d = await import('./d.js');\n";
    expect([...text.matchAll(STATIC)].map((m) => m[1])).toStrictEqual(['./a.js', './b.js', './c.js']);
  });
});

/**
 * Module hooks for a child Node (`--import`): one records every module the child loads (to a file
 * named in SESSIONCTL_TEST_LOADED), the other makes the MCP SDK unresolvable, as in an application
 * that did not install the optional peer dependency.
 */
const hooks = tempDir('entry-hooks');
const RECORD = join(hooks, 'record.mjs');
const HIDE_SDK = join(hooks, 'hide-sdk.mjs');
writeFileSync(
  RECORD,
  `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
    "import { appendFileSync } from 'node:fs'; export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.SESSIONCTL_TEST_LOADED, r.url + '\\n'); return r; }",
  )}));\n`,
);
writeFileSync(
  HIDE_SDK,
  `import { register } from 'node:module';\nregister('data:text/javascript,' + encodeURIComponent(${JSON.stringify(
    "export async function resolve(s, c, next) { if (s === '@modelcontextprotocol/sdk' || s.startsWith('@modelcontextprotocol/sdk/')) { const e = new Error(\"Cannot find package '@modelcontextprotocol/sdk' imported from \" + c.parentURL); e.code = 'ERR_MODULE_NOT_FOUND'; throw e; } return next(s, c); }",
  )}));\n`,
);

interface Child {
  exit: number | null;
  stdout: string;
  stderr: string;
}

function node(args: readonly string[], env: Record<string, string> = {}, onLine?: (line: string) => void): Promise<Child> {
  const child = spawn(process.execPath, args, { env: { PATH: process.env['PATH'] ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    if (onLine !== undefined) for (const line of c.split('\n').filter((l) => l !== '')) onLine(line);
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  return new Promise((done) => child.once('close', (exit) => done({ exit, stdout, stderr })));
}

const INDEX = pathToFileURL(join(dist, 'index.js')).href;

describe('importing the entry, as Node runs it', () => {
  test('an application that imports the package and parses a manifest loads no emulator module and no MCP SDK module', async () => {
    const loaded = join(hooks, 'loaded.txt');
    writeFileSync(loaded, '');
    const program = `const { parseManifest } = await import(${JSON.stringify(INDEX)}); console.log(parseManifest('name: a\\nuser_id: u\\n').documents.length);`;
    const r = await node(['--import', RECORD, '--input-type=module', '-e', program], { SESSIONCTL_TEST_LOADED: loaded });
    expect([r.exit, r.stderr, r.stdout]).toStrictEqual([0, '', '1\n']);
    const urls = readFileSync(loaded, 'utf8').split('\n').filter((u) => u !== '');
    // The recorder sees the package's own modules: it would see the emulator's if they were loaded.
    expect(urls.filter((u) => u.startsWith(pathToFileURL(join(dist, 'manifest')).href)).length).toBeGreaterThan(3);
    expect(urls.filter((u) => u.startsWith(pathToFileURL(join(dist, 'emulator')).href))).toStrictEqual([]);
    expect(urls.filter((u) => u.includes('@modelcontextprotocol'))).toStrictEqual([]);
  });

  test('the package does not depend on the MCP SDK: an optional peer dependency, which npm does not install', () => {
    const pkg = JSON.parse(readFileSync(join(dist, '../package.json'), 'utf8')) as Record<string, Record<string, unknown> | undefined>;
    expect(pkg['dependencies']?.['@modelcontextprotocol/sdk']).toBeUndefined();
    expect(pkg['optionalDependencies']?.['@modelcontextprotocol/sdk']).toBeUndefined();
    expect(pkg['peerDependencies']?.['@modelcontextprotocol/sdk']).toBeDefined();
    expect(pkg['peerDependenciesMeta']?.['@modelcontextprotocol/sdk']).toStrictEqual({ optional: true });
  });
});

describe('without the MCP SDK installed', () => {
  const MISSING = "install @modelcontextprotocol/sdk to use sessionctl mcp / the emulator's MCP (it is an optional dependency of sessionctl: npm install @modelcontextprotocol/sdk)";
  const KEY = 'ak_entry_0000001';
  let emu: RunningEmulator;
  let sessionId: string;
  beforeAll(async () => {
    emu = await startEmulator({ port: 0, apiKeys: [KEY] });
    const r = await call(emu.url, 'POST', '/api/v3/tool_router/session', { key: KEY, body: { user_id: 'u1' } });
    expect(r.status, r.text).toBe(201);
    sessionId = (r.json as { session_id: string }).session_id;
  });
  afterAll(() => emu.close());

  test('sessionctl mcp says what to install, exit 2, no stack', async () => {
    const r = await node(['--import', HIDE_SDK, join(dist, 'sessionctl.js'), 'mcp', sessionId, '--base-url', emu.url], { COMPOSIO_API_KEY: KEY, NO_COLOR: '1' });
    expect([r.exit, r.stdout, r.stderr]).toStrictEqual([2, '', `error: ${MISSING}\n`]);
  });

  test('the emulator starts and serves the API; its MCP endpoint answers 501 saying what to install', async () => {
    const program = `const { startEmulator } = await import(${JSON.stringify(INDEX)}); const e = await startEmulator({ port: 0, apiKeys: [${JSON.stringify(KEY)}] }); console.log(e.url); process.stdin.resume(); process.stdin.once('end', () => e.close());`;
    let answered: (r: { status: number; json: unknown; mcp: { status: number; json: unknown } }) => void = () => undefined;
    const replies = new Promise<{ status: number; json: unknown; mcp: { status: number; json: unknown } }>((done) => (answered = done));
    const child = spawn(process.execPath, ['--import', HIDE_SDK, '--input-type=module', '-e', program], { env: { PATH: process.env['PATH'] ?? '' }, stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdout.setEncoding('utf8').once('data', (line: string) => {
      const url = line.trim();
      void (async () => {
        const created = await call(url, 'POST', '/api/v3/tool_router/session', { key: KEY, body: { user_id: 'u2' } });
        const mcpUrl = (created.json as { mcp: { url: string } }).mcp.url;
        const mcp = await call(mcpUrl.replace(/^https?:\/\/[^/]+/, url), 'POST', '', {
          key: KEY,
          body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
          headers: { accept: 'application/json, text/event-stream' },
        });
        answered({ status: created.status, json: created.json, mcp: { status: mcp.status, json: mcp.json } });
        child.stdin.end();
      })();
    });
    const closed = new Promise((done) => child.once('close', done));
    const r = await replies;
    expect(await closed).toBe(0);
    expect(r.status).toBe(201);
    expect(r.mcp.status).toBe(501);
    expect((r.mcp.json as { error: { message: string } }).error.message).toBe(MISSING);
  });
});
