import { describe, expect, test } from 'vitest';
import { expectedConfig } from '../../../src/config/expected.js';
import { requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';
import { unifiedConfigDiff } from '../../../src/config/unified.js';
import { effectiveConfig, metaToolsFor } from '../../../src/emulator/effective.js';
import type { CreateSessionRequest } from '../../../src/wire/request.js';

const labels = { expected: 'm.yaml (declared)', effective: 'trs_1 (effective)' };

function served(manifest: ManifestData): { config: Record<string, unknown>; tool_router_tools: string[] } {
  const config = effectiveConfig(requestBody(manifest) as unknown as CreateSessionRequest);
  return { config: JSON.parse(JSON.stringify(config)) as Record<string, unknown>, tool_router_tools: metaToolsFor(config) };
}

describe('unifiedConfigDiff', () => {
  const manifest: ManifestData = { user_id: 'u', toolkits: ['gmail', 'slack'], workbench: { enable: false } };

  test('agreeing configs give no diff, whatever the service echoes on its own', () => {
    expect(unifiedConfigDiff(expectedConfig(manifest), served(manifest), labels)).toBe('');
  });

  test('list order is not a difference', () => {
    const s = served(manifest);
    (s.config['toolkits'] as { enabled: string[] }).enabled.reverse();
    expect(unifiedConfigDiff(expectedConfig(manifest), s, labels)).toBe('');
  });

  test('a changed value shows as a one-line change with context, keys sorted', () => {
    const s = served(manifest);
    (s.config['workbench'] as Record<string, unknown>)['enable'] = true;
    s.tool_router_tools.push('COMPOSIO_REMOTE_WORKBENCH');
    const diff = unifiedConfigDiff(expectedConfig(manifest), s, labels);
    expect(diff.split('\n').slice(0, 2)).toEqual(['--- m.yaml (declared)', '+++ trs_1 (effective)']);
    expect(diff).toContain('-      "enable": false,\n+      "enable": true,');
    expect(diff).toContain('+    "COMPOSIO_REMOTE_WORKBENCH",');
  });
});

describe('unifiedConfigDiff on configs too different to diff quickly', () => {
  test('gives up after its timeout with a one-line note', () => {
    const declared = Array.from({ length: 6000 }, (_, i) => `declared_${i}_${(i * 7919) % 6000}`);
    const served = Array.from({ length: 6000 }, (_, i) => `served_${(i * 104729) % 6000}_${i}`);
    const diff = unifiedConfigDiff(expectedConfig({ user_id: 'u', toolkits: declared }), { config: { user_id: 'u', toolkits: { enabled: served } }, tool_router_tools: [] }, labels);
    expect(diff).toBe('(the two configs are too different to diff line by line; see the findings above)\n');
  });
});
