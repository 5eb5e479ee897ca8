import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createClient, type ClientOptions, type SessionClient } from '../../src/client/client.js';
import { downloadToFile, uploadFile } from '../../src/client/presigned.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { emulatorAdmin } from '../helpers/emulator-admin.js';
import { apiFailure } from '../helpers/rejection.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Every client method against the real emulator over loopback HTTP, then the retry policy against
 * the emulator's scripted faults, counting through its stats how many requests reached it and how
 * many were handled (a create must never be handled twice).
 */

const KEY = 'ak_client_emulator_1f2e3d';
const OTHER_KEY = 'ak_client_emulator_other_9a8b';
const ADMIN_KEY = 'ak_client_emulator_admin_7c6d';
let emu: RunningEmulator;
let dir: string;
const clients: SessionClient[] = [];

beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY, OTHER_KEY], adminKeys: [ADMIN_KEY] });
  dir = tempDir('client-emu');
});

afterAll(async () => {
  for (const c of clients) await c.close();
  await emu.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await admin('POST', '/reset');
});

function admin(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any> {
  return emulatorAdmin(emu.url, method, path, body, KEY);
}

async function stats(route: string): Promise<{ received: number; handled: number }> {
  const s = (await admin('GET', '/stats')) as { routes: Record<string, { received: number; handled: number }> };
  return s.routes[route] ?? { received: 0, handled: 0 };
}

function client(extra: Partial<ClientOptions> = {}): { c: SessionClient; sleeps: number[] } {
  const sleeps: number[] = [];
  const c = createClient({
    baseUrl: emu.url,
    apiKey: KEY,
    ...extra,
    retries: { random: () => 0.5, sleep: async (ms) => void sleeps.push(ms), ...extra.retries },
  });
  clients.push(c);
  return { c, sleeps };
}

const failure = apiFailure;

describe('every client method against the emulator', () => {
  test('create and get: the effective config in response spelling', async () => {
    const { c } = client();
    const created = await c.createSession({
      user_id: 'user-1',
      toolkits: { enable: ['gmail', 'github'] },
      tags: ['readOnlyHint'],
      manage_connections: { enable: false },
    });
    expect(created.session_id).toMatch(/^trs_/);
    expect(created.mcp.type).toBe('http');
    expect(created.config.user_id).toBe('user-1');
    expect(created.config.toolkits).toEqual({ enabled: ['gmail', 'github'] });
    expect(created.config.tags).toEqual({ enabled: ['readOnlyHint'] });
    expect(created.config.manage_connections?.enabled).toBe(false);
    expect(created.tool_router_tools).toContain('COMPOSIO_SEARCH_TOOLS');
    expect(created.tool_router_tools).not.toContain('COMPOSIO_MANAGE_CONNECTIONS');

    const got = await c.getSession(created.session_id);
    expect(got.session_id).toBe(created.session_id);
    expect(got.config).toEqual(created.config);
    expect(got.tool_router_tools).toEqual(created.tool_router_tools);
    expect((await stats('create')).handled).toBe(1);
  });

  test('toolkits: pagination, filters (comma-joined), search', async () => {
    const { c } = client();
    const { session_id: id } = await c.createSession({ user_id: 'u', toolkits: { enable: ['gmail', 'github', 'slack'] } });
    const page1 = await c.listToolkits(id, { limit: 2 });
    expect(page1.items).toHaveLength(2);
    expect(page1.total_items).toBe(3);
    expect(typeof page1.next_cursor).toBe('string');
    const page2 = await c.listToolkits(id, { limit: 2, cursor: page1.next_cursor as string });
    expect(page2.items).toHaveLength(1);
    const slugs = [...page1.items, ...page2.items].map((t) => t.slug).sort();
    expect(slugs).toEqual(['github', 'gmail', 'slack']);

    const filtered = await c.listToolkits(id, { toolkits: ['gmail', 'slack'] });
    expect(filtered.items.map((t) => t.slug).sort()).toEqual(['gmail', 'slack']);
    const searched = await c.listToolkits(id, { search: 'github' });
    expect(searched.items.map((t) => t.slug)).toContain('github');
    expect((await c.listToolkits(id, { is_connected: true })).items).toEqual([]);
  });

  test('tools, search, execute and execute_meta', async () => {
    const { c } = client();
    const { session_id: id } = await c.createSession({ user_id: 'u', toolkits: { enable: ['gmail'] } });
    const tools = await c.listTools(id);
    expect(tools.items.map((t) => t.slug)).toContain('COMPOSIO_SEARCH_TOOLS');

    const found = await c.search(id, { queries: [{ use_case: 'send an email' }] });
    expect(found.success).toBe(true);
    expect(found.results[0]?.index).toBe(1);
    expect(found.results[0]?.use_case).toBe('send an email');

    const run = await c.execute(id, { tool_slug: 'GMAIL_SEND_EMAIL', arguments: { recipient_email: 'a@example.com', body: 'hi' } });
    expect(typeof run.log_id).toBe('string');
    expect(run).toHaveProperty('data');
    expect(run).toHaveProperty('error');

    const meta = await c.executeMeta(id, { slug: 'COMPOSIO_SEARCH_TOOLS', arguments: { queries: [{ use_case: 'send an email' }] } });
    expect(typeof meta.log_id).toBe('string');
    expect(meta).toHaveProperty('data');
  });

  test('link: visiting the redirect URL completes the connection', async () => {
    const { c } = client();
    const { session_id: id } = await c.createSession({ user_id: 'u', toolkits: { enable: ['github'] } });
    const link = await c.link(id, { toolkit: 'github' });
    expect(link.link_token).toBeTruthy();
    expect(link.connected_account_id).toMatch(/^ca_/);
    const visit = await request(link.redirect_url);
    await visit.body.dump();
    expect(visit.statusCode).toBeLessThan(400);
    const connected = await c.listToolkits(id, { is_connected: true });
    expect(connected.items.map((t) => t.slug)).toEqual(['github']);
    expect(connected.items[0]?.connected_account?.status).toBe('ACTIVE');

    const proxied = await c.proxyExecute(id, { toolkit_slug: 'github', endpoint: '/user', method: 'GET' });
    expect(typeof proxied.status).toBe('number');
  });

  test('mounts: upload URL, PUT, list, download URL, GET, delete', async () => {
    const { c } = client();
    const { session_id: id } = await c.createSession({ user_id: 'u' });
    const data = randomBytes(64 * 1024);
    const src = join(dir, 'upload.bin');
    await writeFile(src, data);

    const up = await c.mountUploadUrl(id, 'data/upload.bin', { mimetype: 'application/octet-stream' });
    expect(up.mount_relative_path).toBe('data/upload.bin');
    expect((await uploadFile(up.upload_url, src)).bytes).toBe(data.length);

    const listed = await c.listMountItems(id, { mount_relative_prefix: 'data/' });
    expect(listed.items.map((i) => [i.mount_relative_path, i.size])).toEqual([['data/upload.bin', data.length]]);

    const down = await c.mountDownloadUrl(id, 'data/upload.bin');
    const dest = join(dir, 'download.bin');
    await downloadToFile(down.download_url, dest);
    expect((await readFile(dest)).equals(data)).toBe(true);

    const deleted = await c.mountDelete(id, 'data/upload.bin');
    expect(deleted.mount_relative_path).toBe('data/upload.bin');
    expect((await c.listMountItems(id)).items).toEqual([]);
    // Idempotent by contract.
    await c.mountDelete(id, 'data/upload.bin');
  });
});

describe('errors come with the envelope', () => {
  test('404 for a missing session, 400 for a malformed id', async () => {
    const { c } = client();
    const missing = await failure(c.getSession('trs_doesnotexist0'));
    expect(missing).toMatchObject({ kind: 'http', status: 404 });
    expect(missing.slug).toBeTruthy();
    expect(missing.request_id).toBeTruthy();
    const malformed = await failure(c.getSession('not-a-session-id'));
    expect(malformed).toMatchObject({ kind: 'http', status: 400 });
  });

  test("another key's session is a 404", async () => {
    const { c } = client();
    const { session_id: id } = await c.createSession({ user_id: 'u' });
    const { c: other } = client({ apiKey: OTHER_KEY });
    expect((await failure(other.getSession(id))).status).toBe(404);
  });

  test('an unknown key is 401 HTTP_Unauthorized', async () => {
    const { c } = client({ apiKey: 'ak_not_accepted_here' });
    expect(await failure(c.createSession({ user_id: 'u' }))).toMatchObject({ status: 401, slug: 'HTTP_Unauthorized', code: 10401 });
  });

  test('unknown toolkit slugs and a field in response spelling are 400 with details', async () => {
    const { c } = client();
    const slugs = await failure(c.createSession({ user_id: 'u', toolkits: { enable: ['no_such_toolkit_xyz'] } }));
    expect(slugs).toMatchObject({ status: 400, slug: 'ToolRouterV2_InvalidToolkitSlugs' });
    // The response spelling in a request is a 400 at the service (facts §4.2): `toolkits` variants are closed.
    const field = await failure(c.createSession({ user_id: 'u', toolkits: { enabled: ['gmail'] } } as never));
    expect(field).toMatchObject({ status: 400, slug: 'HTTP_BadRequest', code: 10400 });
    expect(field.errors?.length).toBeGreaterThan(0);
  });
});

describe('the retry policy against emulator faults', () => {
  test('reset after handling a create: outcome unknown, handled once, not retried', async () => {
    await admin('POST', '/faults', { route: 'create', reset: 'after' });
    const { c, sleeps } = client();
    expect((await failure(c.createSession({ user_id: 'u' }))).kind).toBe('outcome-unknown');
    expect(await stats('create')).toEqual({ received: 1, handled: 1 });
    expect(sleeps).toEqual([]);
  });

  test('reset before handling a create: outcome unknown to the client, nothing created, not retried', async () => {
    await admin('POST', '/faults', { route: 'create', reset: 'before' });
    const { c } = client();
    expect((await failure(c.createSession({ user_id: 'u' }))).kind).toBe('outcome-unknown');
    expect(await stats('create')).toEqual({ received: 1, handled: 0 });
  });

  test('a create that times out is not retried', async () => {
    await admin('POST', '/faults', { route: 'create', latency_ms: 1_500 });
    const { c } = client({ timeouts: { attemptMs: 200 } });
    expect((await failure(c.createSession({ user_id: 'u' }))).kind).toBe('outcome-unknown');
    expect((await stats('create')).received).toBe(1);
  });

  test('503 with Retry-After on create: waits as told, created once', async () => {
    await admin('POST', '/faults', { route: 'create', status: 503, retry_after: 2 });
    const { c, sleeps } = client();
    expect((await c.createSession({ user_id: 'u' })).session_id).toMatch(/^trs_/);
    expect(sleeps).toEqual([2000]);
    expect(await stats('create')).toEqual({ received: 2, handled: 1 });
  });

  test('429 twice on create: retried, created once', async () => {
    await admin('POST', '/faults', { route: 'create', status: 429, times: 2 });
    const { c, sleeps } = client();
    await c.createSession({ user_id: 'u' });
    expect(sleeps).toHaveLength(2);
    expect(await stats('create')).toEqual({ received: 3, handled: 1 });
  });

  test('500 on create is not retried', async () => {
    await admin('POST', '/faults', { route: 'create', status: 500 });
    const { c } = client();
    const err = await failure(c.createSession({ user_id: 'u' }));
    expect(err.status).toBe(500);
    expect(err.slug).toBeTruthy();
    expect(await stats('create')).toEqual({ received: 1, handled: 0 });
  });

  test('a read is retried through a 502 and a reset', async () => {
    const { c, sleeps } = client();
    const { session_id: id } = await c.createSession({ user_id: 'u' });
    await admin('POST', '/faults', [
      { route: 'get', status: 502 },
      { route: 'get', reset: 'before' },
    ]);
    expect((await c.getSession(id)).session_id).toBe(id);
    expect(await stats('get')).toEqual({ received: 3, handled: 1 });
    expect(sleeps).toEqual([250, 500]);
  });

  test('a malformed body is a decode error', async () => {
    const { c } = client();
    const { session_id: id } = await c.createSession({ user_id: 'u' });
    await admin('POST', '/faults', { route: 'get', malformed: true });
    expect(await failure(c.getSession(id))).toMatchObject({ kind: 'decode', status: 200 });
    expect(await stats('get')).toEqual({ received: 1, handled: 1 });
  });

  test("the rate limiter's 429 with Retry-After and a bare message", async () => {
    // The limit is the whole emulator's setting: the admin key's to change.
    await emulatorAdmin(emu.url, 'POST', '/rate-limit', { limit: 1, window_ms: 60_000 }, ADMIN_KEY);
    const { c } = client({ retries: { maxRetries: 0 } });
    await c.createSession({ user_id: 'u' });
    const err = await failure(c.createSession({ user_id: 'u' }));
    expect(err.status).toBe(429);
    expect(err.message).toMatch(/rate limit/i);
    await emulatorAdmin(emu.url, 'POST', '/rate-limit', { limit: null }, ADMIN_KEY);
  });
});
