import { describe, expect, test } from 'vitest';
import { expectedConfig } from '../../../src/config/expected.js';
import type { ManifestData } from '../../../src/config/types.js';

const DEFAULT_TOOLS = [
  'COMPOSIO_SEARCH_TOOLS',
  'COMPOSIO_GET_TOOL_SCHEMAS',
  'COMPOSIO_MULTI_EXECUTE_TOOL',
  'COMPOSIO_MANAGE_CONNECTIONS',
  'COMPOSIO_REMOTE_WORKBENCH',
  'COMPOSIO_REMOTE_BASH_TOOL',
];

describe('expectedConfig', () => {
  test('a bare manifest expects the documented defaults', () => {
    const e = expectedConfig({ user_id: 'u1' });
    expect(e.config).toEqual({
      user_id: 'u1',
      manage_connections: { enabled: true, enable_wait_for_connections: false, enable_connection_removal: true },
      workbench: { enable: true, proxy_execution_enabled: true, tool_execution_enabled: true, sandbox_size: 'standard' },
      preload: { tools: [] },
    });
    expect(e.toolRouterTools).toEqual(DEFAULT_TOOLS);
    expect(e.origins.get('/user_id')).toEqual({ declared: true, pointer: '/user_id' });
    expect(e.origins.get('/workbench/enable')).toEqual({ declared: false, pointer: '' });
  });

  test('the design example maps to response spelling', () => {
    const manifest: ManifestData = {
      name: 'support-agent',
      user_id: 'u',
      toolkits: { enable: ['gmail', 'slack', 'github'] },
      tools: { github: { disable: ['GITHUB_DELETE_A_REPOSITORY'] }, slack: { tags: { disable: ['destructiveHint'] } }, gmail: ['GMAIL_SEND_EMAIL'] },
      tags: ['readOnlyHint'],
      auth_configs: { gmail: 'ac_123' },
      connected_accounts: { github: 'ca_456' },
      manage_connections: { enable: true, callback_url: 'https://example.com/done', enable_wait_for_connections: false },
      workbench: { enable: false },
      experimental: { assistive_prompt_config: { user_timezone: 'Europe/Paris' } },
    };
    const e = expectedConfig(manifest);
    expect(e.config).toEqual({
      user_id: 'u',
      toolkits: { enabled: ['gmail', 'slack', 'github'] },
      tools: { github: { disabled: ['GITHUB_DELETE_A_REPOSITORY'] }, slack: { tags: { disabled: ['destructiveHint'] } }, gmail: { enabled: ['GMAIL_SEND_EMAIL'] } },
      tags: { enabled: ['readOnlyHint'] },
      auth_configs: { gmail: 'ac_123' },
      connected_accounts: { github: 'ca_456' },
      manage_connections: { enabled: true, callback_url: 'https://example.com/done', enable_wait_for_connections: false, enable_connection_removal: true },
      workbench: { enable: false, proxy_execution_enabled: true, tool_execution_enabled: true, sandbox_size: 'standard' },
      preload: { tools: [] },
    });
    expect(e.toolRouterTools).toEqual(['COMPOSIO_SEARCH_TOOLS', 'COMPOSIO_GET_TOOL_SCHEMAS', 'COMPOSIO_MULTI_EXECUTE_TOOL', 'COMPOSIO_MANAGE_CONNECTIONS']);
    expect(e.origins.get('/toolkits/enabled')?.pointer).toBe('/toolkits/enable');
    expect(e.origins.get('/toolkits/enabled')?.members?.get('"slack"')).toBe('/toolkits/enable/1');
    expect(e.origins.get('/tools/gmail/enabled')?.members?.get('"GMAIL_SEND_EMAIL"')).toBe('/tools/gmail/0');
    expect(e.origins.get('/tools/slack/tags/disabled')?.pointer).toBe('/tools/slack/tags/disable');
    expect(e.origins.get('/tags/enabled')?.pointer).toBe('/tags');
    expect(e.origins.get('/workbench/enable')).toEqual({ declared: true, pointer: '/workbench/enable' });
    expect(e.origins.get('/workbench/proxy_execution_enabled')).toEqual({ declared: false, pointer: '/workbench' });
    expect(e.origins.get('/manage_connections/callback_url')?.pointer).toBe('/manage_connections/callback_url');
  });

  test.each<[string, ManifestData, string[]]>([
    ['connection management off', { user_id: 'u', manage_connections: { enable: false } }, DEFAULT_TOOLS.filter((t) => t !== 'COMPOSIO_MANAGE_CONNECTIONS')],
    ['wait for connections', { user_id: 'u', manage_connections: { enable_wait_for_connections: true } }, [...DEFAULT_TOOLS.slice(0, 4), 'COMPOSIO_WAIT_FOR_CONNECTIONS', ...DEFAULT_TOOLS.slice(4)]],
    [
      'wait depends on its own flag alone (api §5.2)',
      { user_id: 'u', manage_connections: { enable: false, enable_wait_for_connections: true } },
      [...DEFAULT_TOOLS.slice(0, 3), 'COMPOSIO_WAIT_FOR_CONNECTIONS', ...DEFAULT_TOOLS.slice(4)],
    ],
    ['workbench off', { user_id: 'u', workbench: { enable: false } }, DEFAULT_TOOLS.slice(0, 4)],
    ['null asks for the default', { user_id: 'u', manage_connections: { enable: null } }, DEFAULT_TOOLS],
    ['preloaded tools follow the meta tools', { user_id: 'u', preload: { tools: ['GMAIL_FETCH_EMAILS'] } }, [...DEFAULT_TOOLS, 'GMAIL_FETCH_EMAILS']],
    ['feedback tool', { user_id: 'u', experimental: { submit_feedback: { enable: true } } }, [...DEFAULT_TOOLS, 'COMPOSIO_SUBMIT_FEEDBACK']],
  ])('meta tools: %s', (_name, manifest, tools) => {
    expect(expectedConfig(manifest).toolRouterTools).toEqual(tools);
  });

  test('the rule that decides a meta tool points at the declared key', () => {
    const rules = expectedConfig({ user_id: 'u', workbench: { enable: false }, manage_connections: { enable: false, enable_wait_for_connections: true } }).metaTools;
    expect(rules.find((r) => r.slug === 'COMPOSIO_REMOTE_BASH_TOOL')).toEqual({ slug: 'COMPOSIO_REMOTE_BASH_TOOL', expected: false, pointer: '/workbench/enable' });
    expect(rules.find((r) => r.slug === 'COMPOSIO_WAIT_FOR_CONNECTIONS')).toEqual({ slug: 'COMPOSIO_WAIT_FOR_CONNECTIONS', expected: true, pointer: '/manage_connections/enable_wait_for_connections' });
    expect(rules.find((r) => r.slug === 'COMPOSIO_GET_TOOL_SCHEMAS')).toEqual({ slug: 'COMPOSIO_GET_TOOL_SCHEMAS', expected: true });
  });

  test('declared multi_account gets its documented defaults; undeclared keys the service picks are not expected', () => {
    const e = expectedConfig({ user_id: 'u', multi_account: { enable: true }, workbench: { auto_offload_threshold: 5000 } });
    expect(e.config['multi_account']).toEqual({ enable: true, max_accounts_per_toolkit: 5, require_explicit_selection: false });
    expect(e.config['workbench']).toEqual({ enable: true, proxy_execution_enabled: true, tool_execution_enabled: true, sandbox_size: 'standard', auto_offload_threshold: 5000 });
    expect(expectedConfig({ user_id: 'u' }).config['multi_account']).toBeUndefined();
  });

  test('pointers escape ~ and / in toolkit names', () => {
    const e = expectedConfig({ user_id: 'u', auth_configs: { 'a/b~c': 'ac_1' } });
    expect(e.origins.get('/auth_configs/a~1b~0c')).toEqual({ declared: true, pointer: '/auth_configs/a~1b~0c' });
  });
});
