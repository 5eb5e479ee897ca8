import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PolicySet, policyKinds } from '../../../../src/validate/policies/index.js';
import { dottedPointer, expandPointer, lookupPath, placeOf, tagFilter, toolEntries, toolkitAccess, usable } from '../../../../src/validate/policies/manifest-view.js';
import { doc } from '../helpers.js';

/* The readings of a manifest the policy kinds share, on data of every shape (it may have failed the schema). */

const data = (yaml: string): unknown => doc(yaml).data;

describe('toolkitAccess and usable', () => {
  it.each([
    ['a bare list', 'toolkits: [a, 5, b]\n', { mode: 'allow', listPointer: '/toolkits', items: [{ slug: 'a', index: 0 }, { slug: 'b', index: 2 }] }],
    ['enable', 'toolkits: { enable: [a] }\n', { mode: 'allow', listPointer: '/toolkits/enable', items: [{ slug: 'a', index: 0 }] }],
    ['both lists: the allowlist', 'toolkits: { disable: [b], enable: [a] }\n', { mode: 'allow', listPointer: '/toolkits/enable', items: [{ slug: 'a', index: 0 }] }],
    ['disable', 'toolkits: { disable: [x, b] }\n', { mode: 'deny', listPointer: '/toolkits/disable', items: [{ slug: 'x', index: 0 }, { slug: 'b', index: 1 }] }],
    ['enable that is not a list', 'toolkits: { enable: gmail }\n', { mode: 'allow', listPointer: '/toolkits/enable', items: [] }],
    ['an empty mapping', 'toolkits: {}\n', { mode: 'all', items: [] }],
    ['a scalar', 'toolkits: gmail\n', { mode: 'all', items: [] }],
    ['nothing', 'name: x\n', { mode: 'all', items: [] }],
    ['a document that is a list', '- toolkits: [a]\n', { mode: 'all', items: [] }],
  ])('%s', (_name, yaml, expected) => {
    const access = toolkitAccess(data(yaml));
    expect(access).toEqual(expected);
    const allowed = ['a', 'b', 'x'].filter((t) => usable(access, t));
    expect(allowed).toEqual(expected.mode === 'all' ? ['a', 'b', 'x'] : expected.mode === 'deny' ? ['a'] : expected.items.map((i) => i.slug));
  });

  it('an allowlist with several toolkits allows each of them', () => {
    const access = toolkitAccess(data('toolkits: [a, b]\n'));
    expect([usable(access, 'a'), usable(access, 'b'), usable(access, 'c')]).toEqual([true, true, false]);
  });
});

describe('tagFilter and toolEntries', () => {
  const yaml = 'tags: [readOnlyHint, 5]\ntools:\n  gh:\n    tags: { enable: [a], disable: [b, c] }\n  sl: { tags: { enable: readOnlyHint } }\n  jr: { tags: 5 }\n  nt: [X]\n';

  it('the global filter (a bare list is its enable list) and each toolkit\'s own, with pointers', () => {
    const d = data(yaml);
    expect(tagFilter(d)).toEqual({ pointer: '/tags', bare: true, enable: [{ tag: 'readOnlyHint', pointer: '/tags/0' }], disable: [] });
    expect(tagFilter(d, 'gh')).toEqual({
      pointer: '/tools/gh/tags',
      bare: false,
      enable: [{ tag: 'a', pointer: '/tools/gh/tags/enable/0' }],
      disable: [
        { tag: 'b', pointer: '/tools/gh/tags/disable/0' },
        { tag: 'c', pointer: '/tools/gh/tags/disable/1' },
      ],
    });
    expect(tagFilter(d, 'sl')).toEqual({ pointer: '/tools/sl/tags', bare: false, enable: [], disable: [] });
    expect(tagFilter(d, 'jr')).toBeUndefined();
    expect(tagFilter(d, 'nt')).toBeUndefined();
    expect(toolEntries(d)).toEqual(['gh', 'sl', 'jr', 'nt']);
  });

  it('a toolkit named like the global filter\'s place in the cache is still its own', () => {
    const d = data('tags: [readOnlyHint]\ntools:\n  undefined: { tags: { disable: [destructiveHint] } }\n  "": { tags: [openWorldHint] }\n');
    expect(tagFilter(d)?.pointer).toBe('/tags');
    expect(tagFilter(d, 'undefined')?.disable).toEqual([{ tag: 'destructiveHint', pointer: '/tools/undefined/tags/disable/0' }]);
    expect(tagFilter(d, '')?.enable).toEqual([{ tag: 'openWorldHint', pointer: '/tools//tags/0' }]);
    expect(tagFilter(d)?.enable).toEqual([{ tag: 'readOnlyHint', pointer: '/tags/0' }]);
  });

  it('a document that is not a mapping has none', () => {
    expect(tagFilter(data('- tags: [a]\n'))).toBeUndefined();
    expect(tagFilter(data('- tools: { a: { tags: [b] } }\n'), 'a')).toBeUndefined();
    expect(toolEntries(data('- tools: { a: [B] }\n'))).toEqual([]);
  });
});

describe('paths and pointers', () => {
  it('dottedPointer escapes each segment, the same every time', () => {
    expect(dottedPointer('a.b/c.d~e')).toBe('/a/b~1c/d~0e');
    expect(dottedPointer('a.b/c.d~e')).toBe('/a/b~1c/d~0e');
  });

  it('placeOf: the key, else its deepest declared ancestor, else the document (never an empty key)', () => {
    const d = data('"": 1\nworkbench:\n  enable:\nlist: [a]\n');
    expect(placeOf(d, '/workbench/enable')).toEqual({ pointer: '/workbench/enable', key: true, point: false });
    expect(placeOf(d, '/workbench/sandbox_size')).toEqual({ pointer: '/workbench', key: true, point: false });
    expect(placeOf(d, '/list/x')).toEqual({ pointer: '/list', key: true, point: false });
    expect(placeOf(d, '/nope/x')).toEqual({ pointer: '', key: false, point: true });
  });

  it('lookupPath: declared (null included) or not, through mappings only', () => {
    const d = data('workbench:\n  enable:\nlist: [a]\nn: 5\n');
    expect(lookupPath(d, 'workbench.enable')).toEqual({ declared: true, value: null });
    expect(lookupPath(d, 'workbench')).toEqual({ declared: true, value: { enable: null } });
    expect(lookupPath(d, 'workbench.sandbox_size')).toEqual({ declared: false });
    expect(lookupPath(d, 'list.0')).toEqual({ declared: false });
    expect(lookupPath(d, 'n.x')).toEqual({ declared: false });
    expect(lookupPath(d, 'constructor')).toEqual({ declared: false });
  });

  it('expandPointer: `*` over mappings and lists, indices in range only, nothing through scalars', () => {
    const d = data('tools:\n  a: { disable: [X, Y] }\n  b: [Z]\nn: 5\n');
    expect(expandPointer(d, 'tools.*')).toEqual(['/tools/a', '/tools/b']);
    expect(expandPointer(d, 'tools.*.*')).toEqual(['/tools/a/disable', '/tools/b/0']);
    expect(expandPointer(d, 'tools.a.disable.1')).toEqual(['/tools/a/disable/1']);
    expect(expandPointer(d, 'tools.a.disable.2')).toEqual([]);
    expect(expandPointer(d, 'tools.a.disable.01')).toEqual([]);
    expect(expandPointer(d, 'tools.a.disable.1x')).toEqual([]);
    expect(expandPointer(d, 'tools.a.disable.x1')).toEqual([]);
    expect(expandPointer(d, 'tools.b.10')).toEqual([]);
    expect(expandPointer(d, 'n.*')).toEqual([]);
    expect(expandPointer(d, 'tools.c')).toEqual([]);
    const eleven = data(`list: [${'x, '.repeat(10)}last]\n`);
    expect(expandPointer(eleven, 'list.10')).toEqual(['/list/10']);
    expect(expandPointer(eleven, 'list.11')).toEqual([]);
  });
});

describe('every kind\'s example, as docs/policies.md shows it', () => {
  it.each(policyKinds.map((k) => [k.name, k] as const))('%s: the example manifest breaks the example policy', (_name, kind) => {
    const policy = parse(kind.example.policy) as Record<string, unknown>;
    const set = new PolicySet([{ id: String(policy['id']), message: String(policy['message']), severity: 'error', kind: kind.name, value: policy[kind.name] }], '/work');
    const found = set.check(doc(kind.example.manifest));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((d) => d.code === `policy/${String(policy['id'])}` && d.message.startsWith(`${String(policy['message'])}: `))).toBe(true);
  });
});

describe('every kind on documents that are not mappings', () => {
  it.each([['a list', '- user_id: bob\n  toolkits: [a]\n'], ['a string', 'text\n'], ['null', '~\n']])('%s: no throw', (_name, yaml) => {
    for (const k of policyKinds) {
      const value = k.name.endsWith('_pattern') ? '^x' : k.name.startsWith('max_') ? 0 : k.name.endsWith('_tags') ? { enable: ['a'] } : k.name === 'required_values' ? { 'a.b': 1 } : ['a'];
      expect(() => k.check(doc(yaml), value), k.name).not.toThrow();
    }
  });
});
