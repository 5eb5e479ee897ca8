import { describe, expect, it } from 'vitest';
import { PolicySet, policyKinds } from '../../../../src/validate/policies/index.js';
import type { PolicySpec } from '../../../../src/validate/policies/types.js';
import { configSchema } from '../../../../src/project/schema.js';
import { doc, where } from '../helpers.js';

function check(kind: string, value: unknown, yaml: string, extra: Partial<PolicySpec> = {}): string[] {
  const set = new PolicySet([{ id: 'p', message: 'Policy', severity: 'error', kind, value, ...extra }], '/work');
  const found = set.check(doc(yaml, '/work/teams/finance/m.yaml'));
  expect(found.every((d) => d.code === 'policy/p' && d.message.startsWith('Policy: '))).toBe(true);
  return where(found);
}

describe('policy kinds', () => {
  it('has at least eight kinds, each with an example, and exactly the conditions the config schema describes', () => {
    expect(policyKinds.length).toBeGreaterThanOrEqual(8);
    for (const k of policyKinds) expect(k.example.policy).toContain(`${k.name}:`);
    const policy = (configSchema()['definitions'] as Record<string, { properties: Record<string, { description?: string }> }>)['policy']!;
    const conditions = Object.keys(policy.properties).filter((k) => !['id', 'message', 'severity', 'hint', 'files'].includes(k));
    expect(conditions.sort()).toEqual(policyKinds.map((k) => k.name).sort());
    for (const name of conditions) expect(policy.properties[name]?.description, name).toBeTruthy();
  });

  it.each([
    ['allowed_toolkits: items outside the list', 'allowed_toolkits', ['gmail'], 'toolkits:\n  enable: [gmail, slack, github]\n', ['policy/p@2:19', 'policy/p@2:26']],
    ['allowed_toolkits: a denylist allows everything else', 'allowed_toolkits', ['gmail'], 'name: x\ntoolkits:\n  disable: [slack]\n', ['policy/p@2:1']],
    ['allowed_toolkits: no toolkits at all, at the document', 'allowed_toolkits', ['gmail'], 'name: x\nuser_id: u\n', ['policy/p@1:1']],
    ['allowed_toolkits: the bare list', 'allowed_toolkits', ['gmail'], 'toolkits: [gmail, slack]\n', ['policy/p@1:19']],
    ['denied_toolkits: in the allowlist', 'denied_toolkits', ['github'], 'toolkits: [gmail, github]\n', ['policy/p@1:19']],
    ['denied_toolkits: missing from the denylist', 'denied_toolkits', ['github', 'gitlab'], 'toolkits:\n  disable: [gitlab]\n', ['policy/p@2:3']],
    ['denied_toolkits: no toolkits', 'denied_toolkits', ['github'], 'name: x\n', ['policy/p@1:1']],
    ['denied_toolkits: clean', 'denied_toolkits', ['github'], 'toolkits:\n  disable: [github]\n', []],
    ['max_toolkits: too many', 'max_toolkits', 2, 'toolkits:\n  enable: [a, b, c]\n', ['policy/p@2:3']],
    ['max_toolkits: enough', 'max_toolkits', 3, 'toolkits: [a, b, c]\n', []],
    ['max_preloaded_tools', 'max_preloaded_tools', 1, 'preload:\n  tools: [A_X, A_Y]\n', ['policy/p@2:3']],
    ['denied_tools: in an enable list, a bare list and preload', 'denied_tools', ['X_DEL'], 'tools:\n  x:\n    enable: [X_GET, X_DEL]\n  y: [X_DEL]\npreload:\n  tools: [X_DEL]\n', ['policy/p@3:21', 'policy/p@4:7', 'policy/p@6:11']],
    ['denied_tools: a denylist is fine', 'denied_tools', ['X_DEL'], 'tools:\n  x:\n    disable: [X_DEL]\n', []],
    ['required_tags: missing globally, at the key that would hold it', 'required_tags', { disable: ['destructiveHint'] }, 'tags:\n  enable: [readOnlyHint]\n', ['policy/p@1:1']],
    ['required_tags: missing from the list', 'required_tags', { disable: ['destructiveHint'] }, 'tags:\n  disable: [openWorldHint]\n', ['policy/p@2:3']],
    ['required_tags: a toolkit filter overrides the global one', 'required_tags', { disable: ['destructiveHint'] }, 'tags:\n  disable: [destructiveHint]\ntools:\n  github:\n    tags:\n      enable: [readOnlyHint]\n', ['policy/p@5:5']],
    ['required_tags: per toolkit, the global filter counts', 'required_tags', { disable: ['destructiveHint'], toolkits: ['github'] }, 'toolkits: [github]\ntags:\n  disable: [destructiveHint]\n', []],
    ['required_tags: per toolkit, none set', 'required_tags', { enable: ['readOnlyHint'], toolkits: ['github'] }, 'name: x\ntoolkits: [github]\n', ['policy/p@1:1']],
    ['forbidden_tags', 'forbidden_tags', { enable: ['destructiveHint'] }, 'tags: [destructiveHint]\ntools:\n  github:\n    tags:\n      enable: [readOnlyHint, destructiveHint]\n', ['policy/p@1:8', 'policy/p@5:30']],
    ['forbidden_tags: only some toolkits', 'forbidden_tags', { enable: ['destructiveHint'], toolkits: ['slack'] }, 'tags: [destructiveHint]\ntools:\n  github:\n    tags: [destructiveHint]\n', []],
    ['required_values: a different value, at the key', 'required_values', { 'workbench.enable_proxy_execution': false }, 'workbench:\n  enable: true\n  enable_proxy_execution: true\n', ['policy/p@3:3']],
    ['required_values: absent, at the parent key', 'required_values', { 'workbench.enable': false }, 'name: x\nworkbench:\n  sandbox_size: large\n', ['policy/p@2:1']],
    ['required_values: absent with its parent, at the document', 'required_values', { 'manage_connections.enable_wait_for_connections': true }, 'name: x\n', ['policy/p@1:1']],
    ['required_values: satisfied', 'required_values', { 'workbench.enable': false }, 'workbench: {enable: false}\n', []],
    ['forbidden_keys, with a wildcard', 'forbidden_keys', ['experimental.custom_tools', 'tools.*.disable'], 'tools:\n  a: {disable: [X]}\n  b: [Y]\nexperimental:\n  custom_tools: []\n', ['policy/p@5:3', 'policy/p@2:7']],
    ['user_id_pattern', 'user_id_pattern', '^usr_[0-9a-f]{8}$', 'user_id: alice\n', ['policy/p@1:10']],
    ['user_id_pattern: matching', 'user_id_pattern', '^usr_[0-9a-f]{8}$', 'user_id: usr_0123abcd\n', []],
    ['auth_config_pattern', 'auth_config_pattern', '^ac_prod', 'auth_configs:\n  gmail: ac_prod1\n  slack: ac_dev2\n', ['policy/p@3:10']],
  ])('%s', (_name, kind, value, yaml, expected) => {
    expect(check(kind, value, yaml)).toEqual(expected);
  });

  it('applies only to the files its globs match, relative to the config folder', () => {
    expect(check('max_toolkits', 0, 'toolkits: [a]\n', { files: ['teams/finance/**'] })).toEqual(['policy/p@1:1']);
    expect(check('max_toolkits', 0, 'toolkits: [a]\n', { files: ['teams/sales/**'] })).toEqual([]);
  });

  it('takes the severity and hint of the policy, and never repeats a value that came from the environment', () => {
    const set = new PolicySet([{ id: 'ids', message: 'Ids', severity: 'warning', hint: 'Ask #platform.', kind: 'user_id_pattern', value: '^usr_' }], '/work');
    const [d] = set.check(doc('user_id: ${SUPPORT_USER}\n', '/work/m.yaml', { SUPPORT_USER: 'alice-secret-value' }));
    expect(d).toMatchObject({ code: 'policy/ids', severity: 'warning', hint: 'Ask #platform.', pointer: '/user_id' });
    expect(d?.message).not.toContain('alice-secret-value');
  });
});
