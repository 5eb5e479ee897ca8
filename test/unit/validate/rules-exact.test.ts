import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseManifestText } from '../../../src/manifest/parse.js';
import { documentRules } from '../../../src/validate/index.js';
import { allowlistWithDenylist } from '../../../src/validate/rules/allowlist-with-denylist.js';
import { duplicateName } from '../../../src/validate/rules/duplicate-name.js';
import { emptyAllowlist } from '../../../src/validate/rules/empty-allowlist.js';
import { proxyWithoutWorkbench } from '../../../src/validate/rules/proxy-without-workbench.js';
import { tagConflict } from '../../../src/validate/rules/tag-conflict.js';
import { toolkitNotEnabled } from '../../../src/validate/rules/toolkit-not-enabled.js';
import { toolsVariant } from '../../../src/validate/rules/tools-variant.js';
import { waitWithoutManageConnections } from '../../../src/validate/rules/wait-without-manage-connections.js';
import { doc, docs, where } from './helpers.js';

/*
 * The rules held to their whole output (message, hint, range, related), on the shapes each one
 * branches on, and every rule run on every fixture the project has (eslint's RuleTester idea):
 * data that failed the schema, or is not a mapping at all, never makes a rule throw.
 */

const at = (line: number, col: number, endLine: number, endCol: number) => ({ start: { line, col }, end: { line: endLine, col: endCol } });
const FILE = '/work/m.yaml';

describe('every document rule on documents that are not mappings', () => {
  it.each([
    ['null', '~\n'],
    ['a string', 'just text\n'],
    ['a number', '7\n'],
    ['a list of strings', '- toolkits\n- tools\n'],
    ['a list of mappings', '- toolkits: []\n- workbench: { enable: false, enable_proxy_execution: true }\n'],
  ])('%s: no finding, no throw', (_name, yaml) => {
    const d = doc(yaml);
    for (const rule of documentRules) expect(rule.check(d), rule.code).toEqual([]);
  });

  it.each([
    ['toolkits is a string', 'user_id: u\ntoolkits: gmail\ntools: { gmail: [X] }\n'],
    ['toolkits.enable is a string', 'user_id: u\ntoolkits: { enable: gmail }\ntools: { slack: [X] }\n'],
    ['toolkits.disable is a number', 'user_id: u\ntoolkits: { disable: 3 }\nauth_configs: { slack: ac_1 }\n'],
    ['tools is a list', 'user_id: u\ntools: [a, b]\n'],
    ['a toolkit filter is a string', 'user_id: u\ntools: { gmail: all }\n'],
    ['tags hold numbers', 'user_id: u\ntags: { enable: [1, 2], disable: [2] }\n'],
    ['workbench is a list', 'user_id: u\nworkbench: [false]\n'],
    ['manage_connections is a string', 'user_id: u\nmanage_connections: off\n'],
  ])('%s: no finding, no throw', (_name, yaml) => {
    const d = doc(yaml);
    for (const rule of documentRules) expect(rule.check(d), rule.code).toEqual([]);
  });
});

describe('every rule on every fixture of the project', () => {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const files = [
    ...readdirSync(join(root, 'examples')).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(root, 'examples', f)),
    ...readdirSync(join(root, 'test/golden'), { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.ya?ml$/.test(f))
      .map((f) => join(root, 'test/golden', f)),
  ];

  it('runs on each file, and gives the same findings twice', () => {
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const parsed = parseManifestText(readFileSync(file, 'utf8'), file, { env: {} });
      for (const d of parsed.documents) {
        for (const rule of documentRules) expect(rule.check(d), `${rule.code} on ${file}`).toEqual(rule.check(d));
      }
      expect(duplicateName.checkAll(parsed.documents)).toEqual(duplicateName.checkAll(parsed.documents));
    }
  });
});

describe('rule/allowlist-with-denylist', () => {
  const hint = 'Keep `enable` for an allowlist (only these toolkits) or `disable` for a denylist (all but these), not both.';
  const message = '`toolkits` sets both `enable` and `disable`; the service accepts only one of them';

  it.each([
    ['enable first', 'user_id: u\ntoolkits:\n  enable: [a]\n  disable: [b]\n', 'disable', at(4, 3, 4, 10), 'enable', at(3, 3, 3, 9)],
    ['disable first', 'user_id: u\ntoolkits:\n  disable: [a]\n  enable: [b]\n', 'enable', at(4, 3, 4, 9), 'disable', at(3, 3, 3, 10)],
    ['both on one line', 'user_id: u\ntoolkits: { disable: [a], enable: [b] }\n', 'enable', at(2, 27, 2, 33), 'disable', at(2, 13, 2, 20)],
  ])('%s: the finding at the later key, the earlier one related', (_name, yaml, second, range, first, related) => {
    expect(allowlistWithDenylist.check(doc(yaml))).toEqual([
      {
        code: 'rule/allowlist-with-denylist',
        severity: 'error',
        message,
        file: FILE,
        pointer: `/toolkits/${second}`,
        range,
        hint,
        related: [{ message: `\`toolkits.${first}\` is set here`, file: FILE, range: related }],
      },
    ]);
  });
});

describe('rule/tools-variant', () => {
  it('two variants: at the later key, naming both in source order', () => {
    expect(toolsVariant.check(doc('user_id: u\ntools:\n  github:\n    tags: [readOnlyHint]\n    disable: [X]\n'))).toEqual([
      {
        code: 'rule/tools-variant',
        severity: 'error',
        message: '`tools.github` sets `tags` and `disable`; a toolkit takes exactly one of them',
        file: FILE,
        pointer: '/tools/github/disable',
        range: at(5, 5, 5, 12),
        hint: 'Use `enable` (only these tools), `disable` (all but these) or `tags` (filter by hint), one per toolkit.',
        related: [{ message: '`tags` is set here', file: FILE, range: at(4, 5, 4, 9) }],
      },
    ]);
  });

  it('three variants name all three', () => {
    const [d] = toolsVariant.check(doc('user_id: u\ntools:\n  gh: { disable: [X], tags: [readOnlyHint], enable: [Y] }\n'));
    expect(d!.message).toBe('`tools.gh` sets `disable` and `tags` and `enable`; a toolkit takes exactly one of them');
    expect(d!.pointer).toBe('/tools/gh/tags');
  });

  it('an empty filter', () => {
    expect(toolsVariant.check(doc('user_id: u\ntools:\n  gmail: {}\n'))).toEqual([
      {
        code: 'rule/tools-variant',
        severity: 'error',
        message: '`tools.gmail` is empty; it must set one of `enable`, `disable` or `tags`',
        file: FILE,
        pointer: '/tools/gmail',
        range: at(3, 3, 3, 8),
        hint: 'Write for example `gmail: { enable: [...] }`, or remove the entry.',
      },
    ]);
  });

  it('one variant, a bare list, or only an unknown key: no finding', () => {
    expect(toolsVariant.check(doc('user_id: u\ntools:\n  a: { enable: [X] }\n  b: [Y]\n  c: { enabel: [Z] }\n'))).toEqual([]);
  });
});

describe('rule/toolkit-not-enabled', () => {
  it('outside a bare allowlist: related to the list itself', () => {
    expect(toolkitNotEnabled.check(doc('user_id: u\ntoolkits: [gmail]\nconnected_accounts: { slack: ca_1 }\n'))).toEqual([
      {
        code: 'rule/toolkit-not-enabled',
        severity: 'error',
        message: '`connected_accounts.slack` configures toolkit `slack`, which the allowlist `toolkits` does not enable',
        file: FILE,
        pointer: '/connected_accounts/slack',
        range: at(3, 23, 3, 28),
        hint: 'Add `slack` to the allowlist, or remove `connected_accounts.slack`.',
        related: [{ message: 'the allowlist', file: FILE, range: at(2, 11, 2, 18) }],
      },
    ]);
  });

  it('outside toolkits.enable: related to that list', () => {
    const [d] = toolkitNotEnabled.check(doc('user_id: u\ntoolkits:\n  enable: [gmail]\ntools:\n  github: [X]\n'));
    expect(d!.related).toEqual([{ message: 'the allowlist', file: FILE, range: at(3, 11, 3, 18) }]);
    expect(d!.pointer).toBe('/tools/github');
  });

  it('in the denylist: related to the member that removes it', () => {
    expect(toolkitNotEnabled.check(doc('user_id: u\ntoolkits:\n  disable: [gmail, slack]\nauth_configs:\n  slack: ac_1\n  github: ac_2\n'))).toEqual([
      {
        code: 'rule/toolkit-not-enabled',
        severity: 'error',
        message: '`auth_configs.slack` configures toolkit `slack`, which the denylist `toolkits.disable` removes',
        file: FILE,
        pointer: '/auth_configs/slack',
        range: at(5, 3, 5, 8),
        hint: 'Remove `slack` from `toolkits.disable`, or remove `auth_configs.slack`.',
        related: [{ message: '`slack` is disabled here', file: FILE, range: at(3, 20, 3, 25) }],
      },
    ]);
  });

  it('every section, in order', () => {
    const found = toolkitNotEnabled.check(doc('user_id: u\ntoolkits: [a]\nconnected_accounts: { b: ca_1 }\nauth_configs: { c: ac_1 }\ntools: { d: [X], a: [Y] }\n'));
    expect(found.map((d) => d.pointer)).toEqual(['/tools/d', '/auth_configs/c', '/connected_accounts/b']);
  });

  it('with both lists set the conflict rule speaks instead; no toolkits, no finding', () => {
    expect(toolkitNotEnabled.check(doc('user_id: u\ntoolkits: { enable: [a], disable: [b] }\ntools: { b: [X], c: [Y] }\n'))).toEqual([]);
    expect(toolkitNotEnabled.check(doc('user_id: u\ntoolkits: { disable: [b], enable: [a] }\ntools: { b: [X], c: [Y] }\n'))).toEqual([]);
    expect(toolkitNotEnabled.check(doc('user_id: u\ntools: { b: [X] }\n'))).toEqual([]);
  });
});

describe('rule/tag-conflict', () => {
  it('global tags: at the disabled member, related to the enabled one', () => {
    expect(tagConflict.check(doc('user_id: u\ntags:\n  enable: [readOnlyHint, openWorldHint]\n  disable: [openWorldHint]\n'))).toEqual([
      {
        code: 'rule/tag-conflict',
        severity: 'error',
        message: 'tag `openWorldHint` is both enabled and disabled in `tags`',
        file: FILE,
        pointer: '/tags/disable/0',
        range: at(4, 13, 4, 26),
        hint: 'Remove `openWorldHint` from one of `tags.enable` and `tags.disable`.',
        related: [{ message: '`openWorldHint` is enabled here', file: FILE, range: at(3, 26, 3, 39) }],
      },
    ]);
  });

  it('a toolkit filter, with a label and pointer of its own', () => {
    const found = tagConflict.check(doc('user_id: u\ntools:\n  a/b:\n    tags: { enable: [x, y], disable: [z, y, x] }\n'));
    expect(found.map((d) => [d.pointer, d.message, d.hint])).toEqual([
      ['/tools/a~1b/tags/disable/1', 'tag `y` is both enabled and disabled in `tools.a/b.tags`', 'Remove `y` from one of `tools.a/b.tags.enable` and `tools.a/b.tags.disable`.'],
      ['/tools/a~1b/tags/disable/2', 'tag `x` is both enabled and disabled in `tools.a/b.tags`', 'Remove `x` from one of `tools.a/b.tags.enable` and `tools.a/b.tags.disable`.'],
    ]);
  });

  it('a bare tag list, or one side only: no finding', () => {
    expect(tagConflict.check(doc('user_id: u\ntags: [readOnlyHint]\ntools: { a: { tags: [x] }, b: { tags: { disable: [x] } }, c: [Y] }\n'))).toEqual([]);
  });
});

describe('rule/proxy-without-workbench and rule/wait-without-manage-connections', () => {
  it('proxy execution with the workbench off', () => {
    expect(proxyWithoutWorkbench.check(doc('user_id: u\nworkbench:\n  enable: false\n  enable_proxy_execution: true\n'))).toEqual([
      {
        code: 'rule/proxy-without-workbench',
        severity: 'warning',
        message: '`workbench.enable_proxy_execution` is true but the workbench is off, so proxy execution has no effect',
        file: FILE,
        pointer: '/workbench/enable_proxy_execution',
        range: at(4, 3, 4, 25),
        hint: 'Remove `enable_proxy_execution`, or turn the workbench on with `workbench.enable: true`.',
        related: [{ message: 'the workbench is turned off here', file: FILE, range: at(3, 11, 3, 16) }],
      },
    ]);
  });

  it('waiting with connection management off', () => {
    expect(waitWithoutManageConnections.check(doc('user_id: u\nmanage_connections:\n  enable: false\n  enable_wait_for_connections: true\n'))).toEqual([
      {
        code: 'rule/wait-without-manage-connections',
        severity: 'warning',
        message:
          '`manage_connections.enable_wait_for_connections` is true but connection management is off, so the agent cannot start the connections it would wait for',
        file: FILE,
        pointer: '/manage_connections/enable_wait_for_connections',
        range: at(4, 3, 4, 30),
        hint: 'Remove `enable_wait_for_connections`, or turn connection management on with `manage_connections.enable: true`.',
        related: [{ message: 'connection management is turned off here', file: FILE, range: at(3, 11, 3, 16) }],
      },
    ]);
  });

  it.each([
    ['the workbench off alone', proxyWithoutWorkbench, 'user_id: u\nworkbench: { enable: false }\n'],
    ['proxy on with the workbench on', proxyWithoutWorkbench, 'user_id: u\nworkbench: { enable: true, enable_proxy_execution: true }\n'],
    ['proxy on with the workbench unset', proxyWithoutWorkbench, 'user_id: u\nworkbench: { enable_proxy_execution: true }\n'],
    ['connections off alone', waitWithoutManageConnections, 'user_id: u\nmanage_connections: { enable: false }\n'],
    ['waiting with connections unset', waitWithoutManageConnections, 'user_id: u\nmanage_connections: { enable_wait_for_connections: true }\n'],
    ['waiting off with connections off', waitWithoutManageConnections, 'user_id: u\nmanage_connections: { enable: false, enable_wait_for_connections: false }\n'],
  ])('%s: no finding', (_name, rule, yaml) => {
    expect(rule.check(doc(yaml))).toEqual([]);
  });
});

describe('rule/empty-allowlist', () => {
  it.each([
    ['the shorthand', 'user_id: u\ntoolkits: []\n', '/toolkits', at(2, 11, 2, 13)],
    ['toolkits.enable', 'user_id: u\ntoolkits:\n  enable: []\n', '/toolkits/enable', at(3, 11, 3, 13)],
  ])('%s', (_name, yaml, pointer, range) => {
    expect(emptyAllowlist.check(doc(yaml))).toEqual([
      {
        code: 'rule/empty-allowlist',
        severity: 'warning',
        message: 'the toolkit allowlist is empty, so the session can use no toolkit at all',
        file: FILE,
        pointer,
        range,
        hint: 'List the toolkits the session needs, or remove `toolkits` to allow every toolkit.',
      },
    ]);
  });

  it.each([
    ['a list with one toolkit', 'user_id: u\ntoolkits: [gmail]\n'],
    ['enable with one toolkit', 'user_id: u\ntoolkits: { enable: [gmail] }\n'],
    ['an empty denylist', 'user_id: u\ntoolkits: { disable: [] }\n'],
    ['enable that is not a list', 'user_id: u\ntoolkits: { enable: gmail }\n'],
    ['no toolkits', 'user_id: u\n'],
  ])('%s: no finding', (_name, yaml) => {
    expect(emptyAllowlist.check(doc(yaml))).toEqual([]);
  });
});

describe('rule/duplicate-name', () => {
  it('declared and derived names: located at `name:` or the first line, with the first use related', () => {
    const a = docs('name: team\nuser_id: u\n', '/work/a.yaml');
    const b = docs('user_id: u\n---\nname: team\nuser_id: v\n', '/work/b.yaml');
    const c = docs('# derived\nuser_id: u\n', '/work/x/b.yaml');
    expect(duplicateName.checkAll([...a, ...b, ...c])).toEqual([
      {
        code: 'rule/duplicate-name',
        severity: 'error',
        message: 'manifest name `team` is already used by another manifest of this run',
        hint: 'Give each manifest a unique `name:`; names identify sessions in the state file.',
        file: '/work/b.yaml',
        pointer: '/name',
        range: at(3, 7, 3, 11),
        related: [{ message: '`team` is first used here', file: '/work/a.yaml', range: at(1, 7, 1, 11) }],
      },
      {
        code: 'rule/duplicate-name',
        severity: 'error',
        message: 'manifest name `b` is already used by another manifest of this run (the name comes from the file name)',
        hint: 'Give each manifest a unique `name:`; names identify sessions in the state file.',
        file: '/work/x/b.yaml',
        pointer: '',
        range: at(2, 1, 2, 1),
        related: [{ message: '`b` is first used here', file: '/work/b.yaml', range: at(1, 1, 1, 1) }],
      },
    ]);
  });

  it('distinct names: no finding', () => {
    expect(duplicateName.checkAll([...docs('name: a\nuser_id: u\n---\nname: b\nuser_id: u\n')])).toEqual([]);
  });
});

describe('the table of rules.test.ts still reads the same through where()', () => {
  it('where() is code@line:col', () => {
    expect(where(emptyAllowlist.check(doc('user_id: u\ntoolkits: []\n')))).toEqual(['rule/empty-allowlist@2:11']);
  });
});
