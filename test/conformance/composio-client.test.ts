/**
 * Conformance with a client nobody here wrote: the official generated client
 * `@composio/client@0.1.0-alpha.62` drives all 13 operations against `sessionctl emulator` (spawned
 * as a process), and every response body is validated against the contract's response schema for
 * that operation (converted from `contract/tool-router-v3.openapi.json` here, with ajv). Errors (400,
 * 401, 404) arrive as the client's typed errors and carry the contract's error envelope.
 */
import { readFileSync } from 'node:fs';
import Composio, { AuthenticationError, BadRequestError, NotFoundError } from '@composio/client';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customFormats, operationsOf, type OperationSchemas } from '../../scripts/generate/openapi-to-json-schema.js';
import { repo, spawnEmulator, type SpawnedEmulator } from './cli-bundle.js';

const KEY_A = 'conformance-key-a-0123456789';
const KEY_B = 'conformance-key-b-9876543210';

const contract: unknown = JSON.parse(readFileSync(`${repo}contract/tool-router-v3.openapi.json`, 'utf8'));
const ops = operationsOf(contract);
const ajv = new Ajv({ allErrors: true, strict: false });
(addFormatsModule as unknown as (a: Ajv) => void)(ajv);
for (const [name, re] of Object.entries(customFormats)) ajv.addFormat(name, re);
const validators = new Map<string, ValidateFunction>();

function op(operationId: string): OperationSchemas {
  const o = ops[operationId];
  if (o === undefined) throw new Error(`no operation ${operationId} in the contract`);
  return o;
}

/** Asserts `body` matches the contract's success schema of `operationId`; shows ajv's errors if not. */
function expectConforms(operationId: string, body: unknown, schema: 'response' | 'error' = 'response'): void {
  const key = `${operationId}:${schema}`;
  let v = validators.get(key);
  if (v === undefined) {
    v = ajv.compile(op(operationId)[schema]);
    validators.set(key, v);
  }
  const ok = v(body);
  expect(ok ? [] : v.errors, `${operationId} ${schema} body must match the contract`).toEqual([]);
}

let emu: SpawnedEmulator;
let client: Composio;
let other: Composio;
let sessionId: string;

beforeAll(async () => {
  emu = await spawnEmulator(['--port', '0', '--api-key', KEY_A, '--api-key', KEY_B]);
  client = new Composio({ apiKey: KEY_A, baseURL: emu.url, maxRetries: 0 });
  other = new Composio({ apiKey: KEY_B, baseURL: emu.url, maxRetries: 0 });
}, 30_000);

afterAll(async () => {
  await emu?.stop();
});

describe('@composio/client alpha.62 against sessionctl emulator', () => {
  it('create (201) and retrieve (200) conform', async () => {
    const { data, response } = await client.toolRouter.session
      .create({
        user_id: 'conformance-user',
        toolkits: { enable: ['gmail', 'github', 'hackernews', 'slack'] },
        tools: { github: { tags: { disable: ['destructiveHint'] } } },
        manage_connections: { enable: true, callback_url: 'https://example.com/done' },
      })
      .withResponse();
    expect(response.status).toBe(201);
    expectConforms('postToolRouterSession', data);
    expect(data.session_id).toMatch(/^trs_/);
    expect(data.config.toolkits).toEqual({ enabled: ['gmail', 'github', 'hackernews', 'slack'] });
    sessionId = data.session_id;

    const got = await client.toolRouter.session.retrieve(sessionId).withResponse();
    expect(got.response.status).toBe(200);
    expectConforms('getToolRouterSessionBySessionId', got.data);
    expect(got.data.config).toEqual(data.config);
  });

  it('toolkits (200) conforms, pages with the cursor, and filters', async () => {
    const first = await client.toolRouter.session.toolkits(sessionId, { limit: 3 }).withResponse();
    expect(first.response.status).toBe(200);
    expectConforms('getToolRouterSessionBySessionIdToolkits', first.data);
    expect(first.data.items.map((t) => t.slug)).toEqual(['github', 'gmail', 'hackernews']);
    expect(first.data.total_items).toBe(4);
    expect(first.data.total_pages).toBe(2);
    expect(typeof first.data.next_cursor).toBe('string');
    const second = await client.toolRouter.session.toolkits(sessionId, { cursor: first.data.next_cursor as string });
    expectConforms('getToolRouterSessionBySessionIdToolkits', second);
    expect(second.items.map((t) => t.slug)).toEqual(['slack']);
    expect(second.next_cursor).toBeNull();
    const filtered = await client.toolRouter.session.toolkits(sessionId, { toolkits: ['gmail', 'slack'], search: 'sl' });
    expectConforms('getToolRouterSessionBySessionIdToolkits', filtered);
    expect(filtered.items.map((t) => t.slug)).toEqual(['slack']);
  });

  it('tools (200) conforms and lists the meta tools', async () => {
    const { data, response } = await client.toolRouter.session.tools(sessionId).withResponse();
    expect(response.status).toBe(200);
    expectConforms('getToolRouterSessionBySessionIdTools', data);
    expect(data.items.map((t) => t.slug)).toEqual([
      'COMPOSIO_GET_TOOL_SCHEMAS',
      'COMPOSIO_MANAGE_CONNECTIONS',
      'COMPOSIO_MULTI_EXECUTE_TOOL',
      'COMPOSIO_REMOTE_BASH_TOOL',
      'COMPOSIO_REMOTE_WORKBENCH',
      'COMPOSIO_SEARCH_TOOLS',
    ]);
  });

  it('search (200) conforms and ranks matching tools', async () => {
    const { data, response } = await client.toolRouter.session
      .search(sessionId, { queries: [{ use_case: 'send an email with gmail' }, { use_case: 'zzzz qqqq' }] })
      .withResponse();
    expect(response.status).toBe(200);
    expectConforms('postToolRouterSessionBySessionIdSearch', data);
    expect(data.results[0]?.primary_tool_slugs[0]).toBe('GMAIL_SEND_EMAIL');
    expect(data.results[1]?.primary_tool_slugs).toEqual([]);
    expect(data.error).toBe('1 out of 2 searches failed');
  });

  it('link (201) conforms, and visiting its redirect_url connects the toolkit', async () => {
    const { data, response } = await client.toolRouter.session.link(sessionId, { toolkit: 'gmail' }).withResponse();
    expect(response.status).toBe(201);
    expectConforms('postToolRouterSessionBySessionIdLink', data);
    const before = await client.toolRouter.session.toolkits(sessionId, { is_connected: true });
    expect(before.items).toEqual([]);
    const visit = await fetch(data.redirect_url, { redirect: 'manual' });
    expect(visit.status).toBe(302);
    expect(visit.headers.get('location')).toBe(`https://example.com/done?status=success&connected_account_id=${data.connected_account_id}`);
    const after = await client.toolRouter.session.toolkits(sessionId, { is_connected: true });
    expectConforms('getToolRouterSessionBySessionIdToolkits', after);
    expect(after.items.map((t) => [t.slug, t.connected_account?.id, t.connected_account?.status])).toEqual([
      ['gmail', data.connected_account_id, 'ACTIVE'],
    ]);
  });

  it('execute (200) conforms: a result, and a tool-level failure as 200 with error', async () => {
    const ok = await client.toolRouter.session
      .execute(sessionId, { tool_slug: 'GMAIL_SEND_EMAIL', arguments: { recipient_email: 'a@example.com', body: 'hi' } })
      .withResponse();
    expect(ok.response.status).toBe(200);
    expectConforms('postToolRouterSessionBySessionIdExecute', ok.data);
    expect(ok.data.error).toBeNull();
    const again = await client.toolRouter.session.execute(sessionId, { tool_slug: 'GMAIL_SEND_EMAIL', arguments: { recipient_email: 'a@example.com', body: 'hi' } });
    expect(again.data).toEqual(ok.data.data);
    const failed = await client.toolRouter.session.execute(sessionId, { tool_slug: 'GMAIL_SEND_EMAIL', arguments: {} }).withResponse();
    expect(failed.response.status).toBe(200);
    expectConforms('postToolRouterSessionBySessionIdExecute', failed.data);
    expect(failed.data.error).toBe('Missing required parameter(s): recipient_email, body');
  });

  it('execute_meta (200) conforms', async () => {
    const { data, response } = await client.toolRouter.session
      .executeMeta(sessionId, { slug: 'COMPOSIO_SEARCH_TOOLS', arguments: { queries: [{ use_case: 'list github issues' }] } })
      .withResponse();
    expect(response.status).toBe(200);
    expectConforms('postToolRouterSessionBySessionIdExecuteMeta', data);
    expect(data.error).toBeNull();
  });

  it('proxy_execute (200) conforms and echoes the upstream request', async () => {
    const { data, response } = await client.toolRouter.session
      .proxyExecute(sessionId, {
        toolkit_slug: 'gmail',
        endpoint: '/gmail/v1/users/me/profile',
        method: 'GET',
        parameters: [{ name: 'fields', value: 'emailAddress', type: 'query' }],
      })
      .withResponse();
    expect(response.status).toBe(200);
    expectConforms('postToolRouterSessionBySessionIdProxyExecute', data);
    expect(data.status).toBe(200);
    expect((data.data as { echo: { method: string; query: unknown } }).echo).toMatchObject({ method: 'GET', query: { fields: 'emailAddress' } });
  });

  it('mount upload_url (201), list (200), download_url (201) and delete (200) conform', async () => {
    const up = await client.toolRouter.session.files
      .createUploadURL('files', { session_id: sessionId, mount_relative_path: 'data/report.csv', mimetype: 'text/csv' })
      .withResponse();
    expect(up.response.status).toBe(201);
    expectConforms('postToolRouterSessionBySessionIdMountsByMountIdUploadUrl', up.data);
    const put = await fetch(up.data.upload_url, { method: 'PUT', body: 'a,b\n1,2\n' });
    expect(put.status).toBe(200);

    const list = await client.toolRouter.session.files.list('files', { session_id: sessionId }).withResponse();
    expect(list.response.status).toBe(200);
    expectConforms('getToolRouterSessionBySessionIdMountsByMountIdItems', list.data);
    expect(list.data.items.map((i) => [i.mount_relative_path, i.size, i.sandbox_mount_prefix])).toEqual([['data/report.csv', 8, '/mnt/files']]);

    const down = await client.toolRouter.session.files
      .createDownloadURL('files', { session_id: sessionId, mount_relative_path: 'data/report.csv' })
      .withResponse();
    expect(down.response.status).toBe(201);
    expectConforms('postToolRouterSessionBySessionIdMountsByMountIdDownloadUrl', down.data);
    const got = await fetch(down.data.download_url);
    expect(await got.text()).toBe('a,b\n1,2\n');

    const del = await client.toolRouter.session.files.delete('files', { session_id: sessionId, mount_relative_path: 'data/report.csv' }).withResponse();
    expect(del.response.status).toBe(200);
    expectConforms('postToolRouterSessionBySessionIdMountsByMountIdDelete', del.data);
    const empty = await client.toolRouter.session.files.list('files', { session_id: sessionId });
    expect(empty.items).toEqual([]);
  });

  it('400 with the envelope: the response spelling in a create request', async () => {
    const err = await client.toolRouter.session
      .create({ user_id: 'u', toolkits: { enabled: ['gmail'] } } as never)
      .then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    const e = err as BadRequestError;
    expect(e.status).toBe(400);
    expectConforms('postToolRouterSession', e.error, 'error');
    expect(e.error).toMatchObject({ error: { slug: 'HTTP_BadRequest', code: 10400, status: 400, errors: ['Error in payload.toolkits: Invalid input'] } });
  });

  it('400 with the envelope: unknown toolkit slugs', async () => {
    const err = await client.toolRouter.session.create({ user_id: 'u', toolkits: { enable: ['not-a-toolkit'] } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BadRequestError);
    expectConforms('postToolRouterSession', (err as BadRequestError).error, 'error');
    expect((err as BadRequestError).error).toMatchObject({ error: { slug: 'ToolRouterV2_InvalidToolkitSlugs', code: 4305 } });
  });

  it('401 with the envelope: an unknown key', async () => {
    const stranger = new Composio({ apiKey: 'not-one-of-the-keys', baseURL: emu.url, maxRetries: 0 });
    const err = await stranger.toolRouter.session.retrieve(sessionId).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(AuthenticationError);
    expectConforms('getToolRouterSessionBySessionId', (err as AuthenticationError).error, 'error');
    expect((err as AuthenticationError).error).toMatchObject({ error: { slug: 'HTTP_Unauthorized', code: 10401, status: 401 } });
  });

  it('404 with the envelope: another key’s session', async () => {
    const err = await other.toolRouter.session.retrieve(sessionId).then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expectConforms('getToolRouterSessionBySessionId', (err as NotFoundError).error, 'error');
    expect((err as NotFoundError).error).toMatchObject({ error: { slug: 'HTTP_NotFound', code: 10404, status: 404 } });
    const files = await other.toolRouter.session.files.list('files', { session_id: sessionId }).then(() => undefined, (e: unknown) => e);
    expect(files).toBeInstanceOf(NotFoundError);
  });

  it('400 with the envelope: a malformed session id', async () => {
    const err = await client.toolRouter.session.retrieve('session-123').then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    expectConforms('getToolRouterSessionBySessionId', (err as BadRequestError).error, 'error');
  });

  it('no log line of the emulator carries a key', () => {
    expect(emu.stderr()).not.toContain(KEY_A);
    expect(emu.stderr()).not.toContain(KEY_B);
    expect(emu.stdout()).toBe(`${emu.url}\n`);
  });
});
