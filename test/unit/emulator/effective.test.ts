import { describe, expect, it } from 'vitest';
import { effectiveConfig, metaToolsFor } from '../../../src/emulator/effective.js';
import { toolAllowed } from '../../../src/emulator/policy.js';
import type { CatalogTool } from '../../../src/catalog/types.js';

const tool = (slug: string, toolkit: string, tags: string[]): CatalogTool => ({ slug, name: slug, toolkit, tags, input: { required: [], properties: {} } });

describe('effectiveConfig', () => {
  it('fills the documented defaults', () => {
    expect(effectiveConfig({ user_id: 'u' })).toEqual({
      user_id: 'u',
      auth_configs: {},
      connected_accounts: {},
      manage_connections: { enabled: true, enable_wait_for_connections: false, enable_connection_removal: true },
      tools: {},
      workbench: { enable: true, proxy_execution_enabled: true, tool_execution_enabled: true, sandbox_size: 'standard' },
      preload: { tools: [] },
    });
  });

  it('renames per facts §4.2 and keeps list order', () => {
    const c = effectiveConfig({
      user_id: 'u',
      toolkits: { disable: ['slack', 'gmail'] },
      tools: { slack: { tags: { enable: ['readOnlyHint'] } }, gmail: { tags: ['idempotentHint'] } },
      tags: ['openWorldHint'],
      manage_connections: { enable: null, enable_wait_for_connections: null },
      workbench: { enable_proxy_execution: false },
    });
    expect(c.toolkits).toEqual({ disabled: ['slack', 'gmail'] });
    expect(c.tools).toEqual({ slack: { tags: { enabled: ['readOnlyHint'] } }, gmail: { tags: { enabled: ['idempotentHint'] } } });
    expect(c.tags).toEqual({ enabled: ['openWorldHint'] });
    expect(c.manage_connections).toEqual({ enabled: true, enable_wait_for_connections: false, enable_connection_removal: true });
    expect(c.workbench?.proxy_execution_enabled).toBe(false);
  });

  it('meta tools follow manage_connections, wait and workbench; preloads follow', () => {
    const c = effectiveConfig({ user_id: 'u', manage_connections: { enable: false, enable_wait_for_connections: true }, workbench: { enable: false }, preload: { tools: ['GMAIL_SEND_EMAIL'] } });
    expect(metaToolsFor(c)).toEqual(['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_GET_TOOL_SCHEMAS', 'COMPOSIO_MULTI_EXECUTE_TOOL', 'COMPOSIO_WAIT_FOR_CONNECTIONS', 'GMAIL_SEND_EMAIL']);
  });
});

describe('toolAllowed', () => {
  const read = tool('GH_READ', 'github', ['readOnlyHint']);
  const del = tool('GH_DELETE', 'github', ['destructiveHint']);
  const none = tool('GH_NONE', 'github', []);
  it.each([
    ['no filters', { user_id: 'u' }, [true, true, true]],
    ['allowlist without github', { user_id: 'u', toolkits: { enable: ['gmail'] } }, [false, false, false]],
    ['global tag enable', { user_id: 'u', tags: ['readOnlyHint'] }, [true, false, false]],
    ['global tag disable', { user_id: 'u', tags: { disable: ['destructiveHint'] } }, [true, false, true]],
    ['toolkit tags override global', { user_id: 'u', tags: ['readOnlyHint'], tools: { github: { tags: ['destructiveHint'] } } }, [false, true, false]],
    ['tool list beats tags', { user_id: 'u', tags: ['readOnlyHint'], tools: { github: { enable: ['GH_DELETE'] } } }, [false, true, false]],
    ['tool denylist', { user_id: 'u', tools: { github: { disable: ['GH_READ'] } } }, [false, true, true]],
  ] as const)('%s', (_name, req, expected) => {
    const c = effectiveConfig(req as never);
    expect([read, del, none].map((t) => toolAllowed(c, t))).toEqual(expected);
  });
});
