// An application's own test, run against sessionctl's emulator instead of the service: the
// official SDK (v3.1 paths), the 13-endpoint client (v3 paths) and an MCP client, all pointed at a
// local emulator started in the test. No network, no real key.
//
//   npm install --save-dev sessionctl @composio/core @modelcontextprotocol/sdk zod
//   node --test examples/app-test/
//
// sessionctl's own tests run this file as it is (test/e2e/emulator-example.test.ts).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Composio } from '@composio/core';
import ComposioV3 from '@composio/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startEmulator } from 'sessionctl';

const KEY = 'test-key-not-a-secret';
let emulator;

before(async () => {
  // Port 0: a free port; only this key is accepted, each key is its own project.
  emulator = await startEmulator({ port: 0, apiKeys: [KEY] });
});
after(() => emulator.close());

test('the SDK creates a session, searches and executes against the emulator', async () => {
  // The SDK is used unmodified: only its base URL points at the emulator.
  const composio = new Composio({ apiKey: KEY, baseURL: emulator.url, allowTracking: false, disableVersionCheck: true });
  const session = await composio.create('user-1', { toolkits: ['hackernews', 'github'], manageConnections: false });
  const found = await session.search({ query: 'front page stories' });
  assert.ok(found.results.length > 0);
  const result = await session.execute('HACKERNEWS_GET_FRONTPAGE', {});
  assert.equal(result.error, null);

  // A toolkit that needs a connection: complete the link offline, then the tool runs.
  const request = await session.authorize('github');
  await fetch(`${emulator.url}/_emulator/connections/${request.id}/approve`, { method: 'POST', headers: { 'x-api-key': KEY } });
  const account = await request.waitForConnection(5_000);
  assert.equal(account.status, 'ACTIVE');
});

test('an agent connected to the session over MCP sees its tools', async () => {
  const composio = new Composio({ apiKey: KEY, baseURL: emulator.url, allowTracking: false, disableVersionCheck: true });
  const session = await composio.create('user-2', { toolkits: ['hackernews'] });
  const mcp = new Client({ name: 'my-agent', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(session.mcp.url), { requestInit: { headers: { 'x-api-key': KEY } } }));
  try {
    const { tools } = await mcp.listTools();
    assert.ok(tools.some((t) => t.name === 'COMPOSIO_SEARCH_TOOLS'));
    const call = await mcp.callTool({ name: 'COMPOSIO_SEARCH_TOOLS', arguments: { queries: [{ use_case: 'front page stories' }] } });
    assert.equal(call.isError, false);
  } finally {
    await mcp.close();
  }
});

test('the 13-endpoint client (v3 paths) works against the same emulator', async () => {
  const client = new ComposioV3({ apiKey: KEY, baseURL: emulator.url, maxRetries: 0 });
  const created = await client.toolRouter.session.create({ user_id: 'user-3', toolkits: { enable: ['gmail'] } });
  const again = await client.toolRouter.session.retrieve(created.session_id);
  assert.deepEqual(again.config.toolkits, { enabled: ['gmail'] });
});
