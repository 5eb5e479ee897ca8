import { describe, expect, test } from 'vitest';
import { sensitiveDigest, sensitiveMark, storedForm, storedLabels, ValueMasker } from '../../../src/util/sensitive.js';

describe('marks and stored forms', () => {
  test('a mark names its variables, sorted, once each', () => {
    expect(sensitiveMark(['HOOK_TOKEN'])).toBe('(sensitive: HOOK_TOKEN)');
    expect(sensitiveMark(['B_KEY', 'A_TOKEN', 'B_KEY'])).toBe('(sensitive: A_TOKEN, B_KEY)');
  });

  test('a stored form is the mark and a digest that changes with the value and never holds it', () => {
    const stored = storedForm('s3cret-value', ['HOOK_TOKEN']);
    expect(stored).toMatch(/^\(sensitive: HOOK_TOKEN\) sha256:[0-9a-f]{64}$/);
    expect(stored).not.toContain('s3cret');
    expect(storedForm('s3cret-value', ['HOOK_TOKEN'])).toBe(stored);
    expect(storedForm('s3cret-valuf', ['HOOK_TOKEN'])).not.toBe(stored);
    expect(sensitiveDigest('x')).not.toBe(sensitiveDigest('y'));
    expect(storedLabels(stored)).toEqual(['HOOK_TOKEN']);
    expect(storedLabels(storedForm('v', ['A', 'B']))).toEqual(['A', 'B']);
    expect(storedLabels('(sensitive: HOOK_TOKEN)')).toBeUndefined();
    expect(storedLabels(42)).toBeUndefined();
  });
});

describe('ValueMasker', () => {
  const SECRET = 'sk_"quoted"\\path_Zq8Kx3Wm9Pt5';
  const masker = (): ValueMasker => {
    const m = new ValueMasker();
    m.add(SECRET, 'HOOK_TOKEN');
    m.add(`https://hooks.example.com/cb?token=${SECRET}`, 'HOOK_TOKEN');
    return m;
  };

  test.each([
    ['as it is', `x ${SECRET} y`, 'x (sensitive: HOOK_TOKEN) y'],
    ['JSON-escaped', `x ${JSON.stringify(SECRET)} y`, 'x "(sensitive: HOOK_TOKEN)" y'],
    ['percent-encoded', `?k=${encodeURIComponent(SECRET)}&y`, '?k=(sensitive: HOOK_TOKEN)&y'],
    ['inside the whole scalar, masked as the scalar', `url https://hooks.example.com/cb?token=${SECRET} end`, 'url (sensitive: HOOK_TOKEN) end'],
    ['cut before an ellipsis', `got \`https://hooks.example.com/cb?tok…\``, 'got `(sensitive: HOOK_TOKEN)…`'],
    ['cut before three dots', `got ${SECRET.slice(0, 12)}... (40 characters)`, 'got (sensitive: HOOK_TOKEN)... (40 characters)'],
    ['a stored form, whose digest goes', `was ${storedForm(SECRET, ['HOOK_TOKEN'])}.`, 'was (sensitive: HOOK_TOKEN).'],
  ])('in text, a value %s', (_name, text, masked) => {
    expect(masker().text(text)).toBe(masked);
  });

  test('a short start before an ellipsis is left (it could be any word)', () => {
    expect(masker().text('see sk_"q… and more')).toBe('see sk_"q… and more');
  });

  test('values too short for free text are masked in data, where a whole string equals one', () => {
    const m = new ValueMasker();
    m.add('u1', 'USER_TOKEN');
    expect(m.text('u1 and u12')).toBe('u1 and u12');
    expect(m.json({ user_id: 'u1', other: 'u12', list: ['u1'] })).toEqual({ user_id: '(sensitive: USER_TOKEN)', other: 'u12', list: ['(sensitive: USER_TOKEN)'] });
  });

  test('json copies plain data and keeps other objects as they are', () => {
    const origins = new Map([['/a', SECRET]]);
    const data = { a: [SECRET, 1, null, true], nested: { origins } };
    const out = masker().json(data);
    expect(out).toEqual({ a: ['(sensitive: HOOK_TOKEN)', 1, null, true], nested: { origins } });
    expect(out.nested.origins).toBe(origins);
    expect(data.a[0]).toBe(SECRET);
  });

  test('a value under several labels names them all; onAdd hears of each value once', () => {
    const heard: string[] = [];
    const m = new ValueMasker({ onAdd: (v, l) => heard.push(`${l}=${v}`) });
    m.add('shared-value-1', 'A_TOKEN');
    m.add('shared-value-1', 'B_SECRET');
    m.add('shared-value-1', 'A_TOKEN');
    m.add('', 'EMPTY_TOKEN');
    expect(m.text('is shared-value-1')).toBe('is (sensitive: A_TOKEN, B_SECRET)');
    expect(heard).toEqual(['A_TOKEN=shared-value-1']);
    expect(m.entries()).toEqual([{ value: 'shared-value-1', labels: ['A_TOKEN', 'B_SECRET'] }]);
  });

  test('filter keeps the values of some labels, as they are named there', () => {
    const m = masker();
    m.add('ak_the_api_key_000000', 'COMPOSIO_API_KEY');
    const key = m.filter((l) => l === 'COMPOSIO_API_KEY');
    expect(key.text(`${SECRET} ak_the_api_key_000000`)).toBe(`${SECRET} (sensitive: COMPOSIO_API_KEY)`);
  });

  test('minText 1 masks a value of any length in text (the API key)', () => {
    const m = new ValueMasker({ minText: 1 });
    m.add('k', 'COMPOSIO_API_KEY');
    expect(m.text('a k b')).toBe('a (sensitive: COMPOSIO_API_KEY) b');
  });
});
