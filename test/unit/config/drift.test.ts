import { describe, expect, test } from 'vitest';
import { computeDrift, driftDiagnostics, type DriftItem } from '../../../src/config/drift.js';
import { expectedConfig } from '../../../src/config/expected.js';
import { requestBody } from '../../../src/config/request.js';
import type { ManifestData } from '../../../src/config/types.js';
import { effectiveConfig, metaToolsFor } from '../../../src/emulator/effective.js';
import type { CreateSessionRequest } from '../../../src/wire/request.js';

/** What the emulator (written independently from the same facts) answers for a manifest. */
function served(manifest: ManifestData): { config: Record<string, unknown>; tool_router_tools: string[] } {
  const config = effectiveConfig(requestBody(manifest) as unknown as CreateSessionRequest);
  return { config: JSON.parse(JSON.stringify(config)) as Record<string, unknown>, tool_router_tools: metaToolsFor(config) };
}

function findings(items: DriftItem[]): Array<[string, string, string]> {
  return items.filter((i) => i.kind !== 'defaulted').map((i) => [i.kind, i.path, i.pointer]);
}

const manifests: Array<[string, ManifestData]> = [
  ['bare', { user_id: 'u1' }],
  [
    'everything declared',
    {
      name: 'x',
      user_id: 'u',
      toolkits: { enable: ['gmail', 'slack', 'github'] },
      tools: { github: { disable: ['GITHUB_DELETE_A_REPOSITORY'] }, slack: { tags: { disable: ['destructiveHint'] } }, gmail: ['GMAIL_SEND_EMAIL'] },
      tags: ['readOnlyHint'],
      auth_configs: { gmail: 'ac_123' },
      connected_accounts: { github: 'ca_456' },
      manage_connections: { enable: true, callback_url: 'https://example.com/done', enable_wait_for_connections: true },
      workbench: { enable: false, enable_proxy_execution: false, auto_offload_threshold: 1000 },
      multi_account: { enable: true },
      experimental: { assistive_prompt_config: { user_timezone: 'Europe/Paris' } },
    },
  ],
  ['denylist and tag object', { user_id: 'u', toolkits: { disable: ['slack'] }, tags: { enable: ['readOnlyHint'], disable: ['destructiveHint'] } }],
  ['bare toolkits list, connections off', { user_id: 'u', toolkits: ['gmail'], manage_connections: { enable: false } }],
  ['preload', { user_id: 'u', preload: { tools: ['GMAIL_FETCH_EMAILS'] } }],
];

describe('computeDrift', () => {
  test.each(manifests)('expectedConfig agrees with the emulator: %s', (_name, manifest) => {
    expect(findings(computeDrift(expectedConfig(manifest), served(manifest)))).toEqual([]);
  });

  test('defaults the service echoes are classified defaulted', () => {
    const items = computeDrift(expectedConfig({ user_id: 'u' }), served({ user_id: 'u' }));
    expect(items.filter((i) => i.kind === 'defaulted').map((i) => i.path)).toContain('/config/workbench/enable');
  });

  test('a default the service does not echo is not drift', () => {
    expect(computeDrift(expectedConfig({ user_id: 'u' }), { config: { user_id: 'u' }, tool_router_tools: expectedConfig({ user_id: 'u' }).toolRouterTools })).toEqual([]);
  });

  const base: ManifestData = { user_id: 'u', toolkits: { enable: ['gmail', 'slack'] }, workbench: { enable: false }, tags: ['readOnlyHint'] };
  const cases: Array<[string, (s: ReturnType<typeof served>) => void, Array<[string, string, string]>]> = [
    ['a declared scalar changed', (s) => void ((s.config['workbench'] as Record<string, unknown>)['enable'] = true), [['changed', '/config/workbench/enable', '/workbench/enable']]],
    ['a declared key dropped', (s) => void delete s.config['tags'], [['dropped', '/config/tags/enabled', '/tags']]],
    [
      'a declared list member missing points at the member',
      (s) => void ((s.config['toolkits'] as Record<string, unknown>)['enabled'] = ['gmail']),
      [['changed', '/config/toolkits/enabled', '/toolkits/enable/1']],
    ],
    [
      'an extra list member points at the list',
      (s) => void ((s.config['toolkits'] as Record<string, unknown>)['enabled'] = ['slack', 'gmail', 'github']),
      [['changed', '/config/toolkits/enabled', '/toolkits/enable']],
    ],
    ['lists compare as sets', (s) => void ((s.config['toolkits'] as Record<string, unknown>)['enabled'] = ['slack', 'gmail']), []],
    [
      'an undeclared default that differs is added at the nearest declared ancestor',
      (s) => void ((s.config['manage_connections'] as Record<string, unknown>)['enabled'] = false),
      [['added', '/config/manage_connections/enabled', '']],
    ],
    [
      'an undeclared key is added',
      (s) => void ((s.config['tools'] as Record<string, unknown>)['slack'] = { enabled: ['SLACK_SEND'] }),
      [['added', '/config/tools', '']],
    ],
    [
      'a default meta tool missing is added',
      (s) => void (s.tool_router_tools = s.tool_router_tools.filter((t) => t !== 'COMPOSIO_MANAGE_CONNECTIONS')),
      [['added', '/tool_router_tools', '']],
    ],
    [
      'a meta tool a declared key excludes is changed at that key',
      (s) => void s.tool_router_tools.push('COMPOSIO_REMOTE_WORKBENCH'),
      [['changed', '/tool_router_tools', '/workbench/enable']],
    ],
    ['service-only fields are ignored', (s) => Object.assign(s.config, { all_connected_accounts: { a: ['b'] }, multi_account: { enable: false }, config_version: 3 }), [['added', '/config/config_version', '']]],
    ['a one-element list equals its scalar', (s) => void (s.config['user_id'] = ['u']), []],
  ];
  test.each(cases)('%s', (_name, mutate, expected) => {
    const s = served(base);
    mutate(s);
    expect(findings(computeDrift(expectedConfig(base), s))).toEqual(expected);
  });
});

describe('driftDiagnostics', () => {
  const doc = {
    file: '/m.yaml',
    // A locator that encodes what it was asked, so the test sees the pointer and key flag used.
    locate: (pointer: string, options?: { key?: boolean }) => ({ start: { line: pointer.length, col: options?.key ? 1 : 2 }, end: { line: pointer.length, col: 9 } }),
  };
  test('codes, severities, pointers; defaulted is not reported', () => {
    const items: DriftItem[] = [
      { kind: 'changed', path: '/config/workbench/enable', pointer: '/workbench/enable', expected: false, actual: true },
      { kind: 'changed', path: '/config/toolkits/enabled', pointer: '/toolkits/enable/1', expected: ['a', 'b'], actual: ['a'], member: 'b' },
      { kind: 'dropped', path: '/config/tags/enabled', pointer: '/tags', expected: ['readOnlyHint'] },
      { kind: 'added', path: '/config/tools/slack', pointer: '', actual: {} },
      { kind: 'defaulted', path: '/config/workbench/sandbox_size', pointer: '', expected: 'standard', actual: 'standard' },
    ];
    const ds = driftDiagnostics(items, doc, 'm');
    expect(ds.map((d) => [d.code, d.severity, d.pointer, d.range?.start.col])).toEqual([
      ['drift/changed', 'error', '/workbench/enable', 1],
      ['drift/changed', 'error', '/toolkits/enable/1', 2],
      ['drift/dropped', 'error', '/tags', 1],
      ['drift/added', 'warning', '', 2],
    ]);
    expect(ds.every((d) => d.file === '/m.yaml')).toBe(true);
  });
});
