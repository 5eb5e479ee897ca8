import { chmod, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { createClient, type ClientOptions, type SessionClient } from '../../src/client/client.js';
import { ApiError } from '../../src/client/errors.js';
import { clientFromOptions } from '../../src/cli/connection.js';
import { memoryIo } from '../../src/cli/io.js';
import { Redactor } from '../../src/cli/redact.js';
import { startEmulator } from '../../src/emulator/server.js';
import { runCli } from '../helpers/run-cli.js';
import { refusedPort, startFaultServer, type Behaviour, type FaultServer } from './client-fault-server.js';
import { tempDir } from '../helpers/temp-dir.js';
import { spawnEmulator } from '../conformance/cli-bundle.js';
import { ValueMasker } from '../../src/util/sensitive.js';

/**
 * A sentinel key goes through every failing path of the client; it must appear in no error
 * message, no `describe()` line, no JSON or inspected form of the error (cause included), and no
 * trace line. The server's record proves the key was really sent, so a pass is not vacuous.
 */

const SENTINEL = 'ak_SENTINEL_9d8c7b6a5f4e3d2c1b0a';
const open: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

function everyForm(err: unknown, traces: string[]): string {
  const e = err as ApiError;
  return [
    String(err),
    e.message,
    e.stack ?? '',
    JSON.stringify(err),
    e instanceof ApiError ? e.describe().join('\n') : '',
    inspect(err, { depth: 8, showHidden: true }),
    ...traces,
  ].join('\n');
}

function sentinelClient(baseUrl: string, extra: Partial<ClientOptions> = {}): { c: SessionClient; traces: string[] } {
  const traces: string[] = [];
  const c = createClient({
    baseUrl,
    apiKey: SENTINEL,
    onTrace: (l) => traces.push(l),
    retries: { sleep: async () => undefined, random: () => 0.5 },
    // Long enough that a loaded machine's server records the request before the client gives up.
    timeouts: { attemptMs: 5_000 },
    ...extra,
  });
  open.push(c);
  return { c, traces };
}

const envelope = (status: number, message: string) => ({ error: { message, code: 10000 + status, slug: `HTTP_${status}`, status, request_id: 'req_x' } });

const faults: Array<[string, Behaviour[], (c: SessionClient) => Promise<unknown>]> = [
  ['401', [{ type: 'respond', status: 401, body: envelope(401, 'Invalid API key') }], (c) => c.getSession('trs_x')],
  // The service's 401 names the (masked) key; a careless one could echo it whole.
  ['401 echoing the key', [{ type: 'respond', status: 401, body: envelope(401, `Invalid API key ${SENTINEL}`) }], (c) => c.createSession({ user_id: 'u' })],
  ['404', [{ type: 'respond', status: 404, body: envelope(404, 'Session not found') }], (c) => c.getSession('trs_x')],
  ['400 with details echoing the key', [{ type: 'respond', status: 400, body: { error: { message: 'bad', errors: [`x-api-key ${SENTINEL} rejected`], suggested_fix: `do not send ${SENTINEL}` } } }], (c) => c.link('trs_x', { toolkit: 'github' })],
  ['500 after retries', [], (c) => c.listTools('trs_x')],
  ['429 bare message', [{ type: 'respond', status: 429, headers: { 'retry-after': '999' }, body: { message: 'Rate limit exceeded' } }], (c) => c.execute('trs_x', { tool_slug: 'X' })],
  ['reset after body (outcome unknown)', [{ type: 'reset-after-body' }], (c) => c.createSession({ user_id: 'u' })],
  ['reset before body', [{ type: 'reset-before-body' }, { type: 'reset-before-body' }, { type: 'reset-before-body' }, { type: 'reset-before-body' }], (c) => c.getSession('trs_x')],
  ['timeout (outcome unknown)', [{ type: 'delay', ms: 10_000, then: { type: 'respond', status: 201, body: {} } }], (c) => c.createSession({ user_id: 'u' })],
  ['redirect', [{ type: 'respond', status: 302, headers: { location: `https://elsewhere.example/steal?k=${SENTINEL}` } }], (c) => c.createSession({ user_id: 'u' })],
  ['malformed body', [{ type: 'malformed', status: 200 }], (c) => c.listToolkits('trs_x', { toolkits: ['gmail', 'slack'] })],
  // The lifecycle operations (issue 10): PATCH never retried, its 409 rebuilt as a conflict.
  ['PATCH 500 echoing the key', [{ type: 'respond', status: 500, body: envelope(500, `boom ${SENTINEL}`) }], (c) => c.updateSession('trs_x', { tags: null })],
  ['PATCH 409 echoing the key, then the re-read fails', [{ type: 'respond', status: 409, body: envelope(409, `stale for ${SENTINEL}`) }], (c) => c.updateSession('trs_x', { expected_config_version: 1 })],
  ['DELETE 404 echoing the key', [{ type: 'respond', status: 404, body: envelope(404, `no ${SENTINEL}`) }], (c) => c.deleteSession('trs_x')],
  ['attach 400 with details echoing the key', [{ type: 'respond', status: 400, body: { error: { message: 'bad', errors: [SENTINEL] } } }], (c) => c.attachSession('trs_x')],
  ['config_history malformed', [{ type: 'malformed', status: 200 }], (c) => c.configHistory('trs_x', { limit: 2 })],
  ['connected account 401 echoing the key', [{ type: 'respond', status: 401, body: envelope(401, `Invalid API key ${SENTINEL}`) }], (c) => c.getConnectedAccount('ca_x')],
  ['MCP: the session read fails echoing the key', [{ type: 'respond', status: 403, body: envelope(403, `forbidden ${SENTINEL}`) }], (c) => c.mcpTools('trs_x')],
  ['MCP: mcp.url on another origin carrying the key', [{ type: 'respond', status: 200, body: { session_id: 'trs_x', mcp: { type: 'http', url: `https://elsewhere.example/mcp?k=${SENTINEL}` }, tool_router_tools: [], config: { user_id: 'u' } } }], (c) => c.mcpTools('trs_x')],
];

describe('the sentinel key never leaves through a failure', () => {
  test.each(faults)('%s', async (name, script, run) => {
    const s: FaultServer = await startFaultServer({ fallback: { type: 'respond', status: 500, body: envelope(500, 'internal') } });
    open.push(s);
    s.script(...script);
    // The timeout case needs the client to give up first: 1.5 s against the server's 10 s.
    const { c, traces } = sentinelClient(s.url, name.startsWith('timeout') ? { timeouts: { attemptMs: 1_500 } } : {});
    const err = await run(c).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(s.hits[0]?.headers['x-api-key']).toBe(SENTINEL);
    expect(traces.length).toBeGreaterThan(0);
    expect(everyForm(err, traces)).not.toContain(SENTINEL);
  });

  test('connection refused', async () => {
    const port = await refusedPort();
    const { c, traces } = sentinelClient(`http://127.0.0.1:${port}`);
    const err = await c.createSession({ user_id: 'u' }).catch((e: unknown) => e);
    expect((err as ApiError).kind).toBe('network');
    expect(everyForm(err, traces)).not.toContain(SENTINEL);
  });

  test('a base URL the key may not go to', () => {
    const err = (() => {
      try {
        createClient({ baseUrl: 'http://example.com', apiKey: SENTINEL });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeDefined();
    expect(everyForm(err, [])).not.toContain(SENTINEL);
  });
});

describe('clientFromOptions', () => {
  test('registers the key with the redactor and traces go to stderr redacted', async () => {
    const s = await startFaultServer();
    open.push(s);
    s.script({ type: 'respond', status: 404, body: envelope(404, `no session for ${SENTINEL}`) });
    const io = memoryIo({ env: { COMPOSIO_API_KEY: SENTINEL } });
    const redactor = new Redactor();
    const stderr = redactor.wrap(io.stderr);
    const c = await clientFromOptions({ baseUrl: s.url, verbose: true }, { io: { ...io, stderr }, redactor, masker: new ValueMasker(), setExitCode: () => undefined });
    open.push(c);
    const err = (await c.getSession('trs_x').catch((e: unknown) => e)) as ApiError;
    stderr.write(`${err.describe().join('\n')}\n`);
    expect(s.hits[0]?.headers['x-api-key']).toBe(SENTINEL);
    expect(io.err()).toContain('> x-api-key: [redacted]');
    expect(io.err()).toContain('no session for (sensitive: COMPOSIO_API_KEY)');
    expect(io.err()).not.toContain(SENTINEL);
    // The redactor now knows the key, whatever else writes it.
    expect(redactor.redact(`x ${SENTINEL} y`)).toBe('x **** y');
  });
});

describe('sessionctl emulator, driven with sentinel keys', () => {
  const ACCEPTED = 'ak_SENTINEL_accepted_3c2b1a0f9e';
  const REFUSED = 'ak_SENTINEL_refused_8e7d6c5b4a';
  const ADMIN = 'ak_SENTINEL_admin_5f4e3d2c1b';

  test('no request, failing or not, puts a key into its output', async () => {
    // A child process of its own: the command waits for SIGINT, which must not reach this worker.
    // The admin key (for the rate limit, the whole emulator's setting) from the environment: it must not show either.
    const emu = await spawnEmulator(['--port', '0', '--api-key', ACCEPTED], { SESSIONCTL_EMULATOR_ADMIN_KEY: ADMIN });
    const url = emu.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const traces: string[] = [];
    const errors: unknown[] = [];
    const mk = (apiKey: string): SessionClient => {
      const c = createClient({ baseUrl: url, apiKey, onTrace: (l) => traces.push(l), retries: { sleep: async () => undefined, random: () => 0 } });
      open.push(c);
      return c;
    };
    const c = mk(ACCEPTED);
    const adminPost = async (path: string, body: unknown, key = ACCEPTED): Promise<void> => {
      const res = await request(`${url}/_emulator${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
      await res.body.dump();
    };
    try {
      const { session_id: id } = await c.createSession({ user_id: 'u' });
      const attempts: Array<() => Promise<unknown>> = [
        () => mk(REFUSED).getSession(id), // 401
        () => c.getSession('trs_doesnotexist0'), // 404
        () => c.getSession('bad id'), // 400
        () => c.createSession({ user_id: 'u', toolkits: { enable: ['no_such_toolkit_xyz'] } }), // 400
        async () => {
          await adminPost('/faults', { route: 'get', status: 500, times: 4 });
          return c.getSession(id); // 500 after retries
        },
        async () => {
          await adminPost('/faults', { route: 'create', reset: 'after' });
          return c.createSession({ user_id: 'u' }); // outcome unknown
        },
        async () => {
          await adminPost('/faults', { route: 'get', malformed: true });
          return c.getSession(id); // decode
        },
        async () => {
          await adminPost('/rate-limit', { limit: 1, window_ms: 60_000 }, ADMIN);
          await c.getSession(id);
          return c.createSession({ user_id: 'u' }); // bare 429
        },
      ];
      for (const attempt of attempts) errors.push(await attempt().then(() => undefined, (e: unknown) => e));
    } finally {
      expect(await emu.stop('SIGINT')).toBe(0);
    }
    expect(emu.stderr()).toContain('emulator stopped (SIGINT)');
    expect(errors.map((e) => (e instanceof ApiError ? 'ApiError' : String(e)))).toEqual(Array(8).fill('ApiError'));
    expect((errors as ApiError[]).map((e) => e.status ?? e.kind)).toEqual([401, 404, 400, 400, 500, 'outcome-unknown', 200, 429]);
    const everything = [emu.stdout(), emu.stderr(), ...errors.map((e) => everyForm(e, [])), ...traces].join('\n');
    expect(emu.stderr()).toContain('GET /api/v3/tool_router/session/'); // the emulator did log the requests
    expect(everything).not.toContain(REFUSED);
    expect(everything).not.toContain(ACCEPTED);
    expect(everything).not.toContain(ADMIN);
    expect(emu.stderr()).toContain('1 key(s), an admin key');
  });

  test.each([
    ['an unparsable --rate-limit', ['--rate-limit', 'lots']],
    ['a missing --catalog', ['--catalog', '/nonexistent/catalog.json']],
  ])('a failing start (%s) does not echo the key', async (_name, extra) => {
    const r = await runCli(['emulator', '--port', '0', '--api-key', ACCEPTED, ...extra]);
    expect(r.exitCode).toBe(2);
    expect(`${r.stdout}${r.stderr}`).not.toContain(ACCEPTED);
  });
});

describe('networked commands (apply, diff) with a sentinel key', () => {
  const KEY = 'ak_SENTINEL_cli_77aa66bb55cc';
  const MANIFEST = 'name: leak-check\nuser_id: u1\ntoolkits: [gmail]\n';

  async function world(): Promise<{ dir: string; run: (argv: string[], env?: Record<string, string | undefined>) => ReturnType<typeof runCli> }> {
    const dir = tempDir('leak');
    open.push({ close: () => rm(dir, { recursive: true, force: true }) });
    await writeFile(join(dir, 'm.yaml'), MANIFEST);
    return { dir, run: (argv, env = { COMPOSIO_API_KEY: KEY }) => runCli(argv, { cwd: dir, env }) };
  }

  async function emulator(options: Parameters<typeof startEmulator>[0] = {}) {
    const emu = await startEmulator({ port: 0, ...options });
    open.push(emu);
    // With keys, the admin key's view: a refused key's requests belong to no tenant.
    const adminKey = options.adminKeys?.[0];
    const admin = async (path: string, body?: unknown): Promise<any> => {
      const res = await request(`${emu.url}/_emulator${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(adminKey === undefined ? {} : { 'x-api-key': adminKey }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return res.body.json();
    };
    return { url: emu.url, admin };
  }

  const clean = (r: { stdout: string; stderr: string }): void => {
    expect(`${r.stdout}\n${r.stderr}`).not.toContain(KEY);
  };

  test('a key the service refuses (401), with --verbose and JSON output', async () => {
    const emu = await emulator({ apiKeys: ['ak_some_other_accepted_key'], adminKeys: ['ak_the_admin_key_00001'] });
    const w = await world();
    const r = await w.run(['apply', 'm.yaml', '--base-url', emu.url, '--verbose', '--format', 'json']);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toContain('x-api-key: [redacted]');
    expect((await emu.admin('/stats')).routes.create.received).toBe(1);
    clean(r);
  });

  test('the key from --api-key-file, through a 500 and an outcome-unknown reset', async () => {
    const emu = await emulator();
    const w = await world();
    await writeFile(join(w.dir, 'key.txt'), `${KEY}\n`);
    await chmod(join(w.dir, 'key.txt'), 0o600);
    await emu.admin('/faults', [{ route: 'create', status: 500 }, { route: 'create', reset: 'after' }]);
    const first = await w.run(['apply', 'm.yaml', '--base-url', emu.url, '--api-key-file', 'key.txt', '--verbose'], {});
    // The 500 left the create's outcome unknown (issue 29): the second run is told to send it again.
    const second = await w.run(['apply', 'm.yaml', '--base-url', emu.url, '--api-key-file', 'key.txt', '--verbose', '--recreate-unknown', '--format', 'json'], {});
    expect(first.exitCode).not.toBe(0);
    expect(second.exitCode).not.toBe(0);
    expect(`${second.stdout}${second.stderr}`).toContain('outcome-unknown');
    expect((await emu.admin('/stats')).routes.create.received).toBe(2);
    clean(first);
    clean(second);
  });

  test('diff against a missing session (404) and a malformed answer', async () => {
    const emu = await emulator();
    const w = await world();
    const missing = await w.run(['diff', 'm.yaml', '--session', 'trs_doesnotexist0', '--base-url', emu.url, '--verbose']);
    expect(missing.exitCode).not.toBe(0);
    clean(missing);
    await emu.admin('/faults', { route: 'get', malformed: true });
    const malformed = await w.run(['diff', 'm.yaml', '--session', 'trs_doesnotexist0', '--base-url', emu.url, '--format', 'json']);
    expect(malformed.exitCode).not.toBe(0);
    clean(malformed);
  });

  test('connection refused, a timeout and a redirect', async () => {
    const w = await world();
    const port = await refusedPort();
    const refused = await w.run(['apply', 'm.yaml', '--base-url', `http://127.0.0.1:${port}`, '--verbose']);
    expect(refused.exitCode).not.toBe(0);
    clean(refused);

    const slow = await startFaultServer({ fallback: { type: 'delay', ms: 3_000, then: { type: 'respond', status: 201, body: {} } } });
    open.push(slow);
    const timeout = await w.run(['apply', 'm.yaml', '--base-url', slow.url, '--timeout', '300', '--verbose']);
    expect(timeout.exitCode).not.toBe(0);
    expect(slow.hits[0]?.headers['x-api-key']).toBe(KEY);
    clean(timeout);

    const redirect = await startFaultServer({ fallback: { type: 'respond', status: 308, headers: { location: `https://elsewhere.example/?k=${KEY}` } } });
    open.push(redirect);
    const moved = await w.run(['apply', 'm.yaml', '--base-url', redirect.url, '--verbose']);
    expect(moved.exitCode).not.toBe(0);
    clean(moved);
  });

  test('refused before any request: plain http to a public host, a key in argv', async () => {
    const w = await world();
    const insecure = await w.run(['apply', 'm.yaml', '--base-url', 'http://backend.composio.dev']);
    expect(insecure.exitCode).toBe(2);
    clean(insecure);
    // Not registered with the redactor anywhere: only the option's own refusal keeps it out.
    const argv = await w.run(['apply', 'm.yaml', '--api-key', KEY], {});
    expect(argv.exitCode).toBe(2);
    expect(argv.stderr).toContain('--api-key is not accepted');
    clean(argv);
    const argvEq = await w.run(['diff', 'm.yaml', `--api-key=${KEY}`], {});
    expect(argvEq.exitCode).toBe(2);
    clean(argvEq);
  });
});

describe('every operate command, failing, with a sentinel key', () => {
  const KEY = 'ak_SENTINEL_operate_1a2b3c4d5e';
  const SESSION = 'trs_leakcheck0001';
  const commands: string[][] = [
    ['get', SESSION],
    ['toolkits', SESSION],
    ['tools', SESSION],
    ['search', SESSION, 'send an email'],
    ['execute', SESSION, 'GMAIL_SEND_EMAIL', '--arg', 'recipient_email=a@example.com', '--arg', 'body=hi'],
    ['execute-meta', SESSION, 'COMPOSIO_SEARCH_TOOLS'],
    ['link', SESSION, 'github'],
    ['proxy', SESSION, '--toolkit', 'github', '--method', 'GET', '--endpoint', '/user'],
    ['files', 'ls', SESSION],
    ['files', 'upload-url', SESSION, 'a.txt'],
    ['files', 'download-url', SESSION, 'a.txt'],
    ['files', 'rm', SESSION, 'a.txt'],
    ['files', 'get', SESSION, 'a.txt', 'out.txt'],
  ];

  test.each(commands)('%s %s: 401, then 409 from every route: exit 3 with the envelope and no key', async (...argv) => {
    const refusing = await startEmulator({ port: 0, apiKeys: ['ak_some_other_accepted_key'] });
    open.push(refusing);
    const failing = await startEmulator({ port: 0 });
    open.push(failing);
    const res = await request(`${failing.url}/_emulator/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      // 409 is retried by no policy, so the run does not wait out backoffs (500 after retries is covered above).
      body: JSON.stringify({ route: '*', status: 409, times: 100 }),
    });
    await res.body.dump();
    const dir = tempDir('leak-op');
    open.push({ close: () => rm(dir, { recursive: true, force: true }) });

    const unauthorized = await runCli([...argv, '--base-url', refusing.url, '--verbose'], { cwd: dir, env: { COMPOSIO_API_KEY: KEY } });
    expect(unauthorized.exitCode).toBe(3);
    expect(unauthorized.stderr).toContain('slug: HTTP_Unauthorized (code 10401)');
    expect(unauthorized.stderr).toContain('x-api-key: [redacted]');
    expect(`${unauthorized.stdout}${unauthorized.stderr}`).not.toContain(KEY);

    const broken = await runCli([...argv, '--base-url', failing.url, '--format', 'json'], { cwd: dir, env: { COMPOSIO_API_KEY: KEY } });
    expect(broken.exitCode).toBe(3);
    expect(broken.stderr).toMatch(/HTTP 409/);
    expect(`${broken.stdout}${broken.stderr}`).not.toContain(KEY);
  });
});
