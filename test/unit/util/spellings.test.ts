import { describe, expect, test } from 'vitest';
import { anyCase, asciiLower, MIN_TEXT_MASK, spellings } from '../../../src/util/spellings.js';

/** The spellings a masker searches for, one value at a time, and the case-blind replacement. */

describe('spellings', () => {
  test('a short value: itself, JSON- and percent-escaped, never encoded as bytes (it would blank out ordinary text)', () => {
    expect(MIN_TEXT_MASK).toBe(6);
    expect(spellings('a/é b')).toStrictEqual([
      'a/é b',
      'a/\\u00e9 b',
      'a/\\u00E9 b',
      'a\\/é b',
      'a\\/\\u00e9 b',
      'a\\/\\u00E9 b',
      'a%2F%C3%A9%20b',
      'a/%C3%A9%20b',
      'a%2F%C3%A9+b',
      'a%2f%c3%a9%20b',
      'a/%c3%a9%20b',
      'a%2f%c3%a9+b',
    ]);
  });

  test('RFC 3986 escapes !\'()* too; a value of 6 characters and more gets its hex and base64 spellings at each alignment', () => {
    const s = spellings("k!'()*");
    expect(s).toContain("k%21%27%28%29%2A");
    expect(s).toContain("k%21%27%28%29%2a");
    expect(s).toContain('6b21272829 2a'.replace(' ', ''));
    expect(s).toContain('6B212728292A');
    const long = spellings('secret-token-42>?');
    const bytes = Buffer.from('secret-token-42>?');
    for (const [shift, skip] of [[0, 0], [1, 2], [2, 3]] as const) {
      const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
      const core = padded.toString('base64').slice(skip, Math.floor(padded.length / 3) * 4);
      expect(long).toContain(core);
      expect(long).toContain(core.replaceAll('+', '-').replaceAll('/', '_'));
    }
    // Six bytes: 8 base64 characters of their own at the first alignment; 6 and 5 at the others,
    // too few (they would hit ordinary data), so those are not searched.
    expect(spellings('abcdef').filter((x) => /^[A-Za-z0-9+/_-]{5,}$/.test(x) && !/^[0-9a-fA-F]+$/.test(x))).toStrictEqual(['YWJjZGVm']);
  });

  test('a lone surrogate: no percent or form spelling can be made, the value itself stands in', () => {
    const s = spellings('ab\ud800cd');
    expect(s.slice(0, 2)).toStrictEqual(['ab\ud800cd', 'ab\\ud800cd']);
    expect(s).not.toContain('');
  });
});

describe('anyCase', () => {
  test('every occurrence, in any mix of case, replaced; the text around it kept as it was', () => {
    expect(asciiLower('AbC-É-xY')).toBe('abc-É-xy');
    expect(anyCase('TOKEN=Secret; token=sECRET; end', 'secret', '***')).toBe('TOKEN=***; token=***; end');
    expect(anyCase('Secret at the start and the end: SECRET', 'secret', '[Secret]')).toBe('[Secret] at the start and the end: [Secret]');
    expect(anyCase('nothing here', 'secret', '***')).toBe('nothing here');
    // A mark that holds the value again is not searched inside: no endless replacement.
    expect(anyCase('xSECRETx', 'secret', 'secret!')).toBe('xsecret!x');
    expect(anyCase('aaaa', 'aa', 'b')).toBe('bb');
  });
});
