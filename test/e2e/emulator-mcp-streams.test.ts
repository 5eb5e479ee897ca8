/**
 * Issue 29, item 10: MCP streams on a shared emulator are bounded. Each Streamable HTTP exchange at
 * a session's mcp.url (a GET's SSE stream for as long as it stays open, a POST until its answer)
 * takes a place: past the key's share the answer is 429, past the server's total 503, each with
 * Retry-After and the error envelope, before anything is served; a stream closed, or idle past the
 * timeout, gives its place back. Real HTTP: streams held open by undici on their own connections.
 */
import { request } from 'undici';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { spawnEmulator } from '../conformance/cli-bundle.js';
import { call, type Reply } from '../conformance/emulator-http.js';

const A = 'streams-tenant-alpha-01';
const B = 'streams-tenant-bravo-02';
const ADMIN = 'streams-admin-key-0003';
const S31 = '/api/v3.1/tool_router/session';
const LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

interface Stream {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body, read to its end: what arrived before the server ended the stream. */
  ended(): Promise<string>;
  close(): void;
}

const opened: Stream[] = [];
const emulators: RunningEmulator[] = [];
afterEach(() => {
  for (const s of opened.splice(0)) s.close();
});
afterAll(async () => {
  for (const e of emulators) await e.close();
});

async function emulator(options: EmulatorOptions): Promise<{ emu: RunningEmulator; mcp: Record<string, string> }> {
  const emu = await startEmulator({ port: 0, apiKeys: [A, B], adminKeys: [ADMIN], ...options });
  emulators.push(emu);
  const mcp: Record<string, string> = {};
  for (const key of [A, B]) {
    const s = await call(emu.url, 'POST', S31, { key, body: { user_id: 'u' } });
    expect(s.status, s.text).toBe(201);
    mcp[key] = new URL(s.json.mcp.url as string).pathname;
  }
  return { emu, mcp };
}

/** Opens a GET SSE stream (as an MCP client does after initialize) and leaves it open. */
async function open(base: string, path: string, key: string): Promise<Stream> {
  const abort = new AbortController();
  const res = await request(`${base}${path}`, { method: 'GET', headers: { 'x-api-key': key, accept: 'text/event-stream' }, signal: abort.signal });
  const text = res.headers['content-type']?.toString().startsWith('text/event-stream') ? undefined : await res.body.text();
  const stream: Stream = {
    status: res.statusCode,
    headers: res.headers,
    ended: async () => text ?? (await res.body.text()),
    close: () => abort.abort(),
  };
  opened.push(stream);
  return stream;
}

const post = (base: string, path: string, key: string): Promise<Reply> => call(base, 'POST', path, { key, body: LIST, headers: { accept: 'application/json, text/event-stream' } });

function expectRefused(r: { status: number; headers: Record<string, unknown> }, body: string, status: 429 | 503): void {
  expect(r.status).toBe(status);
  expect(r.headers['retry-after']).toBe('5');
  expect(JSON.parse(body).error).toMatchObject({ status, slug: status === 429 ? 'HTTP_TooManyRequests' : 'HTTP_ServiceUnavailable', code: 10000 + status });
}

/** Opens streams until one is served, for a place a closed stream frees a moment later. */
async function openWhenFree(base: string, path: string, key: string): Promise<Stream> {
  for (let i = 0; i < 50; i++) {
    const s = await open(base, path, key);
    if (s.status === 200) return s;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  throw new Error('no place came free');
}

describe('the bound on open MCP streams', () => {
  // An emulator of its own per test: a stream closed at the end of one test frees its place a
  // moment later, which the next must not depend on.
  let emu: RunningEmulator;
  let mcp: Record<string, string>;
  beforeEach(async () => {
    ({ emu, mcp } = await emulator({ mcpStreamsPerKey: 3, mcpStreams: 5 }));
  });

  it("a key's fourth stream is 429; the others' go on up to the total, past which it is 503", async () => {
    for (let i = 0; i < 3; i++) expect((await open(emu.url, mcp[A]!, A)).status).toBe(200);
    const fourth = await open(emu.url, mcp[A]!, A);
    expectRefused(fourth, await fourth.ended(), 429);
    expect(await fourth.ended()).toContain('at most 3');
    for (let i = 0; i < 2; i++) expect((await open(emu.url, mcp[B]!, B)).status).toBe(200);
    const sixth = await open(emu.url, mcp[B]!, B);
    expectRefused(sixth, await sixth.ended(), 503);
  });

  it('a POST is an exchange too: refused while the key holds its share, served once a stream closes', async () => {
    const streams = [await open(emu.url, mcp[A]!, A), await open(emu.url, mcp[A]!, A), await open(emu.url, mcp[A]!, A)];
    const refused = await post(emu.url, mcp[A]!, A);
    expectRefused(refused, refused.text, 429);
    streams[0]!.close();
    expect((await openWhenFree(emu.url, mcp[A]!, A)).status).toBe(200);
    streams[1]!.close();
    let listed: Reply | undefined;
    for (let i = 0; i < 50 && listed?.status !== 200; i++) {
      listed = await post(emu.url, mcp[A]!, A);
      if (listed.status !== 200) await new Promise((resolve) => setTimeout(resolve, 40));
    }
    expect(listed?.status).toBe(200);
    expect(listed?.json.result.tools.length).toBeGreaterThan(0);
  });

  it('answered POSTs give their place back at once: many in a row on a full share but one', async () => {
    await open(emu.url, mcp[A]!, A);
    await open(emu.url, mcp[A]!, A);
    for (let i = 0; i < 8; i++) expect((await post(emu.url, mcp[A]!, A)).status).toBe(200);
  });

  it('refusals change nothing: received, never handled; no key is 401 and takes no place', async () => {
    const before = (await call(emu.url, 'GET', '/_emulator/stats', { key: ADMIN })).json.routes.mcp ?? { received: 0, handled: 0 };
    for (let i = 0; i < 3; i++) await open(emu.url, mcp[A]!, A);
    const refused = [await open(emu.url, mcp[A]!, A), await open(emu.url, mcp[A]!, A)];
    for (const r of refused) expect(r.status).toBe(429);
    for (let i = 0; i < 4; i++) expect((await open(emu.url, mcp[B]!, '')).status).toBe(401);
    expect((await open(emu.url, mcp[B]!, B)).status).toBe(200);
    const after = (await call(emu.url, 'GET', '/_emulator/stats', { key: ADMIN })).json.routes.mcp;
    // 4 served streams, 2 refused, 4 without a key: 10 arrived, and none is handled while open.
    expect(after.received - before.received).toBe(10);
    expect(after.handled - before.handled).toBe(0);
    // Closed, the 4 served ones are handled; the refused never are.
    for (const s of opened.splice(0)) s.close();
    let handled = 0;
    for (let i = 0; i < 50 && handled < 4; i++) {
      await new Promise((resolve) => setTimeout(resolve, 40));
      handled = (await call(emu.url, 'GET', '/_emulator/stats', { key: ADMIN })).json.routes.mcp.handled - before.handled;
    }
    expect(handled).toBe(4);
    expect((await call(emu.url, 'GET', '/_emulator/counts', { key: ADMIN })).json.sessions).toBe(2);
  });

  it("another tenant's session is 404, and the attempt leaves its place free", async () => {
    for (let i = 0; i < 5; i++) {
      const r = await open(emu.url, mcp[B]!, A);
      expect(r.status).toBe(404);
      expect(JSON.parse(await r.ended()).error.slug).toBe('HTTP_NotFound');
    }
    for (let i = 0; i < 3; i++) expect((await openWhenFree(emu.url, mcp[A]!, A)).status).toBe(200);
  });
});

describe('idle streams and defaults', () => {
  it('a stream that carries nothing for the idle time is ended, and its place is free again', async () => {
    const { emu, mcp } = await emulator({ mcpStreamsPerKey: 1, mcpIdleTimeoutMs: 300 });
    const first = await open(emu.url, mcp[A]!, A);
    expect(first.status).toBe(200);
    expect((await open(emu.url, mcp[A]!, A)).status).toBe(429);
    const started = Date.now();
    await first.ended();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await openWhenFree(emu.url, mcp[A]!, A)).status).toBe(200);
  });

  it('without options: 16 per key; the seventeenth is 429', async () => {
    const emu = await startEmulator({ port: 0 });
    emulators.push(emu);
    const [path, theirs] = await Promise.all([A, B].map(async (key) => new URL((await call(emu.url, 'POST', S31, { key, body: { user_id: 'u' } })).json.mcp.url as string).pathname));
    for (let i = 0; i < 16; i++) expect((await open(emu.url, path!, A)).status).toBe(200);
    expect((await open(emu.url, path!, A)).status).toBe(429);
    expect((await open(emu.url, theirs!, B)).status).toBe(200);
  });

  it('sessionctl emulator --mcp-streams-per-key 1 --mcp-streams 2: the flags bound it', async () => {
    const emu = await spawnEmulator(['--port', '0', '--api-key', A, '--api-key', B, '--mcp-streams-per-key', '1', '--mcp-streams', '2']);
    try {
      const paths = await Promise.all([A, B].map(async (key) => new URL((await call(emu.url, 'POST', S31, { key, body: { user_id: 'u' } })).json.mcp.url as string).pathname));
      expect((await open(emu.url, paths[0]!, A)).status).toBe(200);
      expect((await open(emu.url, paths[0]!, A)).status).toBe(429);
      expect((await open(emu.url, paths[1]!, B)).status).toBe(200);
      const third = await open(emu.url, paths[1]!, B);
      expect(third.status).toBe(429);
    } finally {
      for (const s of opened.splice(0)) s.close();
      expect(await emu.stop()).toBe(0);
    }
  });
});
