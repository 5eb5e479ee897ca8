import { afterEach, describe, expect, test } from 'vitest';
import { createClient, type ClientOptions, type SessionClient } from '../../src/client/client.js';
import { version } from '../../src/version.js';
import { apiFailure } from '../helpers/rejection.js';
import { refusedPort, sessionBody, startFaultServer, type FaultServer } from './client-fault-server.js';

/**
 * The retry policy against real sockets: a server this test starts plays one fault per request
 * and counts the requests that reached it. Sleeps are recorded, not waited, so the delays the
 * client asked for (backoff, Retry-After) are asserted exactly.
 */

const KEY = 'ak_faults_4c1d9e7b2a';
const open: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  while (open.length > 0) await open.pop()?.close();
});

async function server(): Promise<FaultServer> {
  const s = await startFaultServer();
  open.push(s);
  return s;
}

function client(baseUrl: string, extra: Partial<ClientOptions> = {}): { c: SessionClient; sleeps: number[] } {
  const sleeps: number[] = [];
  const c = createClient({
    baseUrl,
    apiKey: KEY,
    ...extra,
    timeouts: { attemptMs: 5_000, ...extra.timeouts },
    retries: {
      random: () => 0.5,
      sleep: async (ms) => void sleeps.push(ms),
      ...extra.retries,
    },
  });
  open.push(c);
  return { c, sleeps };
}

const failure = apiFailure;

const CREATE = { user_id: 'u1' };

describe('what the client sends', () => {
  test('x-api-key, User-Agent, JSON body; decoded leniently', async () => {
    const s = await server();
    s.script({ type: 'respond', status: 201, body: sessionBody('trs_a1') });
    const { c } = client(s.url);
    const session = await c.createSession({ user_id: 'u1', toolkits: { enable: ['gmail'] } });
    expect(session.session_id).toBe('trs_a1');
    expect(session['future_field']).toEqual({ kept: true });
    expect(s.hits).toHaveLength(1);
    const hit = s.hits[0]!;
    expect(hit.method).toBe('POST');
    expect(hit.url).toBe('/api/v3/tool_router/session');
    expect(hit.headers['x-api-key']).toBe(KEY);
    expect(hit.headers['user-agent']).toBe(`sessionctl/${version}`);
    expect(hit.headers['content-type']).toBe('application/json');
    expect(hit.headers['authorization']).toBeUndefined();
    expect(JSON.parse(hit.body)).toEqual({ user_id: 'u1', toolkits: { enable: ['gmail'] } });
  });

  test('a path prefix in the base URL is kept', async () => {
    const s = await server();
    s.script({ type: 'respond', status: 200, body: sessionBody() });
    const { c } = client(`${s.url}/gateway/`);
    await c.getSession('trs_test1');
    expect(s.hits[0]!.url).toBe('/gateway/api/v3/tool_router/session/trs_test1');
  });
});

describe('unsafe calls (create) are never duplicated', () => {
  test('reset after the body was read: one request, outcome unknown, no retry', async () => {
    const s = await server();
    s.script({ type: 'reset-after-body' });
    const { c, sleeps } = client(s.url);
    const err = await failure(c.createSession(CREATE));
    expect(err.kind).toBe('outcome-unknown');
    expect(err.attempts).toBe(1);
    expect(err.message).toContain('outcome is unknown');
    expect(err.suggested_fix).toBeDefined();
    expect(s.hits).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('reset before the body was read: still ambiguous to the client, one request', async () => {
    const s = await server();
    s.script({ type: 'reset-before-body' });
    const { c } = client(s.url);
    const err = await failure(c.createSession(CREATE));
    expect(err.kind).toBe('outcome-unknown');
    expect(s.hits).toHaveLength(1);
  });

  test('timeout waiting for the answer: one request, outcome unknown', async () => {
    const s = await server();
    s.script({ type: 'delay', ms: 3_000, then: { type: 'respond', status: 201, body: sessionBody() } });
    const { c, sleeps } = client(s.url, { timeouts: { attemptMs: 200 } });
    const err = await failure(c.createSession(CREATE));
    expect(err.kind).toBe('outcome-unknown');
    expect(err.message).toContain('timed out');
    expect(s.hits).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('timeout in the middle of the body: outcome unknown', async () => {
    const s = await server();
    s.script({ type: 'stall-body', status: 201 });
    const { c } = client(s.url, { timeouts: { attemptMs: 200 } });
    const err = await failure(c.createSession(CREATE));
    expect(err.kind).toBe('outcome-unknown');
    expect(s.hits).toHaveLength(1);
  });

  test.each([
    ['execute', (c: SessionClient) => c.execute('trs_x', { tool_slug: 'GMAIL_SEND_EMAIL' })],
    ['execute_meta', (c: SessionClient) => c.executeMeta('trs_x', { slug: 'COMPOSIO_SEARCH_TOOLS' })],
    ['link', (c: SessionClient) => c.link('trs_x', { toolkit: 'github' })],
    ['proxy_execute', (c: SessionClient) => c.proxyExecute('trs_x', { toolkit_slug: 'github', endpoint: '/user', method: 'GET' })],
    ['upload_url', (c: SessionClient) => c.mountUploadUrl('trs_x', 'a.txt')],
  ])('%s after a reset: one request, outcome unknown', async (_name, run) => {
    const s = await server();
    s.script({ type: 'reset-after-body' });
    const { c } = client(s.url);
    const err = await failure(run(c));
    expect(err.kind).toBe('outcome-unknown');
    expect(s.hits).toHaveLength(1);
  });

  test('500 is not retried for create, and its outcome is unknown (a 500 may follow the work)', async () => {
    const s = await server();
    s.script({ type: 'respond', status: 500, body: { error: { message: 'boom', code: 10500, slug: 'HTTP_InternalServerError', status: 500 } } });
    const { c, sleeps } = client(s.url);
    const err = await failure(c.createSession(CREATE));
    expect(err).toMatchObject({ kind: 'outcome-unknown', status: 500, slug: 'HTTP_InternalServerError', code: 10500, attempts: 1 });
    expect(err.message).toBe(
      'create session: the outcome is unknown: the service answered 500 (boom) where it documents 201, which is not a clear refusal, so it may have processed the request; it was not retried, to avoid doing it twice',
    );
    expect(s.hits).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('503 without Retry-After is not retried for create', async () => {
    const s = await server();
    s.script({ type: 'respond', status: 503, body: { error: { message: 'unavailable', code: 10503, slug: 'HTTP_ServiceUnavailable' } } });
    const { c } = client(s.url);
    const err = await failure(c.createSession(CREATE));
    expect(err.status).toBe(503);
    expect(s.hits).toHaveLength(1);
  });
});

describe('unsafe calls are retried when the request surely did not reach the service', () => {
  test('connection refused, then the service comes up: created once', async () => {
    const port = await refusedPort();
    let s: FaultServer | undefined;
    const sleeps: number[] = [];
    const c = createClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: KEY,
      retries: {
        random: () => 0.5,
        // The service starts listening while the client waits to retry.
        sleep: async (ms) => {
          sleeps.push(ms);
          if (s === undefined) {
            s = await startFaultServer({ port });
            open.push(s);
            s.script({ type: 'respond', status: 201, body: sessionBody('trs_after_refused') });
          }
        },
      },
    });
    open.push(c);
    const session = await c.createSession(CREATE);
    expect(session.session_id).toBe('trs_after_refused');
    expect(sleeps).toEqual([250]);
    expect(s?.hits).toHaveLength(1);
  });

  test('connection refused every time: a network error after 4 attempts with growing backoff', async () => {
    const port = await refusedPort();
    const { c, sleeps } = client(`http://127.0.0.1:${port}`);
    const err = await failure(c.createSession(CREATE));
    expect(err.kind).toBe('network');
    expect(err.message).toContain('ECONNREFUSED');
    expect(err.attempts).toBe(4);
    expect(sleeps).toEqual([250, 500, 1000]);
  });

  test('429 with Retry-After (seconds): waits exactly that long, then created once', async () => {
    const s = await server();
    s.script(
      { type: 'respond', status: 429, headers: { 'retry-after': '2' }, body: { message: 'Rate limit exceeded. Limit: 2000 requests per 1 minutes' } },
      { type: 'respond', status: 201, body: sessionBody('trs_after_429') },
    );
    const { c, sleeps } = client(s.url);
    expect((await c.createSession(CREATE)).session_id).toBe('trs_after_429');
    expect(sleeps).toEqual([2000]);
    expect(s.hits).toHaveLength(2);
  });

  test('503 with Retry-After as an HTTP date', async () => {
    const s = await server();
    const at = new Date(Date.now() + 4_000).toUTCString();
    s.script(
      { type: 'respond', status: 503, headers: { 'retry-after': at }, body: { error: { message: 'down', slug: 'HTTP_ServiceUnavailable', code: 10503 } } },
      { type: 'respond', status: 201, body: sessionBody() },
    );
    const { c, sleeps } = client(s.url);
    await c.createSession(CREATE);
    expect(s.hits).toHaveLength(2);
    expect(sleeps).toHaveLength(1);
    // An HTTP date has whole seconds: between 2 and 4 s from now, depending on the clock's fraction.
    expect(sleeps[0]).toBeGreaterThan(2_000);
    expect(sleeps[0]).toBeLessThanOrEqual(4_000);
  });

  test("the rate limiter's bare {message} 429, retries exhausted", async () => {
    const s = await server();
    s.fallback = { type: 'respond', status: 429, headers: { 'retry-after': '1' }, body: { message: 'Rate limit exceeded. Limit: 2000 requests per 1 minutes' } };
    const { c, sleeps } = client(s.url, { retries: { maxRetries: 2 } });
    const err = await failure(c.createSession(CREATE));
    expect(err).toMatchObject({ kind: 'http', status: 429, message: 'Rate limit exceeded. Limit: 2000 requests per 1 minutes', attempts: 3 });
    expect(err.slug).toBeUndefined();
    expect(sleeps).toEqual([1000, 1000]);
    expect(s.hits).toHaveLength(3);
  });

  test('a Retry-After beyond the limit gives up at once and says so', async () => {
    const s = await server();
    s.script({ type: 'respond', status: 429, headers: { 'retry-after': '600' }, body: { message: 'Rate limit exceeded' } });
    const { c, sleeps } = client(s.url);
    const err = await failure(c.createSession(CREATE));
    expect(err.status).toBe(429);
    expect(err.message).toContain('retry after 600 s');
    expect(sleeps).toEqual([]);
    expect(s.hits).toHaveLength(1);
  });

  test('a Retry-After past the per-command deadline gives up', async () => {
    const s = await server();
    s.script({ type: 'respond', status: 503, headers: { 'retry-after': '30' }, body: { message: 'down' } });
    const { c, sleeps } = client(s.url, { deadlineAt: Date.now() + 10_000 });
    const err = await failure(c.getSession('trs_x'));
    expect(err.status).toBe(503);
    expect(sleeps).toEqual([]);
    expect(s.hits).toHaveLength(1);
  });
});

describe('safe calls are retried on connection errors, timeouts, 408, 429 and 5xx', () => {
  test('500, 502, 504 then 200: three retries with growing backoff', async () => {
    const s = await server();
    s.script(
      { type: 'respond', status: 500, body: { error: { message: 'a' } } },
      { type: 'respond', status: 502, raw: '<html>Bad Gateway</html>' },
      { type: 'respond', status: 504 },
      { type: 'respond', status: 200, body: sessionBody('trs_ok') },
    );
    const { c, sleeps } = client(s.url);
    expect((await c.getSession('trs_ok')).session_id).toBe('trs_ok');
    expect(s.hits).toHaveLength(4);
    expect(sleeps).toEqual([250, 500, 1000]);
  });

  test('5xx every time: gives up after 4 attempts with the last error', async () => {
    const s = await server();
    s.fallback = { type: 'respond', status: 500, body: { error: { message: 'still broken', code: 10500, slug: 'HTTP_InternalServerError', request_id: 'req_500' } } };
    const { c } = client(s.url);
    const err = await failure(c.listTools('trs_x'));
    expect(err).toMatchObject({ kind: 'http', status: 500, message: 'still broken', request_id: 'req_500', attempts: 4 });
    expect(s.hits).toHaveLength(4);
  });

  test('408 then 429 then success', async () => {
    const s = await server();
    s.script(
      { type: 'respond', status: 408, body: { error: { message: 'timeout' } } },
      { type: 'respond', status: 429, headers: { 'retry-after': '3' }, body: { message: 'Rate limit exceeded' } },
      { type: 'respond', status: 200, body: { items: [] } },
    );
    const { c, sleeps } = client(s.url);
    expect(await c.listTools('trs_x')).toEqual({ items: [] });
    expect(sleeps).toEqual([250, 3000]);
    expect(s.hits).toHaveLength(3);
  });

  test.each([
    ['reset before the body', { type: 'reset-before-body' } as const],
    ['reset after the body', { type: 'reset-after-body' } as const],
    ['a timeout', { type: 'delay', ms: 3_000, then: { type: 'respond', status: 200, body: {} } } as const],
    ['a stalled body', { type: 'stall-body', status: 200 } as const],
  ])('a read is retried after %s', async (_name, fault) => {
    const s = await server();
    s.script(fault, { type: 'respond', status: 200, body: { items: [], next_cursor: null, total_pages: 1, current_page: 1, total_items: 0 } });
    // The retry must succeed inside the same per-attempt limit the fault exceeds: a second of it
    // keeps a loaded machine's slow round trip from timing out too (the fault holds for three).
    const { c, sleeps } = client(s.url, { timeouts: { attemptMs: 1_000 } });
    const list = await c.listToolkits('trs_x');
    expect(list.items).toEqual([]);
    expect(s.hits).toHaveLength(2);
    expect(sleeps).toEqual([250]);
  });

  test('reads time out for good: kind timeout, 4 attempts', async () => {
    const s = await server();
    s.fallback = { type: 'delay', ms: 2_000, then: { type: 'respond', status: 200, body: {} } };
    const { c } = client(s.url, { timeouts: { attemptMs: 150 } });
    const err = await failure(c.getSession('trs_x'));
    expect(err.kind).toBe('timeout');
    expect(err.attempts).toBe(4);
    expect(s.hits).toHaveLength(4);
  });

  test('search, download_url and delete are safe POSTs: retried after a reset', async () => {
    const s = await server();
    s.script(
      { type: 'reset-after-body' },
      { type: 'respond', status: 200, body: { mount_relative_path: 'a.txt', sandbox_mount_prefix: '/mnt/files' } },
    );
    const { c } = client(s.url);
    expect((await c.mountDelete('trs_x', 'a.txt')).mount_relative_path).toBe('a.txt');
    expect(s.hits).toHaveLength(2);
    expect(JSON.parse(s.hits[1]!.body)).toEqual({ mount_relative_path: 'a.txt' });
  });
});

describe('answers that are errors without retrying', () => {
  test('404 with the envelope: every field, one request', async () => {
    const s = await server();
    s.script({
      type: 'respond',
      status: 404,
      body: {
        error: {
          message: 'Session not found',
          code: 4404,
          slug: 'ToolRouterV2_SessionNotFound',
          status: 404,
          request_id: 'req_404',
          suggested_fix: 'Check the session id',
          errors: ['session_id: unknown'],
        },
      },
    });
    const { c, sleeps } = client(s.url);
    const err = await failure(c.getSession('trs_missing'));
    expect(err.toJSON()).toEqual({
      name: 'ApiError',
      kind: 'http',
      message: 'Session not found',
      method: 'GET',
      path: '/api/v3/tool_router/session/trs_missing',
      status: 404,
      slug: 'ToolRouterV2_SessionNotFound',
      code: 4404,
      request_id: 'req_404',
      suggested_fix: 'Check the session id',
      errors: ['session_id: unknown'],
      attempts: 1,
    });
    expect(s.hits).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  test('a redirect is never followed: the other host sees nothing (to a create: its outcome is unknown)', async () => {
    const s = await server();
    const other = await server();
    s.script({ type: 'respond', status: 307, headers: { location: `${other.url}/api/v3/tool_router/session?token=abc` } });
    const { c } = client(s.url);
    const err = await failure(c.createSession(CREATE));
    expect(err.kind).toBe('outcome-unknown');
    expect(err.status).toBe(307);
    expect(err.message).toContain(other.url);
    expect(err.message).not.toContain('token=abc');
    expect(s.hits).toHaveLength(1);
    expect(other.hits).toHaveLength(0);
  });

  test('a malformed success body is a decode error, not retried', async () => {
    const s = await server();
    s.script({ type: 'malformed', status: 200 });
    const { c } = client(s.url);
    const err = await failure(c.getSession('trs_x'));
    expect(err).toMatchObject({ kind: 'decode', status: 200 });
    expect(s.hits).toHaveLength(1);
  });

  test('a malformed create body says the request was processed', async () => {
    const s = await server();
    s.script({ type: 'malformed', status: 201 });
    const { c } = client(s.url);
    const err = await failure(c.createSession(CREATE));
    expect(err.kind).toBe('decode');
    expect(err.message).toContain('processed');
  });

  test('a JSON array where an object is expected is a decode error', async () => {
    const s = await server();
    s.script({ type: 'respond', status: 200, raw: '[1,2]' });
    const { c } = client(s.url);
    expect((await failure(c.listTools('trs_x'))).kind).toBe('decode');
  });

  test('a response over maxResponseSize is refused', async () => {
    const s = await server();
    s.script({ type: 'respond', status: 200, body: { items: [], pad: 'x'.repeat(5_000) } });
    const { c } = client(s.url, { maxResponseSize: 1_000 });
    const err = await failure(c.listTools('trs_x'));
    expect(err.kind).toBe('decode');
    expect(err.message).toContain('larger than 1000 bytes');
  });

  test('the wrong success code is an error (200 where create documents 201)', async () => {
    const s = await server();
    s.script({ type: 'respond', status: 200, body: sessionBody() });
    const { c } = client(s.url);
    const err = await failure(c.createSession(CREATE));
    expect(err).toMatchObject({ kind: 'outcome-unknown', status: 200 });
    expect(err.message).toContain('the service answered 200 (expected HTTP 201, got 200) where it documents 201');
  });
});

describe('--verbose traces', () => {
  test('method, URL, status, duration and headers, with the key redacted', async () => {
    const s = await server();
    s.script(
      { type: 'respond', status: 503, headers: { 'retry-after': '1', 'set-cookie': 'sid=secret-cookie' }, body: { message: 'down' } },
      { type: 'respond', status: 200, body: sessionBody() },
    );
    const lines: string[] = [];
    const { c } = client(s.url, { onTrace: (l) => lines.push(l) });
    await c.getSession('trs_test1');
    const text = lines.join('\n');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('secret-cookie');
    expect(lines).toContain(`> GET ${s.url}/api/v3/tool_router/session/trs_test1`);
    expect(lines).toContain('> x-api-key: [redacted]');
    expect(lines).toContain(`> user-agent: sessionctl/${version}`);
    expect(lines).toContain('< set-cookie: [redacted]');
    expect(lines.some((l) => /^< 503 GET .* \(\d+ ms\)$/.test(l))).toBe(true);
    expect(lines).toContain('* retrying get session in 1000 ms (Retry-After): HTTP 503');
    expect(lines.some((l) => /^< 200 GET .* \(\d+ ms\)$/.test(l))).toBe(true);
  });
});
