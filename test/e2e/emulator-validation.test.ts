import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { call, createSession, SESSION } from '../conformance/emulator-http.js';
import { skipBecause, wildcardBindAllowed, wildcardBindReason } from '../helpers/skip.js';

const KEY = 'validation-key-123456';
let emu: RunningEmulator;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, maxBodyBytes: 4096 });
});
afterAll(() => emu.close());

async function create(body: unknown): Promise<{ status: number; error: Record<string, unknown> }> {
  const r = await call(emu.url, 'POST', SESSION, { key: KEY, body });
  return { status: r.status, error: r.json?.error };
}

describe('create requests are validated as the service does', () => {
  it.each([
    ['missing user_id', { toolkits: { enable: ['gmail'] } }, ['Error in payload.user_id: Required']],
    ['wrong type', { user_id: 42 }, ['Error in payload.user_id: Expected string, received number']],
    ['empty user_id', { user_id: '' }, ['Error in payload.user_id: must NOT have fewer than 1 characters']],
    ['response spelling (closed toolkits object)', { user_id: 'u', toolkits: { enabled: ['gmail'] } }, ['Error in payload.toolkits: Invalid input']],
    ['both lists', { user_id: 'u', toolkits: { enable: ['gmail'], disable: ['slack'] } }, ['Error in payload.toolkits: Invalid input']],
    ['both tool lists', { user_id: 'u', tools: { gmail: { enable: ['GMAIL_SEND_EMAIL'], disable: ['GMAIL_FETCH_EMAILS'] } } }, ['Error in payload.tools.gmail: Invalid input']],
    ['bad tag', { user_id: 'u', tags: ['readOnlyHint', 'nope'] }, [
      "Error in payload.tags[1]: Invalid enum value. Expected 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint', received 'nope'",
    ]],
    ['bad tag in object form', { user_id: 'u', tags: { disable: ['x'] } }, [
      "Error in payload.tags.disable[0]: Invalid enum value. Expected 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint', received 'x'",
    ]],
    ['closed manage_connections', { user_id: 'u', manage_connections: { enabled: false } }, ["Error in payload.manage_connections: Unrecognized key: 'enabled'"]],
    ['closed workbench', { user_id: 'u', workbench: { enable: true, proxy_execution_enabled: false } }, ["Error in payload.workbench: Unrecognized key: 'proxy_execution_enabled'"]],
    ['workbench threshold must be > 0', { user_id: 'u', workbench: { auto_offload_threshold: 0 } }, ['Error in payload.workbench.auto_offload_threshold: must be > 0']],
    ['auth config id format', { user_id: 'u', auth_configs: { gmail: 'xyz' } }, ['Error in payload.auth_configs.gmail: Invalid authConfigId']],
    ['callback url format', { user_id: 'u', manage_connections: { callback_url: 'not a url' } }, ['Error in payload.manage_connections.callback_url: Invalid uri']],
    ['preload must be an array of strings', { user_id: 'u', preload: { tools: 'GMAIL_SEND_EMAIL' } }, ['Error in payload.preload.tools: Expected array, received string']],
  ])('%s: 400 HTTP_BadRequest naming the field', async (_name, body, errors) => {
    const r = await create(body);
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({ slug: 'HTTP_BadRequest', code: 10400, status: 400 });
    expect(r.error['errors']).toEqual(errors);
    expect(r.error['request_id']).toMatch(/^req_/);
  });

  it('reports several problems at once', async () => {
    const r = await create({ user_id: 1, manage_connections: { enable: 'yes' }, tags: ['bad'] });
    expect(r.error['errors']).toEqual([
      'Error in payload.user_id: Expected string, received number',
      'Error in payload.manage_connections.enable: Expected boolean,null, received string',
      "Error in payload.tags[0]: Invalid enum value. Expected 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint', received 'bad'",
    ]);
  });

  it('unknown toolkit slugs anywhere are 400 ToolRouterV2_InvalidToolkitSlugs', async () => {
    const r = await create({
      user_id: 'u',
      toolkits: { disable: ['gmail', 'nope-1'] },
      tools: { 'nope-2': { enable: ['X'] } },
      auth_configs: { 'nope-3': 'ac_1' },
      connected_accounts: { 'nope-4': 'ca_1' },
    });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({ slug: 'ToolRouterV2_InvalidToolkitSlugs', code: 4305, message: 'Invalid toolkit slugs: nope-1, nope-2, nope-3, nope-4' });
    expect(r.error['errors']).toEqual([
      "Error in payload.toolkits.disable[1]: Unknown toolkit 'nope-1'",
      "Error in payload.tools.nope-2: Unknown toolkit 'nope-2'",
      "Error in payload.auth_configs.nope-3: Unknown toolkit 'nope-3'",
      "Error in payload.connected_accounts.nope-4: Unknown toolkit 'nope-4'",
    ]);
  });

  it('unknown tool slugs (or another toolkit’s) are 400, and so are bad preloads', async () => {
    const r = await create({
      user_id: 'u',
      tools: { github: { disable: ['GITHUB_NOT_A_TOOL', 'GMAIL_SEND_EMAIL'] } },
      preload: { tools: ['COMPOSIO_SEARCH_TOOLS', 'NOPE_TOOL'] },
    });
    expect(r.status).toBe(400);
    expect(r.error).toMatchObject({ slug: 'ToolRouterV2_BadRequest', code: 4300 });
    expect(r.error['errors']).toEqual([
      "Error in payload.tools.github.disable[0]: Unknown tool 'GITHUB_NOT_A_TOOL' for toolkit 'github'",
      "Error in payload.tools.github.disable[1]: Unknown tool 'GMAIL_SEND_EMAIL' for toolkit 'github'",
      "Error in payload.preload.tools[0]: Meta tool 'COMPOSIO_SEARCH_TOOLS' cannot be preloaded",
      "Error in payload.preload.tools[1]: Unknown tool 'NOPE_TOOL'",
    ]);
  });

  it('invalid JSON is 400', async () => {
    const r = await call(emu.url, 'POST', SESSION, { key: KEY, raw: '{"user_id": ', headers: { 'content-type': 'application/json' } });
    expect(r.status).toBe(400);
    expect(r.json.error).toMatchObject({ slug: 'HTTP_BadRequest', errors: ['Error in payload: Invalid JSON'] });
  });
});

describe('other routes', () => {
  it('a malformed session id is 400 on every session route', async () => {
    for (const [method, path, body] of [
      ['GET', `${SESSION}/nope`, undefined],
      ['POST', `${SESSION}/nope/execute`, { tool_slug: 'X' }],
      ['GET', `${SESSION}/trs_/toolkits`, undefined],
      ['GET', `${SESSION}/sess_123/mounts/files/items`, undefined],
    ] as const) {
      const r = await call(emu.url, method, path, { key: KEY, body });
      expect(r.status, path).toBe(400);
      expect(r.json.error.slug).toBe('HTTP_BadRequest');
    }
  });

  it('query parameters are typed from the contract', async () => {
    const id = await createSession(emu.url, KEY);
    const r = await call(emu.url, 'GET', `${SESSION}/${id}/toolkits?limit=500`, { key: KEY });
    expect(r.status).toBe(400);
    expect(r.json.error.errors).toEqual(['Error in query.limit: must be <= 50']);
    const r2 = await call(emu.url, 'GET', `${SESSION}/${id}/toolkits?is_connected=maybe`, { key: KEY });
    expect(r2.json.error.errors).toEqual(['Error in query.is_connected: Expected boolean,null, received string']);
  });

  it('execute bodies: required fields and the meta enum', async () => {
    const id = await createSession(emu.url, KEY);
    const r = await call(emu.url, 'POST', `${SESSION}/${id}/execute`, { key: KEY, body: { arguments: {} } });
    expect(r.json.error.errors).toEqual(['Error in payload.tool_slug: Required']);
    const m = await call(emu.url, 'POST', `${SESSION}/${id}/execute_meta`, { key: KEY, body: { slug: 'COMPOSIO_NOPE' } });
    expect(m.status).toBe(400);
    expect(m.json.error.errors[0]).toMatch(/^Error in payload\.slug: Invalid enum value\. Expected 'COMPOSIO_SEARCH_TOOLS'/);
    const s = await call(emu.url, 'POST', `${SESSION}/${id}/search`, { key: KEY, body: { queries: [] } });
    expect(s.json.error.errors).toEqual(['Error in payload.queries: must NOT have fewer than 1 items']);
  });

  it('unknown paths are 404 and wrong methods 405, with the envelope', async () => {
    const r = await call(emu.url, 'GET', '/api/v3/nothing', { key: KEY });
    expect(r.status).toBe(404);
    expect(r.json.error.slug).toBe('HTTP_NotFound');
    const m = await call(emu.url, 'DELETE', SESSION, { key: KEY });
    expect(m.status).toBe(405);
    expect(m.json.error.code).toBe(10405);
  });
});

describe('hardening', () => {
  it('a body over the limit is 413 by Content-Length', async () => {
    const r = await call(emu.url, 'POST', SESSION, { key: KEY, body: { user_id: 'x'.repeat(5000) } });
    expect(r.status).toBe(413);
    expect(r.json.error.slug).toBe('HTTP_PayloadTooLarge');
  });

  it('a chunked body over the limit is 413 while streaming', async () => {
    const { request } = await import('undici');
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let i = 0; i < 10; i++) yield Buffer.alloc(1000, 0x20);
    }
    const res = await request(`${emu.url}${SESSION}`, { method: 'POST', headers: { 'x-api-key': KEY }, body: Readable.from(chunks()) }).catch((e: unknown) => e);
    // The server answers 413 and closes; depending on timing the client sees the answer or the close.
    if (res instanceof Error) expect((res as NodeJS.ErrnoException).code ?? res.name).toMatch(/UND_ERR_SOCKET|ECONNRESET|EPIPE|SocketError/);
    else {
      expect((res as { statusCode: number }).statusCode).toBe(413);
      await (res as { body: { dump(): Promise<void> } }).body.dump();
    }
  });

  it('a foreign Host header is refused with 421 (DNS rebinding)', async () => {
    const r = await call(emu.url, 'GET', '/_emulator/health', { headers: { host: 'evil.example:4010' } });
    expect(r.status).toBe(421);
    const ok = await call(emu.url, 'GET', '/_emulator/health', { headers: { host: `localhost:${emu.port}` } });
    expect(ok.status).toBe(200);
  });

  it('answers carry no CORS headers and errors no stack traces', async () => {
    const r = await call(emu.url, 'POST', SESSION, { key: KEY, raw: 'nope', headers: { origin: 'https://evil.example' } });
    expect(Object.keys(r.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(r.text).not.toMatch(/\bat .*\(.*:\d+:\d+\)/);
  });

  it('IPv6 loopback works', async () => {
    const v6 = await startEmulator({ host: '::1' });
    try {
      expect(v6.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await call(v6.url, 'GET', '/_emulator/health')).status).toBe(200);
    } finally {
      await v6.close();
    }
  });

  it.skipIf(skipBecause(!wildcardBindAllowed, wildcardBindReason))('a wildcard bind accepts any Host and hands out loopback URLs', async () => {
    const wild = await startEmulator({ host: '0.0.0.0' });
    try {
      expect(wild.url).toBe(`http://127.0.0.1:${wild.port}`);
      expect((await call(wild.url, 'GET', '/_emulator/health', { headers: { host: 'build-box.lan:4010' } })).status).toBe(200);
    } finally {
      await wild.close();
    }
  });

  it('binds loopback by default', () => {
    expect(emu.host).toBe('127.0.0.1');
    expect(emu.url).toBe(`http://127.0.0.1:${emu.port}`);
  });
});
