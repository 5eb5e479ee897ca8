/**
 * The spellings of a sensitive value that the masker (sensitive.ts) searches for: as it is,
 * escaped and encoded as services, proxies and messages echo it, and in any letter case.
 */

/** Values shorter than this are masked in data (a whole string equal to one) but not inside free text, where they would blank out ordinary words. */
export const MIN_TEXT_MASK = 6;

/**
 * A value as it is and as the usual encoders spell it; none is empty, as `add` refuses ''. A
 * service or a proxy may echo a value in any of them:
 * - JSON-escaped (without the quotes): as JavaScript writes it, with `/` escaped (PHP's default),
 *   and with every non-ASCII character as `\uXXXX` (Python's default, either case of hex);
 * - percent-encoded: by `encodeURIComponent`, `encodeURI`, RFC 3986 strictly (`!'()*` too, as
 *   Python's `quote` and Go's escapers do) and as a form (`URLSearchParams`: `+` for a space),
 *   each also with lower-case hex (`%2f`), which decoders accept alike.
 */
export function spellings(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const jsons = [json, json.replaceAll('/', '\\/')].flatMap((j) => [j, asciiJson(j, false), asciiJson(j, true)]);
  const component = encoded(encodeURIComponent, value);
  const percents = [component, encoded(encodeURI, value), component.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`), formEncoded(value)];
  const encodings = value.length >= MIN_TEXT_MASK ? binarySpellings(value) : [];
  return [...new Set([value, ...jsons, ...percents, ...percents.map((p) => p.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())), ...encodings])];
}

/** Base64 characters a value's bytes decide alone, at least this many, are masked; fewer would hit ordinary base64. */
const MIN_BASE64 = 8;

/**
 * The value's UTF-8 bytes as a service may echo them encoded: hex (either case), and base64 and
 * base64url wherever the value sits in the encoded data. Base64 packs three bytes in four
 * characters, so the value's characters depend on where its first byte falls among the three:
 * each of the three alignments is searched, without the characters at either edge that share
 * bits with the bytes around it (a few bits of the value's first and last byte stay visible).
 * Values under `MIN_TEXT_MASK` characters get none of these, as in free text.
 */
function binarySpellings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const hex = bytes.toString('hex');
  const out = [hex, hex.toUpperCase()];
  for (const shift of [0, 1, 2]) {
    const padded = Buffer.concat([Buffer.alloc(shift), bytes]);
    const whole = Math.floor(padded.length / 3) * 4;
    // Skip the characters holding the padding's bits: none, 2 (1 byte before), 3 (2 bytes before).
    const core = padded.toString('base64').slice([0, 2, 3][shift], whole);
    if (core.length < MIN_BASE64) continue;
    out.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return out;
}

/** ASCII letters to lower case, nothing else: the length stays, so places in one are places in the other. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** `text` with `folded` masked in any mix of upper and lower case. */
export function anyCase(text: string, folded: string, mark: string): string {
  let lower = asciiLower(text);
  let at = lower.indexOf(folded);
  if (at < 0) return text;
  let out = text;
  const markLower = asciiLower(mark);
  while (at >= 0) {
    out = `${out.slice(0, at)}${mark}${out.slice(at + folded.length)}`;
    lower = `${lower.slice(0, at)}${markLower}${lower.slice(at + folded.length)}`;
    at = lower.indexOf(folded, at + mark.length);
  }
  return out;
}

/** JSON text with each non-ASCII character as a `\uXXXX` escape (hex in upper or lower case). */
function asciiJson(json: string, upper: boolean): string {
  return json.replace(/[\u0080-\uffff]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

/** The value as a form field (`application/x-www-form-urlencoded`), as URLSearchParams writes it. */
function formEncoded(value: string): string {
  // URLSearchParams would write a lone surrogate as U+FFFD: a spelling of another value.
  return /\p{Cs}/u.test(value) ? value : new URLSearchParams([['', value]]).toString().slice(1);
}

function encoded(encode: (s: string) => string, value: string): string {
  try {
    return encode(value);
  } catch {
    // A lone surrogate cannot be encoded; the other spellings still apply.
    return value;
  }
}

