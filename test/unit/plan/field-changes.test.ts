import { describe, expect, test } from 'vitest';
import { describeChange, fieldChanges, locateChanges, type FieldChange } from '../../../src/plan/field-changes.js';
import type { Json } from '../../../src/wire/json.js';
import { doc } from '../validate/helpers.js';

/*
 * The field changes a plan shows for an update, held to their whole value (toStrictEqual, so a
 * stray `old: undefined` shows): which field, where in the manifest, what op, old and new values,
 * and the members of a set that changed.
 */

describe('fieldChanges: each kind of difference, exactly', () => {
  test('equal bodies, key order and set order aside, have no changes', () => {
    expect(fieldChanges({ a: 1, b: { c: ['x', 'y'] } }, { b: { c: ['y', 'x'] }, a: 1 })).toStrictEqual([]);
    expect(fieldChanges([{ a: 1, b: 2 }], [{ b: 2, a: 1 }])).toStrictEqual([]);
    expect(fieldChanges(undefined, undefined)).toStrictEqual([]);
    expect(fieldChanges([], [])).toStrictEqual([]);
  });

  test('a key added, at its own pointer; a key removed, at its parent (where it was declared, the key is gone)', () => {
    expect(fieldChanges({ a: 1 }, { a: 1, b: { c: true } })).toStrictEqual([{ field: 'b', pointer: '/b', op: 'add', new: { c: true }, source: 'manifest' }]);
    expect(fieldChanges({ w: { x: 1, y: 2 } }, { w: { x: 1 } })).toStrictEqual([{ field: 'w.y', pointer: '/w', op: 'remove', old: 2, source: 'manifest' }]);
    expect(fieldChanges({ x: 'gone' }, {})).toStrictEqual([{ field: 'x', pointer: '', op: 'remove', old: 'gone', source: 'manifest' }]);
    expect(fieldChanges({ a: { b: { c: 1 } } }, { a: { b: {} } })).toStrictEqual([{ field: 'a.b.c', pointer: '/a/b', op: 'remove', old: 1, source: 'manifest' }]);
  });

  test('a whole body added or removed is one change at the document', () => {
    expect(fieldChanges(undefined, { a: 1 })).toStrictEqual([{ field: '', pointer: '', op: 'add', new: { a: 1 }, source: 'manifest' }]);
    expect(fieldChanges({ a: 1 }, undefined)).toStrictEqual([{ field: '', pointer: '', op: 'remove', old: { a: 1 }, source: 'manifest' }]);
  });

  test('a list of scalars is a set: the members added and removed, both values whole', () => {
    expect(fieldChanges({ t: ['gmail', 'slack'] }, { t: ['slack', 'notion', 'gmail', 'jira'] })).toStrictEqual([
      { field: 't', pointer: '/t', op: 'change', old: ['gmail', 'slack'], new: ['slack', 'notion', 'gmail', 'jira'], members: { added: ['notion', 'jira'], removed: [] }, source: 'manifest' },
    ]);
    expect(fieldChanges({ t: ['a', 'b', 'c'] }, { t: ['b'] })).toStrictEqual([{ field: 't', pointer: '/t', op: 'change', old: ['a', 'b', 'c'], new: ['b'], members: { added: [], removed: ['a', 'c'] }, source: 'manifest' }]);
    expect(fieldChanges({ t: [] }, { t: ['a'] })).toStrictEqual([{ field: 't', pointer: '/t', op: 'change', old: [], new: ['a'], members: { added: ['a'], removed: [] }, source: 'manifest' }]);
  });

  test('set members keep their type: 1 and "1" differ; null and booleans are members too', () => {
    expect(fieldChanges({ t: [1, null, true] }, { t: ['1', true] })).toStrictEqual([
      { field: 't', pointer: '/t', op: 'change', old: [1, null, true], new: ['1', true], members: { added: ['1'], removed: [1, null] }, source: 'manifest' },
    ]);
  });

  test('a list with an object in it is compared whole (no members)', () => {
    expect(fieldChanges({ t: [{ a: 1 }] }, { t: [{ a: 2 }] })).toStrictEqual([{ field: 't', pointer: '/t', op: 'change', old: [{ a: 1 }], new: [{ a: 2 }], source: 'manifest' }]);
    expect(fieldChanges({ t: ['a'] }, { t: ['a', { b: 1 }] })).toStrictEqual([{ field: 't', pointer: '/t', op: 'change', old: ['a'], new: ['a', { b: 1 }], source: 'manifest' }]);
    expect(fieldChanges({ t: ['a', ['b']] }, { t: ['a'] })).toStrictEqual([{ field: 't', pointer: '/t', op: 'change', old: ['a', ['b']], new: ['a'], source: 'manifest' }]);
  });

  test('a value of another type replaces the old one whole', () => {
    expect(fieldChanges({ t: ['a'] }, { t: { enable: ['a'] } })).toStrictEqual([{ field: 't', pointer: '/t', op: 'change', old: ['a'], new: { enable: ['a'] }, source: 'manifest' }]);
    expect(fieldChanges({ t: { enable: ['a'] } }, { t: 'all' })).toStrictEqual([{ field: 't', pointer: '/t', op: 'change', old: { enable: ['a'] }, new: 'all', source: 'manifest' }]);
    expect(fieldChanges({ t: null }, { t: false })).toStrictEqual([{ field: 't', pointer: '/t', op: 'change', old: null, new: false, source: 'manifest' }]);
    expect(fieldChanges({ t: 1 }, { t: '1' })).toStrictEqual([{ field: 't', pointer: '/t', op: 'change', old: 1, new: '1', source: 'manifest' }]);
  });

  test('depth first, keys in sorted order', () => {
    const before: Json = { z: 1, a: { y: 1, b: 1 }, m: ['x'] };
    const after: Json = { z: 2, a: { y: 2, b: 2 }, m: ['y'] };
    expect(fieldChanges(before, after).map((c) => c.field)).toStrictEqual(['a.b', 'a.y', 'm', 'z']);
  });

  test('a key that is not a plain name is quoted in the field; the pointer escapes ~ and /', () => {
    const changes = fieldChanges({ tools: { 'a.b': 1, 'x/y~z': 1, '9lives': 1, _ok: 1, 'ok-2': 1, '': 1 } }, { tools: { 'a.b': 2, 'x/y~z': 2, '9lives': 2, _ok: 2, 'ok-2': 2, '': 2 } });
    expect(changes.map((c) => [c.field, c.pointer])).toStrictEqual([
      ['tools.""', '/tools/'],
      ['tools."9lives"', '/tools/9lives'],
      ['tools._ok', '/tools/_ok'],
      ['tools."a.b"', '/tools/a.b'],
      ['tools.ok-2', '/tools/ok-2'],
      ['tools."x/y~z"', '/tools/x~1y~0z'],
    ]);
    expect(fieldChanges({ 'a b': 1 }, { 'a b': 2 }).map((c) => c.field)).toStrictEqual(['"a b"']);
    expect(fieldChanges({ 'ab!': 1 }, { 'ab!': 2 }).map((c) => c.field)).toStrictEqual(['"ab!"']);
  });

  test('pointerOf maps every body pointer to the manifest pointer shown, for adds, removes and changes', () => {
    const seen: string[] = [];
    const pointerOf = (p: string): string => {
      seen.push(p);
      return `/m${p}`;
    };
    const changes = fieldChanges({ a: 1, b: { c: 1 }, d: ['x'] }, { a: 2, d: ['y'], e: true }, pointerOf);
    expect(changes.map((c) => [c.field, c.op, c.pointer])).toStrictEqual([
      ['a', 'change', '/m/a'],
      ['b', 'remove', '/m'],
      ['d', 'change', '/m/d'],
      ['e', 'add', '/m/e'],
    ]);
    expect(seen).toStrictEqual(['/a', '', '/d', '/e']);
  });
});

describe('describeChange: what a plan line shows after the field', () => {
  const base = { field: 'f', pointer: '/f', source: 'manifest' } as const;
  test.each<[string, FieldChange, string]>([
    ['a set', { ...base, op: 'change', old: ['slack'], new: ['notion'], members: { added: ['notion', 'jira'], removed: ['slack'] } }, '+ notion  + jira  - slack'],
    ['a set of other scalars', { ...base, op: 'change', members: { added: [1, true], removed: [null, 'a b'] } }, '+ 1  + true  - null  - a b'],
    ['a set of drifted objects', { ...base, op: 'change', members: { added: [{ a: 1 }], removed: [['x']] } }, '+ {"a":1}  - ["x"]'],
    ['an empty set change', { ...base, op: 'change', members: { added: [], removed: [] } }, ''],
    ['a value', { ...base, op: 'change', old: false, new: true }, 'false -> true'],
    ['a string value', { ...base, op: 'change', old: 'a', new: 'b' }, '"a" -> "b"'],
    ['an added field', { ...base, op: 'add', new: { enable: ['x'] } }, '{"enable":["x"]}'],
    ['a removed field', { ...base, op: 'remove', old: ['readOnlyHint'] }, '["readOnlyHint"] (removed)'],
    ['a change to null', { ...base, op: 'change', old: 'x', new: null }, '"x" -> null'],
    ['two sensitive values, both masked', { ...base, op: 'change', old: '(sensitive: A) and (sensitive: B)', new: '(sensitive: A) and (sensitive: B)' }, 'changed (sensitive: A) (sensitive: B)'],
    ['the same value shown twice (hidden behind a mask of another kind)', { ...base, op: 'change', old: '****', new: '****' }, 'changed (a value hidden)'],
  ])('%s', (_what, change, shown) => {
    expect(describeChange(change)).toBe(shown);
  });
});

describe('locateChanges: each change at its place in the manifest', () => {
  const d = doc(`
    name: a
    user_id: bot
    toolkits:
      enable: [gmail, slack]
    workbench:
      enable: false
    `);
  const at = (pointer: string): FieldChange => ({ field: 'x', pointer, op: 'change', source: 'manifest' });

  test('a declared key: the key itself', () => {
    const [c] = locateChanges(d, [at('/toolkits/enable')]);
    expect(c!.range).toStrictEqual(d.locate('/toolkits/enable', { key: true }));
    expect(c!.range!.start).toStrictEqual({ line: 4, col: 3 });
    expect(c!.range!.end).toStrictEqual({ line: 4, col: 9 });
  });

  test('a list member: the member (it has no key)', () => {
    const [c] = locateChanges(d, [at('/toolkits/enable/1')]);
    expect([c!.range!.start, c!.range!.end]).toStrictEqual([
      { line: 4, col: 19 },
      { line: 4, col: 24 },
    ]);
  });

  test('a key with digits in its name is still a key; the document is the whole document', () => {
    const [key, whole] = locateChanges(d, [at('/workbench/enable'), at('')]);
    expect(key!.range!.start).toStrictEqual({ line: 6, col: 3 });
    expect(whole!.range).toStrictEqual(d.locate(''));
    expect(whole!.range!.start).toStrictEqual({ line: 1, col: 1 });
  });

  test('a key made of digits is a key too (a list index is not): the key itself', () => {
    const digits = doc(`
      name: a
      user_id: bot
      tools:
        "42":
          enable: [X_Y]
      `);
    const [c] = locateChanges(digits, [at('/tools/42')]);
    expect([c!.range!.start, c!.range!.end]).toStrictEqual([
      { line: 4, col: 3 },
      { line: 4, col: 7 },
    ]);
  });

  test('everything else of the change is kept, and the input is not changed', () => {
    const input = [{ ...at('/workbench'), old: 1, new: 2 }];
    const [c] = locateChanges(d, input);
    expect(c).toStrictEqual({ field: 'x', pointer: '/workbench', op: 'change', source: 'manifest', old: 1, new: 2, range: d.locate('/workbench', { key: true }) });
    expect(input[0]).not.toHaveProperty('range');
  });
});
