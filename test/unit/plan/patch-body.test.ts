import { describe, expect, test } from 'vitest';
import { NOT_PATCHABLE, patchBody, repairBody, unpatchable } from '../../../src/plan/patch-body.js';
import type { Json } from '../../../src/wire/json.js';

/*
 * The PATCH an update sends, exactly: only what changed, `null` for what is no longer declared,
 * maps and filters whole, other blocks whole with `null` for a member no longer declared, and
 * never what PATCH refuses (user_id, custom tools). test/property/plan.test.ts checks the same
 * against PATCH's semantics and the emulator's PATCH on generated bodies.
 */

type Body = { [key: string]: Json };
const tool = (slug: string): Json => ({ slug, name: slug, description: 'd', input_schema: { type: 'object' } });

describe('patchBody', () => {
  test('the same body: an empty PATCH', () => {
    const body: Body = { user_id: 'u', toolkits: { enable: ['a'] }, workbench: { enable: false } };
    expect(patchBody(body, structuredClone(body))).toStrictEqual({});
    // Key order inside a value is no change (canonical comparison).
    expect(patchBody({ workbench: { enable: false, sandbox_size: 'large' } }, { workbench: { sandbox_size: 'large', enable: false } })).toStrictEqual({});
  });

  test('a key no longer declared is null (the override is removed); a new key is sent as declared', () => {
    expect(patchBody({ user_id: 'u', tags: ['readOnlyHint'] }, { user_id: 'u', preload: { tools: ['X'] } })).toStrictEqual({ tags: null, preload: { tools: ['X'] } });
  });

  test('maps and filters are sent whole: PATCH replaces them whole', () => {
    const before: Body = { toolkits: { enable: ['a', 'b'] }, tools: { gh: { enable: ['x'] }, sl: { disable: ['y'] } }, tags: { enable: ['a'], disable: ['b'] }, auth_configs: { gh: 'ac_1', sl: 'ac_2' }, connected_accounts: { gh: 'ca_1' } };
    const after: Body = { toolkits: { enable: ['a'] }, tools: { gh: { enable: ['x'] } }, tags: { enable: ['a'] }, auth_configs: { gh: 'ac_1' }, connected_accounts: { gh: 'ca_2' } };
    expect(patchBody(before, after)).toStrictEqual(after);
  });

  test.each(['toolkits', 'tools', 'tags', 'auth_configs', 'connected_accounts', 'multi_account'])('%s: a member no longer declared is simply absent (no null inside a replaced map)', (key) => {
    expect(patchBody({ [key]: { a: 'x', b: 'y' } }, { [key]: { a: 'x' } })).toStrictEqual({ [key]: { a: 'x' } });
  });

  test('multi_account is replaced whole by PATCH, and its members cannot be null: sent as declared', () => {
    expect(patchBody({ multi_account: { enable: true, max_accounts_per_toolkit: 3 } }, { multi_account: { enable: true } })).toStrictEqual({ multi_account: { enable: true } });
    expect(patchBody({ multi_account: { enable: false } }, { multi_account: {} })).toStrictEqual({ multi_account: {} });
  });

  test('other blocks are merged by PATCH: sent whole, with null for a member no longer declared', () => {
    expect(patchBody({ manage_connections: { enable: true, callback_url: 'https://x.example/cb' } }, { manage_connections: { enable: false } })).toStrictEqual({
      manage_connections: { enable: false, callback_url: null },
    });
    expect(patchBody({ workbench: { enable: true, sandbox_size: 'large' } }, { workbench: { enable: true, sandbox_size: 'small' } })).toStrictEqual({ workbench: { enable: true, sandbox_size: 'small' } });
  });

  test('a workbench member no longer declared is sent as its documented default: the contract does not let it be null', () => {
    expect(patchBody({ workbench: { enable: false, enable_proxy_execution: false, enable_tool_execution: false, sandbox_size: 'large' } }, { workbench: {} })).toStrictEqual({
      workbench: { enable: true, enable_proxy_execution: true, enable_tool_execution: true, sandbox_size: 'standard' },
    });
    expect(patchBody({ manage_connections: { enable: false, enable_connection_removal: false, enable_wait_for_connections: true } }, { manage_connections: {} })).toStrictEqual({
      manage_connections: { enable: true, enable_connection_removal: true, enable_wait_for_connections: false },
    });
    // Without a documented default (the service chooses it), null is all PATCH has.
    expect(patchBody({ workbench: { enable: false, auto_offload_threshold: 1000 } }, { workbench: { enable: false } })).toStrictEqual({ workbench: { enable: false, auto_offload_threshold: null } });
  });

  test('a block that was not an object (or is not one now) is sent as declared', () => {
    expect(patchBody({ preload: 'x' }, { preload: { tools: ['A'] } })).toStrictEqual({ preload: { tools: ['A'] } });
    expect(patchBody({ preload: { tools: ['A'] } }, { preload: ['A'] })).toStrictEqual({ preload: ['A'] });
    expect(patchBody({ premium_usage: true }, { premium_usage: false })).toStrictEqual({ premium_usage: false });
  });

  test('v3.1: never user_id nor custom tools; the members its PATCH takes are a merged block', () => {
    const before: Body = { user_id: 'a', experimental: { custom_tools: [tool('X')], permissions: { a: 1 } } };
    expect(patchBody(before, { user_id: 'b', experimental: { custom_tools: [tool('Y')], permissions: { a: 1 } } }, undefined, '3.1')).toStrictEqual({});
    expect(patchBody(before, { user_id: 'a', experimental: { custom_tools: [tool('X')], fast_mode: true } }, undefined, '3.1')).toStrictEqual({ experimental: { fast_mode: true, permissions: null } });
    expect(patchBody(before, { user_id: 'a', experimental: { custom_tools: [tool('X')] } }, undefined, '3.1')).toStrictEqual({ experimental: null });
    expect(patchBody({ experimental: { custom_toolkits: [{ slug: 'T' }] } }, { experimental: { custom_toolkits: [{ slug: 'U' }], fast_mode: true } }, undefined, '3.1')).toStrictEqual({ experimental: { fast_mode: true } });
    // The assistive prompt's config is given at creation only: never sent.
    expect(patchBody(null, { experimental: { assistive_prompt_config: { user_timezone: 'Europe/Paris' }, link_url_overwrite: 'https://l.example' } }, undefined, '3.1')).toStrictEqual({
      experimental: { link_url_overwrite: 'https://l.example' },
    });
  });

  test('v3 (the default): its PATCH takes no experimental member, so none is sent', () => {
    const before: Body = { experimental: { permissions: { a: 1 } } };
    expect(patchBody(before, { experimental: { fast_mode: true } })).toStrictEqual({});
    expect(patchBody(before, { experimental: { fast_mode: true } }, undefined, '3')).toStrictEqual({});
    expect(patchBody(null, { toolkits: { enable: ['a'] }, experimental: { assistive_prompt_config: { user_timezone: 'Europe/Paris' } } })).toStrictEqual({ toolkits: { enable: ['a'] } });
  });

  test('an experimental that is not an object is carried as it is', () => {
    expect(patchBody({}, { experimental: 'x' })).toStrictEqual({ experimental: 'x' });
  });

  test('with no recorded body every declared key is sent (what the service holds is unknown)', () => {
    expect(patchBody(null, { user_id: 'u', toolkits: { enable: ['a'] }, workbench: { enable: false }, experimental: { custom_tools: [tool('X')] } })).toStrictEqual({
      toolkits: { enable: ['a'] },
      workbench: { enable: false },
    });
    expect(patchBody(null, { user_id: 'u' })).toStrictEqual({});
  });
});

describe('unpatchable', () => {
  test('names the fields PATCH cannot change, with their canonical values', () => {
    expect(NOT_PATCHABLE).toStrictEqual(['user_id', 'experimental.custom_tools', 'experimental.custom_toolkits']);
    expect([...unpatchable({ user_id: 'u', experimental: { custom_tools: [{ b: 1, a: 2 }], custom_toolkits: ['k'] } }).entries()]).toStrictEqual([
      ['user_id', '"u"'],
      ['experimental.custom_tools', '[{"a":2,"b":1}]'],
      ['experimental.custom_toolkits', '["k"]'],
    ]);
  });

  test('absent is null, and an experimental that is not an object holds none', () => {
    expect([...unpatchable({}).entries()]).toStrictEqual([
      ['user_id', 'null'],
      ['experimental.custom_tools', 'null'],
      ['experimental.custom_toolkits', 'null'],
    ]);
    expect(unpatchable({ experimental: ['custom_tools'] }).get('experimental.custom_tools')).toBe('null');
  });

  test.each([
    ['3', ['assistive_prompt_config', 'permissions', 'link_url_overwrite', 'fast_mode', 'submit_feedback']],
    ['3.1', ['assistive_prompt_config']],
  ] as const)('v%s: every experimental member its PATCH refuses', (version, refused) => {
    const experimental = { assistive_prompt_config: { user_timezone: 'UTC' }, permissions: { default: 'allow_all' }, link_url_overwrite: 'https://l.example', fast_mode: true, submit_feedback: { enable: true } };
    const keys = [...unpatchable({ experimental }, version).keys()].filter((k) => !NOT_PATCHABLE.includes(k));
    expect(keys).toStrictEqual(refused.map((k) => `experimental.${k}`));
  });
});

describe('repairBody', () => {
  const declared: Body = { user_id: 'u', toolkits: { enable: ['a'] }, workbench: { enable: false }, experimental: { custom_tools: [tool('X')], fast_mode: true } };

  test('every key the drift touches, as declared; null for one not declared', () => {
    expect(repairBody(declared, ['toolkits', 'tags', 'workbench'])).toStrictEqual({ toolkits: { enable: ['a'] }, tags: null, workbench: { enable: false } });
    expect(repairBody(declared, ['toolkits', 'tags', 'workbench'], { strict: false })).toStrictEqual({ toolkits: { enable: ['a'] }, tags: null, workbench: { enable: false } });
  });

  test('with strict, a block PATCH merges is sent with its undeclared members at their defaults (merging would keep what was set behind the manifest)', () => {
    const strict = { strict: true };
    expect(repairBody(declared, ['toolkits', 'tags', 'workbench'], strict)).toStrictEqual({ toolkits: { enable: ['a'] }, tags: null, workbench: { enable: false, enable_proxy_execution: true, enable_tool_execution: true, sandbox_size: 'standard' } });
    expect(repairBody({ manage_connections: { enable_wait_for_connections: true } }, ['manage_connections'], strict)).toStrictEqual({
      manage_connections: { enable: true, enable_wait_for_connections: true, enable_connection_removal: true, callback_url: null },
    });
    expect(repairBody({ manage_connections: { callback_url: 'https://a.example/cb' } }, ['manage_connections'], strict).manage_connections).toMatchObject({ callback_url: 'https://a.example/cb' });
    expect(repairBody({ manage_connections: 'x', toolkits: { enable: [] } }, ['manage_connections', 'toolkits'], strict)).toStrictEqual({ manage_connections: 'x', toolkits: { enable: [] } });
  });

  test('never the document itself, user_id, or custom tools; on v3 nothing of experimental', () => {
    expect(repairBody(declared, ['', 'user_id', 'experimental'], { version: '3.1' })).toStrictEqual({ experimental: { fast_mode: true } });
    expect(repairBody(declared, ['', 'user_id', 'experimental'])).toStrictEqual({});
    expect(repairBody(declared, new Set<string>())).toStrictEqual({});
  });
});
