import { describe, expect, test } from 'vitest';
import { expectedConfig, type ExpectedConfig, type Origin } from '../../../src/config/expected.js';
import { maskConfig, recordedUserId, recoveredTemplate, revealStored, sensitiveAt, storedBody, storedSensitiveAt } from '../../../src/config/sensitive-fields.js';
import type { ManifestData } from '../../../src/config/types.js';
import type { SensitiveScalar } from '../../../src/manifest/sensitive.js';
import { storedForm, ValueMasker } from '../../../src/util/sensitive.js';

// The sensitive fields of a body and a config, exact values: what the state keeps (stored forms),
// what --show-sensitive reveals, and what `get` shows of a session's config.

const HOOK = 'https://h.example/cb?t=Zq8Kx3Wm9Pt5';
const USER = 'user-secret-42';
const scalar = (value: string, ...variables: string[]): SensitiveScalar => ({ value, variables, parts: [] });
const doc = (entries: Array<[string, SensitiveScalar]>) => ({ sensitive: new Map(entries) });

describe('storedBody and revealStored', () => {
  const d = doc([
    ['/manage_connections/callback_url', scalar(HOOK, 'HOOK_TOKEN')],
    ['/user_id', scalar(USER, 'USER_TOKEN', 'A_TOKEN')],
  ]);

  test('every string equal to a sensitive value, at any depth, becomes its stored form', () => {
    const body = { user_id: USER, manage_connections: { callback_url: HOOK, enable: true }, list: [HOOK, 'plain', 3, null], other: `x ${HOOK}` };
    expect(storedBody(body, d)).toEqual({
      user_id: storedForm(USER, ['A_TOKEN', 'USER_TOKEN']),
      manage_connections: { callback_url: storedForm(HOOK, ['HOOK_TOKEN']), enable: true },
      list: [storedForm(HOOK, ['HOOK_TOKEN']), 'plain', 3, null],
      other: `x ${HOOK}`,
    });
    expect(storedForm(USER, ['A_TOKEN', 'USER_TOKEN'])).toMatch(/^\(sensitive: A_TOKEN, USER_TOKEN\) sha256:[0-9a-f]{64}$/);
  });

  test('without sensitive values the body is returned as it is; a whole string body is stored too', () => {
    const body = { user_id: USER };
    expect(storedBody(body, {})).toBe(body);
    expect(storedBody(USER, d)).toBe(storedForm(USER, ['A_TOKEN', 'USER_TOKEN']));
    expect(storedBody([[USER], true], d)).toEqual([[storedForm(USER, ['A_TOKEN', 'USER_TOKEN'])], true]);
  });

  test('revealStored puts the values back, at any depth, and nothing else', () => {
    const stored = storedBody({ user_id: USER, nested: { list: [HOOK, 'plain'] }, n: 1 }, d);
    expect(revealStored(stored, [{}, d])).toEqual({ user_id: USER, nested: { list: [HOOK, 'plain'] }, n: 1 });
    const foreign = storedForm('another-value', ['HOOK_TOKEN']);
    expect(revealStored({ a: foreign }, [d])).toEqual({ a: foreign });
    expect(revealStored(storedForm(HOOK, ['HOOK_TOKEN']), [d])).toBe(HOOK);
    expect(revealStored([[storedForm(HOOK, ['HOOK_TOKEN'])], false], [d])).toEqual([[HOOK], false]);
  });

  test('revealStored without any sensitive value returns its input itself', () => {
    const value = { a: storedForm(USER, ['USER_TOKEN']) };
    expect(revealStored(value, [{}, doc([])])).toBe(value);
  });
});

describe('sensitiveAt, recordedUserId, storedSensitiveAt', () => {
  test('sensitiveAt gives the variables at a manifest pointer', () => {
    const at = sensitiveAt(doc([['/user_id', scalar(USER, 'USER_TOKEN')]]));
    expect(at('/user_id')).toEqual(['USER_TOKEN']);
    expect(at('/name')).toBeUndefined();
    expect(sensitiveAt({})('/user_id')).toBeUndefined();
  });

  test('recordedUserId: as declared, or the stored form of a sensitive one', () => {
    expect(recordedUserId({ data: { name: 'a', user_id: 'alice' } })).toBe('alice');
    expect(recordedUserId({ data: { name: 'a', user_id: 42 }, sensitive: new Map() })).toBe('42');
    expect(recordedUserId({ data: { name: 'a', user_id: USER }, sensitive: new Map([['/user_id', scalar(USER, 'USER_TOKEN')]]) })).toBe(storedForm(USER, ['USER_TOKEN']));
  });

  test('storedSensitiveAt finds stored forms by body pointer, in lists and escaped keys', () => {
    const body = {
      user_id: storedForm(USER, ['USER_TOKEN']),
      'a/b~c': { list: ['plain', storedForm(HOOK, ['HOOK_TOKEN', 'B_KEY'])] },
      plain: 'x',
      n: null,
    };
    const at = storedSensitiveAt(body);
    expect(at('/user_id')).toEqual(['USER_TOKEN']);
    expect(at('/a~1b~0c/list/1')).toEqual(['B_KEY', 'HOOK_TOKEN']);
    expect(at('/a~1b~0c/list/0')).toBeUndefined();
    expect(at('/plain')).toBeUndefined();
    expect(at('')).toBeUndefined();
    expect(storedSensitiveAt(storedForm(USER, ['U']))('')).toEqual(['U']);
  });
});

describe('maskConfig', () => {
  const manifest = { name: 'a', user_id: USER, manage_connections: { callback_url: HOOK } } as unknown as ManifestData;
  const at = (pointer: string): readonly string[] | undefined =>
    ({ '/user_id': ['USER_TOKEN'], '/manage_connections/callback_url': ['HOOK_TOKEN'], '/manage_connections': undefined })[pointer];

  test('a declared sensitive field is masked whole, whatever the service holds; the rest through the masker', () => {
    const masker = new ValueMasker();
    masker.add('Zq8Kx3Wm9Pt5', 'HOOK_TOKEN');
    const config = { user_id: 'someone-else', manage_connections: { enabled: true, callback_url: 'https://other.example/' }, note: 'tok Zq8Kx3Wm9Pt5' };
    expect(maskConfig(expectedConfig(manifest), config, at, masker)).toEqual({
      user_id: '(sensitive: USER_TOKEN)',
      manage_connections: { enabled: true, callback_url: '(sensitive: HOOK_TOKEN)' },
      note: 'tok (sensitive: HOOK_TOKEN)',
    });
    expect(config.user_id).toBe('someone-else');
  });

  test('a changed field says so after its mask; a field the service does not hold stays absent', () => {
    const out = maskConfig(expectedConfig(manifest), { user_id: USER, manage_connections: { enabled: true } }, at, new ValueMasker(), new Set(['/user_id']));
    expect(out).toEqual({ user_id: '(sensitive: USER_TOKEN) (changed)', manage_connections: { enabled: true } });
    expect(maskConfig(expectedConfig(manifest), { user_id: USER }, at, new ValueMasker())).toEqual({ user_id: '(sensitive: USER_TOKEN)' });
    expect(maskConfig(expectedConfig(manifest), { user_id: USER, manage_connections: 'off' }, at, new ValueMasker())).toEqual({ user_id: '(sensitive: USER_TOKEN)', manage_connections: 'off' });
  });

  test('only declared origins with labels are masked: a default or a field without labels is kept', () => {
    const origins = new Map<string, Origin>([
      ['/user_id', { declared: false, pointer: '/user_id' }],
      ['/name', { declared: true, pointer: '/name' }],
    ]);
    const expected: ExpectedConfig = { config: {}, toolRouterTools: [], origins, metaTools: [] };
    const atAll = (): readonly string[] => ['X_TOKEN'];
    expect(maskConfig(expected, { user_id: USER, name: 'n' }, (p) => (p === '/name' ? undefined : atAll()), new ValueMasker())).toEqual({ user_id: USER, name: 'n' });
  });

  test('through lists, by index, and never past their end', () => {
    const origins = new Map<string, Origin>([
      ['/list/1/token', { declared: true, pointer: '/m/token' }],
      ['/list/5', { declared: true, pointer: '/m/token' }],
      ['/list/x', { declared: true, pointer: '/m/token' }],
    ]);
    const expected: ExpectedConfig = { config: {}, toolRouterTools: [], origins, metaTools: [] };
    const out = maskConfig(expected, { list: [{ token: 'a' }, { token: 'b' }, { token: 'c' }] }, () => ['T'], new ValueMasker());
    expect(out).toEqual({ list: [{ token: 'a' }, { token: '(sensitive: T)' }, { token: 'c' }] });
    expect(maskConfig(expected, { list: 'not a list' }, () => ['T'], new ValueMasker())).toEqual({ list: 'not a list' });
    const long = Array.from({ length: 12 }, (_, i) => `v${i}`);
    const byIndex: ExpectedConfig = { config: {}, toolRouterTools: [], metaTools: [], origins: new Map([['/list/11', { declared: true, pointer: '/m' }], ['/list/1 ', { declared: true, pointer: '/m' }], ['/list/ 2', { declared: true, pointer: '/m' }]]) };
    expect(maskConfig(byIndex, { list: long }, () => ['T'], new ValueMasker())).toEqual({ list: [...long.slice(0, 11), '(sensitive: T)'] });
  });

  test('a field the service holds as undefined is left undefined', () => {
    const out = maskConfig(expectedConfig(manifest), { user_id: undefined }, at, new ValueMasker()) as Record<string, unknown>;
    expect(Object.entries(out)).toEqual([['user_id', undefined]]);
  });
});

describe('recoveredTemplate', () => {
  const stored = storedForm(HOOK, ['HOOK_TOKEN']);
  test.each([
    ['the applied value, its variable set to the same', HOOK, { HOOK_TOKEN: 'Zq8Kx3Wm9Pt5' }, 'https://h.example/cb?t=(sensitive: HOOK_TOKEN)'],
    ['another value at the service', 'https://h.example/cb?t=other', { HOOK_TOKEN: 'other' }, undefined],
    ['the variable unset', HOOK, {}, undefined],
    ['the variable set to a value the field does not hold', HOOK, { HOOK_TOKEN: 'rotated-value' }, undefined],
    ['the variable set to the whole value (nothing literal is left)', HOOK, { HOOK_TOKEN: HOOK }, '(sensitive: HOOK_TOKEN)'],
  ])('%s', (_name, held, values, expected) => {
    expect(recoveredTemplate(stored, held, values)).toBe(expected);
  });

  test('a field that is not a stored form, or two variables: longest value first', () => {
    expect(recoveredTemplate('plain', 'plain', { HOOK_TOKEN: 'plain' })).toBeUndefined();
    const two = 'https://h.example/a-long-token/b';
    expect(recoveredTemplate(storedForm(two, ['A_TOKEN', 'B_TOKEN']), two, { A_TOKEN: 'a-long-token', B_TOKEN: 'long' })).toBe('https://h.example/(sensitive: A_TOKEN)/b');
  });
});
