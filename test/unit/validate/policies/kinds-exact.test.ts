import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../../src/diagnostics/diagnostic.js';
import { PolicySet, policyKind } from '../../../../src/validate/policies/index.js';
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

describe('required_tags', () => {
  const wanted = { enable: ['readOnlyHint'], disable: ['destructiveHint', 'openWorldHint'] };

  it('the global filter and each toolkit\'s own: at the list, at a bare list, or at the filter the list would go in', () => {
    const yaml = 'tags: [idempotentHint]\ntools:\n  github:\n    tags:\n      disable: [destructiveHint]\n  slack: [SLACK_X]\n';
    expect(run('required_tags', wanted, yaml)).toEqual([
      found('/tags', at(1, 1, 1, 5), '`tags.enable` does not include `readOnlyHint`', 'Add `readOnlyHint` to `tags.enable`.'),
      found('/tags', at(1, 1, 1, 5), '`tags.disable` does not include `destructiveHint` and `openWorldHint`', 'Add `destructiveHint` and `openWorldHint` to `tags.disable`.'),
      found('/tools/github/tags', at(4, 5, 4, 9), '`tools.github.tags.enable` does not include `readOnlyHint`', 'Add `readOnlyHint` to `tools.github.tags.enable`.'),
      found('/tools/github/tags/disable', at(5, 7, 5, 14), '`tools.github.tags.disable` does not include `openWorldHint`', 'Add `openWorldHint` to `tools.github.tags.disable`.'),
    ]);
  });

  it('an enable list that lacks one, at that list; no tags at all, at the document', () => {
    expect(run('required_tags', { enable: ['readOnlyHint'] }, 'tags:\n  enable: [idempotentHint]\n')).toEqual([
      found('/tags/enable', at(2, 3, 2, 9), '`tags.enable` does not include `readOnlyHint`', 'Add `readOnlyHint` to `tags.enable`.'),
    ]);
    expect(run('required_tags', { enable: ['readOnlyHint'], disable: ['destructiveHint'] }, 'name: x\n')).toEqual([
      found('', at(1, 1, 1, 1), '`tags` is not set, so `readOnlyHint` is not required of tools', 'Add `readOnlyHint` to `tags.enable`.'),
      found('', at(1, 1, 1, 1), '`tags` is not set, so `destructiveHint` tools are not removed', 'Add `destructiveHint` to `tags.disable`.'),
    ]);
    expect(run('required_tags', wanted, 'tags:\n  enable: [readOnlyHint, x]\n  disable: [openWorldHint, destructiveHint]\n')).toEqual([]);
  });

  it('per toolkit: the filter in effect for each toolkit the session may use', () => {
    const yaml = 'toolkits: [github, slack]\ntags:\n  disable: [openWorldHint]\ntools:\n  slack:\n    tags:\n      disable: [destructiveHint]\n';
    expect(run('required_tags', { disable: ['destructiveHint'], toolkits: ['github', 'slack', 'jira'] }, yaml)).toEqual([
      found('/tags/disable', at(3, 3, 3, 10), 'for `github`: `tags.disable` does not include `destructiveHint`', 'Add `destructiveHint` to `tags.disable`.'),
    ]);
    expect(run('required_tags', { disable: ['destructiveHint'], toolkits: ['github', 'slack'] }, 'toolkits: { disable: [github] }\ntools:\n  slack: { tags: { disable: [x] } }\n')).toEqual([
      found('/tools/slack/tags/disable', at(3, 20, 3, 27), '`tools.slack.tags.disable` does not include `destructiveHint`', 'Add `destructiveHint` to `tools.slack.tags.disable`.'),
    ]);
  });
});

describe('forbidden_tags', () => {
  const yaml = 'tags:\n  enable: [destructiveHint]\n  disable: [readOnlyHint, openWorldHint]\ntools:\n  github:\n    tags: [destructiveHint]\n  slack: [X]\n';

  it('every filter, or only the listed toolkits\'; each list against its own forbidden tags', () => {
    expect(run('forbidden_tags', { enable: ['destructiveHint'], disable: ['readOnlyHint'] }, yaml)).toEqual([
      found('/tags/enable/0', at(2, 12, 2, 27), '`tags.enable` lists `destructiveHint`', 'Remove `destructiveHint` from `tags.enable`.'),
      found('/tags/disable/0', at(3, 13, 3, 25), '`tags.disable` lists `readOnlyHint`', 'Remove `readOnlyHint` from `tags.disable`.'),
      found('/tools/github/tags/0', at(6, 12, 6, 27), '`tools.github.tags.enable` lists `destructiveHint`', 'Remove `destructiveHint` from `tools.github.tags.enable`.'),
    ]);
    expect(run('forbidden_tags', { enable: ['destructiveHint'], toolkits: ['github'] }, yaml).map((d) => d.pointer)).toEqual(['/tools/github/tags/0']);
    expect(run('forbidden_tags', { disable: ['destructiveHint'] }, yaml)).toEqual([]);
  });
});

describe('forbidden_keys', () => {
  it('each path in order, at the key; `*` over mappings and lists; indices only within the list', () => {
    const yaml = 'name: x\ntools:\n  a: {disable: [X]}\n  b: [Y]\npreload:\n  tools: [A, B]\nexperimental:\n  custom_tools: []\n';
    const paths = ['experimental.custom_tools', 'tools.*.disable', 'preload.tools.1', 'preload.tools.2', 'preload.tools.01', 'name.*', 'name'];
    expect(run('forbidden_keys', paths, yaml)).toEqual([
      found('/experimental/custom_tools', at(8, 3, 8, 15), '`experimental.custom_tools` must not be declared', 'Remove `experimental.custom_tools`.'),
      found('/tools/a/disable', at(3, 7, 3, 14), '`tools.a.disable` must not be declared', 'Remove `tools.a.disable`.'),
      found('/preload/tools/1', at(6, 14, 6, 15), '`preload.tools[1]` must not be declared', 'Remove `preload.tools[1]`.'),
      found('/name', at(1, 1, 1, 5), '`name` must not be declared', 'Remove `name`.'),
    ]);
    expect(run('forbidden_keys', ['preload.tools.*'], yaml).map((d) => d.pointer)).toEqual(['/preload/tools/0', '/preload/tools/1']);
  });
});

describe('max_toolkits and max_preloaded_tools', () => {
  it('an allowlist over the limit at its key; at the limit, nothing', () => {
    expect(run('max_toolkits', 2, 'toolkits:\n  enable: [a, b, c]\n')).toEqual([
      found('/toolkits/enable', at(2, 3, 2, 9), '3 toolkits are enabled; at most 2 are allowed', 'Split the session, or drop the toolkits it does not need.'),
    ]);
    expect(run('max_toolkits', 3, 'toolkits:\n  enable: [a, b, c]\n')).toEqual([]);
  });

  it('a denylist or no list is every toolkit', () => {
    const hint = 'Declare an allowlist of at most 2: `toolkits: {enable: [...]}`.';
    expect(run('max_toolkits', 2, 'name: x\ntoolkits:\n  disable: [a]\n')).toEqual([found('/toolkits', at(2, 1, 2, 9), denyAccess, hint)]);
    expect(run('max_toolkits', 2, 'name: x\n')).toEqual([found('', at(1, 1, 1, 1), allAccess, hint)]);
  });

  it('preloaded tools over the limit, at the key; at the limit or not a list, nothing', () => {
    expect(run('max_preloaded_tools', 1, 'preload:\n  tools: [A_X, A_Y]\n')).toEqual([
      found('/preload/tools', at(2, 3, 2, 8), '2 tools are preloaded; at most 1 are allowed', 'Keep the rest reachable through search instead of preloading them.'),
    ]);
    expect(run('max_preloaded_tools', 2, 'preload:\n  tools: [A_X, A_Y]\n')).toEqual([]);
    expect(run('max_preloaded_tools', 0, 'preload:\n  tools: A_X\n')).toEqual([]);
  });
});

describe('PolicySet', () => {
  const spec = (id: string, kind: string, value: unknown, extra: object = {}) => ({ id, message: id.toUpperCase(), severity: 'error' as const, kind, value, ...extra });

  it('checks every known policy in order, with its own code, severity, message and hint; a hand-built unknown kind checks nothing', () => {
    const set = new PolicySet(
      [
        spec('lean', 'max_preloaded_tools', 0, { severity: 'warning', hint: 'Ask #platform.' }),
        spec('odd', 'no_such_kind', 1),
        spec('ids', 'user_id_pattern', '^usr_'),
      ],
      '/work',
    );
    expect(set.size).toBe(2);
    expect(set.check(doc('user_id: bob\npreload:\n  tools: [A_X]\n', FILE))).toEqual([
      { code: 'policy/lean', severity: 'warning', message: 'LEAN: 1 tools are preloaded; at most 0 are allowed', file: FILE, pointer: '/preload/tools', range: at(3, 3, 3, 8), hint: 'Ask #platform.' },
      { code: 'policy/ids', severity: 'error', message: 'IDS: `user_id` is `bob`, which does not match ^usr_', file: FILE, pointer: '/user_id', range: at(1, 10, 1, 13), hint: 'Use a user id that matches ^usr_.' },
    ]);
    expect(policyKind('max_toolkits')?.name).toBe('max_toolkits');
    expect(policyKind('no_such_kind')).toBeUndefined();
  });

  it('a policy with files applies to the files under the config folder its globs match; one without, to every file', () => {
    const set = new PolicySet([spec('prod', 'max_toolkits', 0, { files: ['prod/**'] }), spec('all', 'max_preloaded_tools', 0)], '/work/project');
    const yaml = 'toolkits: [a]\npreload: { tools: [A_X] }\n';
    const codes = (file: string) => set.check(doc(yaml, file)).map((d) => d.code);
    expect(codes('/work/project/prod/m.yaml')).toEqual(['policy/prod', 'policy/all']);
    expect(codes('/work/project/staging/m.yaml')).toEqual(['policy/all']);
    expect(codes('/work/elsewhere/prod/m.yaml')).toEqual(['policy/all']);
    expect(codes('/work/project/../project/prod/m.yaml')).toEqual(['policy/prod', 'policy/all']);
  });

  it('a file outside the config folder, or without a path, is matched by no glob, not even `**`', () => {
    const set = new PolicySet([spec('every', 'max_toolkits', 0, { files: ['**'] })], '/work/project');
    const codes = (file: string) => set.check(doc('toolkits: [a]\n', file)).map((d) => d.code);
    expect(codes('/work/project/m.yaml')).toEqual(['policy/every']);
    expect(codes('/work/other/m.yaml')).toEqual([]);
    expect(codes('m.yaml')).toEqual([]);
  });
});
