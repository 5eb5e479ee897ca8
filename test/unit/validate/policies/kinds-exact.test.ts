import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../../src/diagnostics/diagnostic.js';
import { PolicySet } from '../../../../src/validate/policies/index.js';
import { doc } from '../helpers.js';

/*
 * Each policy kind held to its whole finding (message, hint, pointer, range) on the shapes it
 * branches on: the toolkit lists (allowlist, denylist, none), the tool lists, required values
 * (different, absent, from the environment) and patterns. kinds.test.ts checks positions only.
 */

const FILE = '/work/m.yaml';
const at = (line: number, col: number, endLine: number, endCol: number) => ({ start: { line, col }, end: { line: endLine, col: endCol } });

function run(kind: string, value: unknown, yaml: string, env: Record<string, string> = {}): Diagnostic[] {
  return new PolicySet([{ id: 'p', message: 'Policy', severity: 'error', kind, value }], '/work').check(doc(yaml, FILE, env));
}

/** The finding every case expects: code, severity and file are the policy's and the document's. */
function found(pointer: string, range: ReturnType<typeof at>, detail: string, hint: string): Diagnostic {
  return { code: 'policy/p', severity: 'error', message: `Policy: ${detail}`, file: FILE, pointer, range, hint };
}

const allAccess = 'the manifest has no `toolkits` allowlist, so every toolkit is enabled';
const denyAccess = '`toolkits` is a denylist, so every toolkit it does not name is enabled';

describe('allowed_toolkits', () => {
  const allowed = ['gmail', 'slack', 'github'];
  const list = 'Allowed toolkits: `gmail`, `slack` and `github`.';

  it('each toolkit of the allowlist outside the list, at the item', () => {
    expect(run('allowed_toolkits', allowed, 'toolkits:\n  enable: [gmail, notion, jira]\n')).toEqual([
      found('/toolkits/enable/1', at(2, 19, 2, 25), '`notion` is not an allowed toolkit', `Remove \`notion\`. ${list}`),
      found('/toolkits/enable/2', at(2, 27, 2, 31), '`jira` is not an allowed toolkit', `Remove \`jira\`. ${list}`),
    ]);
  });

  it('a denylist, at `toolkits`; one allowed toolkit named alone', () => {
    expect(run('allowed_toolkits', ['gmail'], 'name: x\ntoolkits:\n  disable: [slack]\n')).toEqual([
      found('/toolkits', at(2, 1, 2, 9), denyAccess, 'Declare `toolkits: {enable: [...]}` instead. Allowed toolkits: `gmail`.'),
    ]);
  });

  it('no toolkits at all: at the start of the document; an allowlist inside the list: nothing', () => {
    expect(run('allowed_toolkits', ['gmail', 'slack'], 'name: x\n')).toEqual([
      found('', at(1, 1, 1, 1), allAccess, 'Declare `toolkits: {enable: [...]}` instead. Allowed toolkits: `gmail` and `slack`.'),
    ]);
    expect(run('allowed_toolkits', allowed, 'toolkits: [slack, github, 5]\n')).toEqual([]);
  });
});

describe('denied_toolkits', () => {
  const denied = ['github', 'gitlab'];

  it('an allowlist naming them, at each item', () => {
    expect(run('denied_toolkits', denied, 'toolkits: [gmail, github, gitlab]\n')).toEqual([
      found('/toolkits/1', at(1, 19, 1, 25), '`github` is a denied toolkit', 'Remove `github` from the allowlist.'),
      found('/toolkits/2', at(1, 27, 1, 33), '`gitlab` is a denied toolkit', 'Remove `gitlab` from the allowlist.'),
    ]);
    expect(run('denied_toolkits', denied, 'toolkits:\n  enable: [gmail]\n')).toEqual([]);
  });

  it('a denylist missing them, at its key: one, both, none', () => {
    expect(run('denied_toolkits', denied, 'toolkits:\n  disable: [slack]\n')).toEqual([
      found('/toolkits/disable', at(2, 3, 2, 10), '`github` and `gitlab` are not in the denylist', 'Add `github` and `gitlab` to `toolkits.disable`.'),
    ]);
    expect(run('denied_toolkits', denied, 'toolkits:\n  disable: [github]\n')).toEqual([
      found('/toolkits/disable', at(2, 3, 2, 10), '`gitlab` is not in the denylist', 'Add `gitlab` to `toolkits.disable`.'),
    ]);
    expect(run('denied_toolkits', denied, 'toolkits:\n  disable: [gitlab, slack, github]\n')).toEqual([]);
  });

  it('no list: at `toolkits` when it is there, else at the document', () => {
    const hint = 'Add `toolkits: {disable: [github, gitlab]}`, or an allowlist without them.';
    expect(run('denied_toolkits', denied, 'name: x\ntoolkits: {}\n')).toEqual([found('/toolkits', at(2, 1, 2, 9), `${allAccess}, \`github\` and \`gitlab\` included`, hint)]);
    expect(run('denied_toolkits', denied, 'name: x\n')).toEqual([found('', at(1, 1, 1, 1), `${allAccess}, \`github\` and \`gitlab\` included`, hint)]);
  });
});

describe('denied_tools', () => {
  it('in an enable list, a bare list and preload, at the item; a denylist, tags and non-strings are not turning tools on', () => {
    const yaml = 'tools:\n  x:\n    enable: [X_GET, X_DEL, 5]\n  "a/b": [Y_DEL]\n  z: { disable: [X_DEL] }\n  w: { tags: [readOnlyHint] }\npreload:\n  tools: [X_DEL, 7]\n';
    expect(run('denied_tools', ['X_DEL', 'Y_DEL'], yaml)).toEqual([
      found('/tools/x/enable/1', at(3, 21, 3, 26), '`tools.x.enable` turns on `X_DEL`', 'Remove `X_DEL` from `tools.x.enable`.'),
      found('/tools/a~1b/0', at(4, 11, 4, 16), '`tools.a/b` turns on `Y_DEL`', 'Remove `Y_DEL` from `tools.a/b`.'),
      found('/preload/tools/0', at(8, 11, 8, 16), '`preload.tools` turns on `X_DEL`', 'Remove `X_DEL` from `preload.tools`.'),
    ]);
  });

  it('tools and preload of other shapes: nothing, no throw', () => {
    expect(run('denied_tools', ['X_DEL'], 'tools: [X_DEL]\npreload: [X_DEL]\n')).toEqual([]);
    expect(run('denied_tools', ['X_DEL'], 'tools: { x: X_DEL }\npreload: { tools: X_DEL }\n')).toEqual([]);
    expect(run('denied_tools', ['X_DEL'], '- tools: { x: [X_DEL] }\n')).toEqual([]);
  });
});

describe('required_values', () => {
  const required = { 'workbench.enable_proxy_execution': false, 'workbench.sandbox_size': 'large', 'manage_connections.enable': true, name: 'x' };

  it('a different value at its key, one from the environment not repeated, an absent one where it would go', () => {
    const yaml = 'name: x\nworkbench:\n  enable_proxy_execution: true\n  sandbox_size: ${SIZE}\n';
    const out = run('required_values', required, yaml, { SIZE: 'small-secret' });
    expect(out).toEqual([
      found('/workbench/enable_proxy_execution', at(3, 3, 3, 25), '`workbench.enable_proxy_execution` is `true`; it must be `false`', 'Set `workbench.enable_proxy_execution` to false.'),
      found('/workbench/sandbox_size', at(4, 3, 4, 15), '`workbench.sandbox_size` is set from the environment to another value; it must be `"large"`', 'Set `workbench.sandbox_size` to "large".'),
      found('', at(1, 1, 1, 1), '`manage_connections.enable` is not set (the service default applies); it must be `true`', 'Declare `manage_connections.enable`: true.'),
    ]);
  });

  it('an empty value is declared (null), and a missing key is reported at its deepest declared ancestor', () => {
    expect(run('required_values', { 'workbench.enable': false }, 'workbench:\n  enable:\n')).toEqual([
      found('/workbench/enable', at(2, 3, 2, 9), '`workbench.enable` is `null`; it must be `false`', 'Set `workbench.enable` to false.'),
    ]);
    expect(run('required_values', { 'workbench.enable': false }, 'name: x\nworkbench:\n  sandbox_size: large\n')).toEqual([
      found('/workbench', at(2, 1, 2, 10), '`workbench.enable` is not set (the service default applies); it must be `false`', 'Declare `workbench.enable`: false.'),
    ]);
    expect(run('required_values', { 'workbench.enable': false }, 'workbench: [1]\n')).toEqual([
      found('/workbench', at(1, 1, 1, 10), '`workbench.enable` is not set (the service default applies); it must be `false`', 'Declare `workbench.enable`: false.'),
    ]);
  });

  it('equal values pass, whatever their type', () => {
    expect(run('required_values', { 'workbench.enable': false, 'workbench.sandbox_size': 'large', 'a.b': 3 }, 'workbench: { enable: false, sandbox_size: large }\na: { b: 3 }\n')).toEqual([]);
  });
});

describe('user_id_pattern and auth_config_pattern', () => {
  const pattern = '^usr_[0-9a-f]{8}$';
  const hint = `Use a user id that matches ${pattern}.`;

  it('a value that does not match, shown in full up to 60 characters, cut to 57 and ... beyond', () => {
    expect(run('user_id_pattern', pattern, 'user_id: alice\n')).toEqual([found('/user_id', at(1, 10, 1, 15), `\`user_id\` is \`alice\`, which does not match ${pattern}`, hint)]);
    const sixty = 'b'.repeat(60);
    expect(run('user_id_pattern', pattern, `user_id: ${sixty}\n`).map((d) => d.message)).toEqual([`Policy: \`user_id\` is \`${sixty}\`, which does not match ${pattern}`]);
    const long = `${'c'.repeat(57)}xyzw`;
    expect(run('user_id_pattern', pattern, `user_id: ${long}\n`).map((d) => d.message)).toEqual([`Policy: \`user_id\` is \`${'c'.repeat(57)}...\`, which does not match ${pattern}`]);
  });

  it('a value from the environment is not repeated; values past 1,024 characters and non-strings are not matched', () => {
    const out = run('user_id_pattern', pattern, 'user_id: ${WHO}\n', { WHO: 'alice-secret' });
    expect(out).toEqual([found('/user_id', at(1, 10, 1, 16), `\`user_id\` is set from the environment to a value that does not match ${pattern}`, hint)]);
    expect(run('user_id_pattern', 'a', `user_id: ${'x'.repeat(1024)}\n`)).toHaveLength(1);
    expect(run('user_id_pattern', 'a', `user_id: ${'x'.repeat(1025)}\n`)).toEqual([]);
    expect(run('user_id_pattern', pattern, 'user_id: 5\n')).toEqual([]);
  });

  it('every auth config id, at its value', () => {
    const yaml = 'auth_configs:\n  gmail: ac_prod1\n  slack: ac_dev2\n  "a.b": 7\n  jira: ac_dev3\n';
    expect(run('auth_config_pattern', '^ac_prod', yaml)).toEqual([
      found('/auth_configs/slack', at(3, 10, 3, 17), '`auth_configs.slack` is `ac_dev2`, which does not match ^ac_prod', 'Use an auth config id that matches ^ac_prod.'),
      found('/auth_configs/jira', at(5, 9, 5, 16), '`auth_configs.jira` is `ac_dev3`, which does not match ^ac_prod', 'Use an auth config id that matches ^ac_prod.'),
    ]);
    expect(run('auth_config_pattern', '^ac_prod', 'auth_configs: [ac_dev]\n')).toEqual([]);
  });
});
