import { describe, expect, it } from 'vitest';
import { MIN_TEXT_MASK, ValueMasker } from '../../src/util/sensitive.js';
import { fc, runs } from './fast-check.js';

/*
 * Any value of at least MIN_TEXT_MASK characters, written into free text by any of the encoders a
 * service, a proxy or a log may use, is gone from the text once masked: none of its spellings is
 * left, and the mask is there. Values are drawn dense in what the encoders treat differently:
 * spaces, reserved and unreserved punctuation, quotes, backslashes, slashes, non-ASCII letters and
 * characters outside the BMP.
 */

const CHARS = ['a', 'Z', '0', '9', ' ', '/', '?', '&', '=', '+', '%', '!', "'", '(', ')', '*', '~', '-', '_', '.', ':', '@', '"', '\\', '#', 'é', 'ß', '€', '日', '😀', '\n'];

/** What each encoder makes of a value (as the text that ends up in a message or a log). */
const encoders: Array<[string, (v: string) => string]> = [
  ['as it is', (v) => v],
  ['JSON', (v) => JSON.stringify(v).slice(1, -1)],
  ['JSON, slashes escaped', (v) => JSON.stringify(v).slice(1, -1).replaceAll('/', '\\/')],
  ['JSON, ASCII only', (v) => JSON.stringify(v).slice(1, -1).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)],
  ['encodeURIComponent', encodeURIComponent],
  ['encodeURI', encodeURI],
  ['form', (v) => new URLSearchParams({ k: v }).toString().slice(2)],
  ['percent, lower-case hex', (v) => encodeURIComponent(v).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())],
  ['RFC 3986 strictly', (v) => encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)],
];

const value = fc.array(fc.constantFrom(...CHARS), { minLength: MIN_TEXT_MASK, maxLength: 24 }).map((parts) => parts.join(''));

describe('the masker on any value, in any encoding', () => {
  it.each(encoders)('%s: the value is masked and no spelling of it is left', (_name, encode) => {
    fc.assert(
      fc.property(value, (secret) => {
        const masker = new ValueMasker();
        masker.add(secret, 'TOKEN');
        const spelt = encode(secret);
        const masked = masker.text(`before ${spelt} after`);
        expect(masked).toContain('(sensitive: TOKEN)');
        expect(masked).not.toContain(spelt);
      }),
      runs(),
    );
  });
});
