import { describe, expect, it } from 'vitest';
import { keyScrubber } from '../../../src/client/api-key.js';
import { ValueMasker } from '../../../src/util/sensitive.js';

/*
 * Issue 29, item 9: the API key and each sensitive value are masked when a service echoes them
 * base64- or hex-encoded or in another letter case, wherever they sit in the echoed data; short
 * values are not masked in these forms (they would hit ordinary text), as in free text.
 */
const KEY = 'ak_live_9f8e7d6c5b4a3928';
const KEY_MARK = '(sensitive: COMPOSIO_API_KEY)';
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const b64url = (s: string): string => Buffer.from(s).toString('base64url');
const hex = (s: string): string => Buffer.from(s).toString('hex');

describe('the API key in encoded forms and other cases', () => {
  const scrub = keyScrubber(KEY);
  it.each([
    ['base64 of the key alone', b64(KEY)],
    ['base64 of a Basic credential (the key at byte 0)', b64(`${KEY}:`)],
    ['base64 of `user:KEY` (the key at byte 5)', b64(`user:${KEY}`)],
    ['base64 of a JSON echo (the key at byte 8)', b64(`{"key":"${KEY}","n":1}`)],
    ['base64url of a JSON echo', b64url(`{"api_key":"${KEY}"}`)],
    ['hex', hex(KEY)],
    ['upper-case hex inside a dump', `0x${hex(`x=${KEY};`).toUpperCase()}`],
    ['upper case', KEY.toUpperCase()],
    ['mixed case', 'Ak_LiVe_9F8E7D6C5B4A3928'],
  ])('%s', (_name, echoed) => {
    const out = scrub(`the service said: ${echoed} (end)`);
    expect(out).toContain(KEY_MARK);
    // No more than a couple of edge characters of the encoded key remain.
    const inner = echoed.length > 12 ? echoed.slice(4, -4) : echoed;
    expect(out).not.toContain(inner);
  });
});

describe('sensitive values in encoded forms and other cases', () => {
  const masker = new ValueMasker();
  masker.add('hook-secret-Value-42', 'HOOK_TOKEN');
  masker.add('abc', 'SHORT');
  masker.add('xyz123', 'SIX');

  it.each([
    ['base64', b64('hook-secret-Value-42')],
    ['base64 of a URL holding it', b64('https://h.example/cb?t=hook-secret-Value-42&x=1')],
    ['base64url', b64url('>>hook-secret-Value-42<<')],
    ['hex', hex('hook-secret-Value-42')],
    ['lower case', 'hook-secret-value-42'],
    ['upper case', 'HOOK-SECRET-VALUE-42'],
  ])('%s', (_name, echoed) => {
    const out = masker.text(`got ${echoed}.`);
    expect(out).toContain('(sensitive: HOOK_TOKEN)');
    expect(out).not.toContain(echoed.length > 12 ? echoed.slice(4, -4) : echoed);
  });

  it('a six-character value: its own case and hex are masked, its base64 too', () => {
    expect(masker.text(`a XYZ123 b`)).toBe('a (sensitive: SIX) b');
    expect(masker.text(`a ${hex('xyz123')} b`)).toBe('a (sensitive: SIX) b');
    expect(masker.text(`a ${b64('xyz123')} b`)).toBe('a (sensitive: SIX) b');
  });

  it('a value under the free-text minimum is not masked in any of these forms (no over-masking)', () => {
    for (const form of ['ABC', 'Abc', hex('abc'), b64('abc'), b64('abcabc')]) expect(masker.text(`word ${form} word`)).toBe(`word ${form} word`);
  });

  it('ordinary base64 and hex around a value are left as they are', () => {
    const other = b64('nothing secret here at all');
    expect(masker.text(other)).toBe(other);
    expect(masker.text(hex('nothing secret'))).toBe(hex('nothing secret'));
  });
});
