import { inspect } from 'node:util';
import { request } from 'undici';
import { afterEach, describe, expect, test } from 'vitest';
import { createClient, type ClientOptions, type SessionClient } from '../../src/client/client.js';
import { ApiError } from '../../src/client/errors.js';
import { clientFromOptions } from '../../src/cli/connection.js';
import { memoryIo } from '../../src/cli/io.js';
import { Redactor } from '../../src/cli/redact.js';
import { runCli as run } from '../../src/cli/run.js';
import { runCli } from '../helpers/run-cli.js';
import { refusedPort, startFaultServer, type Behaviour, type FaultServer } from './client-fault-server.js';

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
    timeouts: { attemptMs: 200 },
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
  ['timeout (outcome unknown)', [{ type: 'delay', ms: 2_000, then: { type: 'respond', status: 201, body: {} } }], (c) => c.createSession({ user_id: 'u' })],
  ['redirect', [{ type: 'respond', status: 302, headers: { location: `https://elsewhere.example/steal?k=${SENTINEL}` } }], (c) => c.createSession({ user_id: 'u' })],
  ['malformed body', [{ type: 'malformed', status: 200 }], (c) => c.listToolkits('trs_x', { toolkits: ['gmail', 'slack'] })],
];

describe('the sentinel key never leaves through a failure', () => {
  test.each(faults)('%s', async (_name, script, run) => {
    const s: FaultServer = await startFaultServer({ fallback: { type: 'respond', status: 500, body: envelope(500, 'internal') } });
    open.push(s);
    s.script(...script);
    const { c, traces } = sentinelClient(s.url);
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
    const c = await clientFromOptions({ baseUrl: s.url, verbose: true }, { io: { ...io, stderr }, redactor, setExitCode: () => undefined });
    open.push(c);
    const err = (await c.getSession('trs_x').catch((e: unknown) => e)) as ApiError;
    stderr.write(`${err.describe().join('\n')}\n`);
    expect(s.hits[0]?.headers['x-api-key']).toBe(SENTINEL);
    expect(io.err()).toContain('> x-api-key: [redacted]');
    expect(io.err()).toContain('no session for ****');
    expect(io.err()).not.toContain(SENTINEL);
    // The redactor now knows the key, whatever else writes it.
    expect(redactor.redact(`x ${SENTINEL} y`)).toBe('x **** y');
  });
});

describe('sessionctl emulator, driven with sentinel keys', () => {
  const ACCEPTED = 'ak_SENTINEL_accepted_3c2b1a0f9e';
  const REFUSED = 'ak_SENTINEL_refused_8e7d6c5b4a';

  test('no request, failing or not, puts a key into its output', async () => {
    const io = memoryIo({ env: {} });
    const done = run(['emulator', '--port', '0', '--api-key', ACCEPTED], io);
    let url = '';
    for (let i = 0; i < 200 && url === ''; i++) {
      await new Promise((r) => setTimeout(r, 25));
      url = /http:\/\/127\.0\.0\.1:\d+/.exec(io.out())?.[0] ?? '';
    }
    expect(url).not.toBe('');
    const traces: string[] = [];
    const errors: unknown[] = [];
    const mk = (apiKey: string): SessionClient => {
      const c = createClient({ baseUrl: url, apiKey, onTrace: (l) => traces.push(l), retries: { sleep: async () => undefined, random: () => 0 } });
      open.push(c);
      return c;
    };
    const c = mk(ACCEPTED);
    const adminPost = async (path: string, body: unknown): Promise<void> => {
      const res = await request(`${url}/_emulator${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
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
          await adminPost('/rate-limit', { limit: 1, window_ms: 60_000 });
          await c.getSession(id);
          return c.createSession({ user_id: 'u' }); // bare 429
        },
      ];
      for (const attempt of attempts) errors.push(await attempt().then(() => undefined, (e: unknown) => e));
    } finally {
      process.emit('SIGINT');
    }
    expect(await done).toBe(0);
    expect(errors.map((e) => (e instanceof ApiError ? 'ApiError' : String(e)))).toEqual(Array(8).fill('ApiError'));
    expect((errors as ApiError[]).map((e) => e.status ?? e.kind)).toEqual([401, 404, 400, 400, 500, 'outcome-unknown', 200, 429]);
    const everything = [io.out(), io.err(), ...errors.map((e) => everyForm(e, [])), ...traces].join('\n');
    expect(io.err()).toContain('GET'); // the emulator did log the requests
    expect(everything).not.toContain(REFUSED);
    expect(everything).not.toContain(ACCEPTED);
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
