import { describe, expect, test } from 'vitest';
import { MIN_TEXT_MASK, sensitiveDigest, storedForm, storedLabels, ValueMasker } from '../../../src/util/sensitive.js';

// The exact answers of the masker, one behaviour each: a mask that shows one character too many,
// or a value left in one spelling, is a leaked secret.

const DIGEST = 'sha256:617fbb42ceb90759e604f74ec4f59b4738cb15886015c19e4c57732ee297efbf';

describe('digests and stored forms, exactly', () => {
  test('the digest is SHA-256 of a fixed prefix and the value', () => {
    expect(sensitiveDigest('s3cret-value')).toBe(DIGEST);
    expect(storedForm('s3cret-value', ['B_TOKEN', 'A_TOKEN'])).toBe(`(sensitive: A_TOKEN, B_TOKEN) ${DIGEST}`);
  });

  test('storedLabels reads a whole stored form only', () => {
    const stored = `(sensitive: HOOK_TOKEN_2, A_KEY) ${DIGEST}`;
    expect(storedLabels(stored)).toEqual(['HOOK_TOKEN_2', 'A_KEY']);
    expect(storedLabels(`(sensitive: ) ${DIGEST}`)).toEqual([]);
    expect(storedLabels(`x ${stored}`)).toBeUndefined();
    expect(storedLabels(`${stored} x`)).toBeUndefined();
    expect(storedLabels(`${stored}0`)).toBeUndefined();
    expect(storedLabels(`(sensitive: HOOK_TOKEN) ${DIGEST.slice(0, -1)}`)).toBeUndefined();
    expect(storedLabels(`(sensitive: HOOK-TOKEN) ${DIGEST}`)).toBeUndefined();
    expect(storedLabels(`(sensitive: HOOK_TOKEN) ${DIGEST.toUpperCase().replace('SHA256', 'sha256')}`)).toBeUndefined();
    expect(storedLabels(undefined)).toBeUndefined();
    // A list whose one member is a stored form is not one itself (its String() would be).
    expect(storedLabels([stored])).toBeUndefined();
  });

  test('in text a stored form loses its digest, and only a whole one', () => {
    const m = new ValueMasker();
    expect(m.text(`a (sensitive: HOOK_TOKEN_2, A_KEY) ${DIGEST} b (sensitive: B) ${DIGEST}`)).toBe('a (sensitive: HOOK_TOKEN_2, A_KEY) b (sensitive: B)');
    expect(m.text(`a (sensitive: ) ${DIGEST} b`)).toBe('a (sensitive: ) b');
    const short = `(sensitive: HOOK_TOKEN) ${DIGEST.slice(0, -1)}`;
    expect(m.text(short)).toBe(short);
    const foreign = `(sensitive: HOOK-TOKEN) ${DIGEST}`;
    expect(m.text(foreign)).toBe(foreign);
    expect(m.text(`sha256:${DIGEST.slice(7)}`)).toBe(`sha256:${DIGEST.slice(7)}`);
  });

  test('json strips digests even with no value registered, and returns data without any as it is', () => {
    const m = new ValueMasker();
    const stored = `(sensitive: HOOK_TOKEN) ${DIGEST}`;
    expect(m.json({ a: [1, { b: stored }], c: null })).toEqual({ a: [1, { b: '(sensitive: HOOK_TOKEN)' }], c: null });
    expect(m.json([stored])).toEqual(['(sensitive: HOOK_TOKEN)']);
    expect(m.json(stored)).toBe('(sensitive: HOOK_TOKEN)');
    const plain = { a: ['x', { b: 'y' }], c: null, n: 1 };
    expect(m.json(plain)).toBe(plain);
    const held = new Map([['k', stored]]);
    const withMap = { held };
    expect(m.json(withMap)).toBe(withMap);
    const withUndefined = { a: undefined, b: 'x' };
    expect(m.json(withUndefined)).toBe(withUndefined);
    const withInstance = { inst: new (class { s = stored })() };
    expect(m.json(withInstance)).toBe(withInstance);
  });
});

describe('ValueMasker, exactly', () => {
  test('a value of MIN_TEXT_MASK characters is masked in text, one shorter is not', () => {
    expect(MIN_TEXT_MASK).toBe(6);
    const m = new ValueMasker();
    m.add('abc123', 'SIX');
    m.add('xyz12', 'FIVE');
    expect(m.text('[abc123] [xyz12]')).toBe('[(sensitive: SIX)] [xyz12]');
    expect(m.json(['xyz12', 'abc123'])).toEqual(['(sensitive: FIVE)', '(sensitive: SIX)']);
  });

  test('minText sets the shortest value masked in text, and filter keeps it', () => {
    const m = new ValueMasker({ minText: 3 });
    m.add('abc', 'THREE');
    m.add('ab', 'TWO');
    m.add('other-value', 'OTHER');
    expect(m.text('abc ab')).toBe('(sensitive: THREE) ab');
    expect(m.filter((l) => l !== 'OTHER').text('abc ab other-value')).toBe('(sensitive: THREE) ab other-value');
  });

  test('a value of exactly four characters at the very end of a text', () => {
    const m = new ValueMasker({ minText: 1 });
    m.add('abcd', 'K');
    expect(m.text('x abcd')).toBe('x (sensitive: K)');
    expect(m.text('abcd')).toBe('(sensitive: K)');
  });

  test('a value with one spelling shorter than four characters is searched everywhere', () => {
    const m = new ValueMasker({ minText: 1 });
    m.add('k"', 'K');
    expect(m.text('say k" now')).toBe('say (sensitive: K) now');
    expect(m.text('say k" now, "k\\"" and k%22')).toBe('say (sensitive: K) now, "(sensitive: K)" and (sensitive: K)');
  });

  test('longest first, whatever comes first in the text', () => {
    const m = new ValueMasker();
    m.add('Zq8Kx3Wm9Pt5', 'TOKEN');
    m.add('https://h.example/cb?token=Zq8Kx3Wm9Pt5', 'URL');
    expect(m.text('Zq8Kx3Wm9Pt5 then https://h.example/cb?token=Zq8Kx3Wm9Pt5')).toBe('(sensitive: TOKEN) then (sensitive: URL)');
  });

  test('values of one length that overlap: the first in code-unit order is masked', () => {
    const m = new ValueMasker();
    m.add('cdefghij', 'B');
    m.add('abcdefgh', 'A');
    expect(m.text('abcdefghij')).toBe('(sensitive: A)ij');
    const n = new ValueMasker();
    n.add('abcdefgh', 'A');
    n.add('cdefghij', 'B');
    expect(n.text('abcdefghij')).toBe('(sensitive: A)ij');
  });

  test('values that begin alike are all found', () => {
    const m = new ValueMasker();
    m.add('token-aaaa', 'A');
    m.add('token-bbbb', 'B');
    m.add('token-cccc', 'C');
    expect(m.text('token-aaaa token-bbbb token-cccc')).toBe('(sensitive: A) (sensitive: B) (sensitive: C)');
  });

  test('a value added after a text was masked is masked from then on', () => {
    const m = new ValueMasker();
    m.add('first-value', 'A');
    expect(m.text('first-value second-value')).toBe('(sensitive: A) second-value');
    m.add('second-value', 'B');
    expect(m.text('first-value second-value')).toBe('(sensitive: A) (sensitive: B)');
    m.add('second-value', 'C');
    expect(m.text('second-value')).toBe('(sensitive: B, C)');
  });

  test('percent-encoded both ways: encodeURIComponent and encodeURI', () => {
    const m = new ValueMasker();
    m.add('https://x.example/a b?c=d', 'URL');
    expect(m.text('1 https://x.example/a%20b?c=d 2 https%3A%2F%2Fx.example%2Fa%20b%3Fc%3Dd 3')).toBe('1 (sensitive: URL) 2 (sensitive: URL) 3');
  });

  test.each([
    ['a form field (URLSearchParams: + for a space)', '?a=1&hook=https%3A%2F%2Fx.example%2Fa+b%3Fc%3Dd&b=2'],
    ['lower-case hex', '?hook=https%3a%2f%2fx.example%2fa%20b%3fc%3dd'],
    ['JSON with escaped slashes (PHP)', '{"hook":"https:\\/\\/x.example\\/a b?c=d"}'],
  ])('a URL as %s', (_name, text) => {
    const m = new ValueMasker();
    m.add('https://x.example/a b?c=d', 'URL');
    expect(m.text(text)).not.toMatch(/x\.example/);
    expect(m.text(text)).toContain('(sensitive: URL)');
  });

  test.each([
    ["RFC 3986 strictly (Python's quote)", "k=it%27s%21%20%28ok%29%2A"],
    ["RFC 3986 strictly, lower-case hex", "k=it%27s%21%20%28ok%29%2a"],
    ['a form field', "k=it%27s%21+%28ok%29*"],
    ['percent-encoded, non-ASCII in lower-case hex', "k=caf%c3%a9%20it's!%20(ok)*"],
    ['JSON with non-ASCII escaped (Python)', '"caf\\u00e9 it\'s! (ok)*"'],
    ['JSON with non-ASCII escaped, upper-case hex', '"caf\\u00E9 it\'s! (ok)*"'],
  ])('reserved and non-ASCII characters %s', (_name, text) => {
    const m = new ValueMasker();
    m.add("it's! (ok)*", 'QUOTED');
    m.add("café it's! (ok)*", 'ACCENT');
    expect(m.text(text)).toMatch(/^(k=|")\(sensitive: (QUOTED|ACCENT)\)"?$/);
  });

  test('a lone surrogate: the value and its JSON spelling are masked, nothing else is', () => {
    const value = 'ab\uD800cdefgh';
    const m = new ValueMasker();
    m.add(value, 'LONE');
    expect(m.text(`x ${value} y ${JSON.stringify(value)} undefined z`)).toBe('x (sensitive: LONE) y "(sensitive: LONE)" undefined z');
    expect(m.json({ v: value })).toEqual({ v: '(sensitive: LONE)' });
  });

  test('cuts: eight characters before an ellipsis are masked, seven are not', () => {
    const m = new ValueMasker();
    m.add('abcdefghijkl', 'CUT');
    expect(m.text('x abcdefgh… y')).toBe('x (sensitive: CUT)… y');
    expect(m.text('x abcdefgh... y')).toBe('x (sensitive: CUT)... y');
    expect(m.text('x abcdefg… y')).toBe('x abcdefg… y');
    expect(m.text('x abcdefghijk… y')).toBe('x (sensitive: CUT)… y');
    expect(m.text('abcdefghijk…')).toBe('(sensitive: CUT)…');
  });

  test('cuts: every ellipsis of a text, the first one at its start included', () => {
    const m = new ValueMasker();
    m.add('abcdefghijkl', 'CUT');
    expect(m.text('… abcdefghi… and abcdefghij… and abcdefghijk...')).toBe('… (sensitive: CUT)… and (sensitive: CUT)… and (sensitive: CUT)...');
    expect(m.text('...abcdefghi...abcdefghij…')).toBe('...(sensitive: CUT)...(sensitive: CUT)…');
  });

  test('cuts: a value of nine characters can be cut, one of eight cannot', () => {
    const m = new ValueMasker();
    m.add('abcdefghi', 'NINE');
    m.add('stuvwxyz', 'EIGHT');
    expect(m.text('abcdefgh… stuvwxy… stuvwxyz…')).toBe('(sensitive: NINE)… stuvwxy… (sensitive: EIGHT)…');
  });

  test('cuts: a value with an ellipsis inside is cut at the ellipsis of the text', () => {
    const m = new ValueMasker();
    m.add('abcdefghij...klmnopq', 'DOTS');
    expect(m.text('abcdefghij...klm rest')).toBe('(sensitive: DOTS)...klm rest');
  });

  test('cuts of two values in one text', () => {
    const m = new ValueMasker();
    m.add('abcdefghijkl', 'A');
    m.add('mnopqrstuvwx', 'M');
    expect(m.text('abcdefghij… mnopqrstu…')).toBe('(sensitive: A)… (sensitive: M)…');
  });

  test('markOf, size, entries and addAll', () => {
    const m = new ValueMasker();
    expect(m.size).toBe(0);
    expect(m.markOf('v-one')).toBeUndefined();
    m.addAll([
      { value: 'v-one', labels: ['Z_TOKEN', 'A_TOKEN'] },
      { value: 'v-two', labels: ['B_TOKEN'] },
    ]);
    expect(m.size).toBe(2);
    expect(m.markOf('v-one')).toBe('(sensitive: A_TOKEN, Z_TOKEN)');
    expect(m.markOf('v-on')).toBeUndefined();
    expect(m.entries()).toEqual([
      { value: 'v-one', labels: ['A_TOKEN', 'Z_TOKEN'] },
      { value: 'v-two', labels: ['B_TOKEN'] },
    ]);
  });

  test('onAdd hears each value once, with the first label, before it is masked', () => {
    const heard: string[] = [];
    const m = new ValueMasker({ onAdd: (v, l) => heard.push(`${l}=${v}`) });
    m.add('value-one', 'A');
    m.add('value-one', 'B');
    m.add('value-two', 'B');
    m.addAll([{ value: 'value-one', labels: ['C'] }, { value: 'value-three', labels: ['C', 'D'] }]);
    expect(heard).toEqual(['A=value-one', 'B=value-two', 'C=value-three']);
    expect(m.filter(() => true).text('value-one')).toBe('(sensitive: A, B, C)');
  });

  test('filter names a value by the kept labels only, and hears nothing', () => {
    const heard: string[] = [];
    const m = new ValueMasker({ onAdd: (v) => heard.push(v) });
    m.add('shared-value', 'A_TOKEN');
    m.add('shared-value', 'B_TOKEN');
    m.add('other-value', 'C_TOKEN');
    const kept = m.filter((l) => l !== 'A_TOKEN');
    expect(kept.entries()).toEqual([
      { value: 'shared-value', labels: ['B_TOKEN'] },
      { value: 'other-value', labels: ['C_TOKEN'] },
    ]);
    expect(kept.text('shared-value other-value')).toBe('(sensitive: B_TOKEN) (sensitive: C_TOKEN)');
    expect(heard).toEqual(['shared-value', 'other-value']);
  });

  test('json masks values, never keys, and a value inside a longer string; undefined stays', () => {
    const m = new ValueMasker();
    m.add('secret-one', 'S');
    const out = m.json({ gone: undefined, kept: 'secret-one' });
    expect(Object.entries(out)).toEqual([['gone', undefined], ['kept', '(sensitive: S)']]);
    expect(m.json(undefined)).toBeUndefined();
    expect(m.json([undefined, 5, false])).toEqual([undefined, 5, false]);
    expect(m.json({ 'secret-one': 'a secret-one b', list: [['secret-one']] })).toEqual({ 'secret-one': 'a (sensitive: S) b', list: [['(sensitive: S)']] });
  });
});
