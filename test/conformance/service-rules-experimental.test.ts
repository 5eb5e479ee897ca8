/**
 * Issue 28, the `experimental` block, driven by the official clients unmodified
 * (`@composio/core@0.19.0`, `@composio/client@2.0.0-rc.6`, `@composio/client@0.1.0-alpha.62`): the
 * answer create gave comes back from GET and PATCH; search finds custom tools (given at create, and
 * sent with the search); `link_url_overwrite` shapes the link; `permissions` decide whether a call
 * runs.
 */
import ComposioV3 from '@composio/client';
import Composio from '@composio/client-v2';
import { Composio as Core, experimental_createTool } from '@composio/core';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';

const KEY = 'rules-experimental-key-0123456789';
let emu: RunningEmulator;
let client: Composio;
let v3: ComposioV3;
let core: Core;

beforeAll(async () => {
  emu = await startEmulator({ port: 0, apiKeys: [KEY] });
  client = new Composio({ apiKey: KEY, baseURL: emu.url, maxRetries: 0 });
  v3 = new ComposioV3({ apiKey: KEY, baseURL: emu.url, maxRetries: 0 });
  core = new Core({ apiKey: KEY, baseURL: emu.url, allowTracking: false, disableVersionCheck: true });
});
afterAll(() => emu.close());

const crm = {
  slug: 'crm',
  name: 'CRM',
  description: 'Our customer database',
  tools: [{ slug: 'find_customer', name: 'Find customer', description: 'Finds a customer by email', input_schema: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] } }],
};
const invoice = { slug: 'send_invoice', name: 'Send invoice', description: 'Sends an invoice', input_schema: { type: 'object', properties: { amount: { type: 'number' } } } };

describe('experimental in GET and PATCH answers', () => {
  it('retrieve (rc.6 and v3 alpha.62) and patch answer what create answered; PATCH does not regenerate it', async () => {
    const created = await client.toolRouter.session.create({
      user_id: 'exp',
      experimental: { assistive_prompt_config: { user_timezone: 'Europe/Paris' }, custom_toolkits: [crm], custom_tools: [invoice] },
    });
    expect(created.experimental?.assistive_prompt).toContain('Europe/Paris');
    expect(created.experimental?.custom_toolkits?.[0]?.tools[0]?.slug).toBe('LOCAL_CRM_FIND_CUSTOMER');
    expect((await client.toolRouter.session.retrieve(created.session_id)).experimental).toEqual(created.experimental);
    expect((await v3.toolRouter.session.retrieve(created.session_id)).experimental).toEqual(created.experimental);
    const patched = await client.toolRouter.session.patch(created.session_id, { tags: ['readOnlyHint'] });
    expect(patched.config_version).toBe(2);
    expect(patched.experimental).toEqual(created.experimental);
  });

  it('a session created without experimental answers none', async () => {
    const created = await client.toolRouter.session.create({ user_id: 'exp' });
    expect((await client.toolRouter.session.retrieve(created.session_id)).experimental).toBeUndefined();
  });
});

describe('search finds custom tools', () => {
  it('given at create: in the primary tools, with their schema; a custom toolkit needs no connection (rc.6)', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'searcher', toolkits: { enable: ['github'] }, experimental: { custom_toolkits: [crm] } });
    const found = await client.toolRouter.session.search(s.session_id, { queries: [{ use_case: 'find customer' }] });
    expect(found.results[0]?.primary_tool_slugs[0]).toBe('LOCAL_CRM_FIND_CUSTOMER');
    expect(found.tool_schemas['LOCAL_CRM_FIND_CUSTOMER']).toMatchObject({ toolkit: 'crm', tool_slug: 'LOCAL_CRM_FIND_CUSTOMER', input_schema: { properties: { email: { type: 'string' } }, required: ['email'] } });
    expect(found.toolkit_connection_statuses.find((c) => c.toolkit === 'crm')).toMatchObject({ has_active_connection: true, status_message: 'No authentication needed' });
  });

  it('sent with the search only: found then, not otherwise (rc.6)', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'searcher' });
    const without = await client.toolRouter.session.search(s.session_id, { queries: [{ use_case: 'send invoice' }] });
    expect(without.results[0]?.primary_tool_slugs).not.toContain('LOCAL_SEND_INVOICE');
    const withIt = await client.toolRouter.session.search(s.session_id, { queries: [{ use_case: 'send invoice' }], experimental: { custom_tools: [invoice] } } as never);
    expect(withIt.results[0]?.primary_tool_slugs[0]).toBe('LOCAL_SEND_INVOICE');
  });

  it('core 0.19.0: a custom tool of the session is what session.search() finds first', async () => {
    const lookup = experimental_createTool('LOOKUP_ORDER', {
      name: 'Lookup order',
      description: 'Finds an order by its number',
      inputParams: z.object({ number: z.string() }),
      execute: async (input: { number: string }) => ({ data: { found: input.number }, error: null, successful: true }),
    });
    const session = await core.create('searcher', { toolkits: ['hackernews'], experimental: { customTools: [lookup] } } as never);
    const found = await session.search({ query: 'lookup order' });
    expect(found.results[0]?.primaryToolSlugs[0]).toBe('LOCAL_LOOKUP_ORDER');
  });

  it('a custom tool that extends a toolkit the session leaves out is not found', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'searcher', toolkits: { enable: ['hackernews'] }, experimental: { custom_tools: [{ ...invoice, extends_toolkit: 'gmail' }] } });
    const found = await client.toolRouter.session.search(s.session_id, { queries: [{ use_case: 'send invoice' }] });
    expect(found.results[0]?.primary_tool_slugs).not.toContain('LOCAL_GMAIL_SEND_INVOICE');
  });
});

describe('link_url_overwrite', () => {
  it('the link points at <link_url_overwrite>/link/<token> (rc.6); a PATCH sets it; experimental: null restores the hosted page', async () => {
    const s = await client.toolRouter.session.create({ user_id: 'linker', experimental: { link_url_overwrite: 'https://app.example.com/connect/' } });
    const link = await client.toolRouter.session.link(s.session_id, { toolkit: 'github' });
    expect(link.redirect_url).toBe(`https://app.example.com/connect/link/${link.link_token}`);
    await client.toolRouter.session.patch(s.session_id, { experimental: null } as never);
    const s2 = await client.toolRouter.session.create({ user_id: 'linker2' });
    await client.toolRouter.session.patch(s2.session_id, { experimental: { link_url_overwrite: 'https://other.example.com' } } as never);
    const again = await client.toolRouter.session.link(s2.session_id, { toolkit: 'github' });
    expect(again.redirect_url).toBe(`https://other.example.com/link/${again.link_token}`);
    const restored = await client.toolRouter.session.link(s.session_id, { toolkit: 'gmail' });
    expect(restored.redirect_url).toBe(`${emu.url}/_emulator/link/${restored.link_token}`);
  });

  it('core 0.19.0: authorize() hands out the overwritten URL', async () => {
    const session = await client.toolRouter.session.create({ user_id: 'core-linker', experimental: { link_url_overwrite: 'https://app.example.com/connect' } });
    const used = await core.sessions.use(session.session_id);
    const request = await used.authorize('github');
    expect(request.redirectUrl).toMatch(/^https:\/\/app\.example\.com\/connect\/link\/lt_/);
  });
});

describe('permissions', () => {
  const run = async (id: string, slug: string) => (await client.toolRouter.session.execute(id, { tool_slug: slug, arguments: { query: 'mcp' } })).error;

  it('an always_deny override stops that tool only; the default lets the others run (rc.6)', async () => {
    const s = await client.toolRouter.session.create({
      user_id: 'perm',
      toolkits: { enable: ['hackernews'] },
      experimental: { permissions: { default: 'allow_all', overrides: { 'HACKERNEWS_GET_FRONTPAGE:__none__': 'always_deny' } } },
    });
    expect(await run(s.session_id, 'HACKERNEWS_GET_FRONTPAGE')).toBe("Tool 'HACKERNEWS_GET_FRONTPAGE' is denied by the session's permissions.overrides['HACKERNEWS_GET_FRONTPAGE:__none__'] 'always_deny'");
    expect(await run(s.session_id, 'HACKERNEWS_SEARCH_POSTS')).toBeNull();
  });

  it('ask_every_call: no call runs (no approval flow); an always_allow override still runs; PATCH can lift it', async () => {
    const s = await client.toolRouter.session.create({
      user_id: 'perm',
      toolkits: { enable: ['hackernews'] },
      experimental: { permissions: { default: 'ask_every_call', overrides: { '*:__none__': 'ask_once' } } },
    });
    expect(await run(s.session_id, 'HACKERNEWS_GET_FRONTPAGE')).toBe(
      "Tool 'HACKERNEWS_GET_FRONTPAGE' needs the user's approval (permissions.overrides['*:__none__'] 'ask_once'); the emulator has no approval flow, so the call did not run",
    );
    await client.toolRouter.session.patch(s.session_id, { experimental: { permissions: { default: 'ask_every_call', overrides: { 'HACKERNEWS_GET_FRONTPAGE:__none__': 'always_allow' } } } } as never);
    expect(await run(s.session_id, 'HACKERNEWS_GET_FRONTPAGE')).toBeNull();
    expect(await run(s.session_id, 'HACKERNEWS_SEARCH_POSTS')).toBe(
      "Tool 'HACKERNEWS_SEARCH_POSTS' needs the user's approval (permissions.default 'ask_every_call'); the emulator has no approval flow, so the call did not run",
    );
    await client.toolRouter.session.patch(s.session_id, { experimental: null } as never);
    expect(await run(s.session_id, 'HACKERNEWS_SEARCH_POSTS')).toBeNull();
  });
});
