import { describe, expect, it } from 'vitest';
import { storedConfig } from '../../../src/emulator/effective.js';
import { patchedConfig } from '../../../src/emulator/routes/update.js';
import type { UpdateSessionRequest } from '../../../src/wire/request.js';

const base = storedConfig(
  {
    user_id: 'u',
    toolkits: { enable: ['github', 'gmail'] },
    tools: { github: { disable: ['GITHUB_DELETE_A_REPOSITORY'] } },
    auth_configs: { github: 'ac_1' },
    connected_accounts: { gmail: ['ca_1'] },
    manage_connections: { enable: true, callback_url: 'https://example.com/cb' },
    workbench: { enable: true, sandbox_size: 'large' },
    tags: ['readOnlyHint'],
    preload: { tools: ['GITHUB_GET_A_REPOSITORY'] },
    search: { enable: false },
  },
  '3.1',
);

describe('patchedConfig (api facts §7)', () => {
  it.each<[string, UpdateSessionRequest, Record<string, unknown>]>([
    ['nothing supplied: nothing changes', {}, {}],
    ['toolkits null: every toolkit again', { toolkits: null }, { toolkits: undefined }],
    ['tags null: no filter', { tags: null }, { tags: undefined }],
    ['a map replaces the stored one wholesale', { auth_configs: { slack: 'ac_2' } }, { auth_configs: { slack: 'ac_2' } }],
    ['a v3 single account becomes a list', { connected_accounts: { github: 'ca_9' } }, { connected_accounts: { github: ['ca_9'] } }],
    ['tools null: no per-toolkit filter', { tools: null }, { tools: {} }],
    ['callback_url null clears only it', { manage_connections: { callback_url: null } }, { manage_connections: { enabled: true, enable_wait_for_connections: false, enable_connection_removal: true } }],
    ['workbench changes field by field', { workbench: { enable_proxy_execution: false } }, { workbench: { enable: true, proxy_execution_enabled: false, tool_execution_enabled: true, sandbox_size: 'large' } }],
    ['workbench null: the defaults', { workbench: null }, { workbench: { enable: true, proxy_execution_enabled: true, tool_execution_enabled: true, sandbox_size: 'standard' } }],
    ['preload "all"', { preload: { tools: 'all' } }, { preload: { tools: 'all' } }],
    ['search null: back on', { search: null }, { search: { enable: true } }],
    ['expected_config_version and experimental change no config', { expected_config_version: 3, experimental: { link_url_overwrite: 'https://x' } }, {}],
  ])('%s', (_name, patch, changed) => {
    const expected: Record<string, unknown> = { ...structuredClone(base), ...changed };
    for (const [k, v] of Object.entries(expected)) if (v === undefined) delete expected[k];
    expect(patchedConfig(base, patch)).toEqual(expected);
  });

  it('does not change the config it was given', () => {
    const before = structuredClone(base);
    patchedConfig(base, { toolkits: null, tools: {}, workbench: null });
    expect(base).toEqual(before);
  });
});
