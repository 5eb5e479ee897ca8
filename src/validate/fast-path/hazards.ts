/**
 * What sends a file to the loader before js-yaml reads it: one pass over the bytes. The fast path
 * (js-yaml, no positions) is only taken where js-yaml and the loader (yaml 2 with the project's
 * profile, `src/manifest/parse.ts`) read the same data and the loader has nothing to report. Each
 * entry names a real difference between the two, or something only the loader checks:
 *
 * - `too-large`: over `FAST_MAX_BYTES`. The loader bounds size, tokens (250,000), documents and
 *   depth; a manifest is ~1 KiB, and under 64 KiB no token or document budget can be reached.
 * - `bom`: the loader strips a UTF-8 byte order mark after its encoding checks; rare, not worth
 *   proving the same.
 * - `control`: NUL, DEL and C0 controls are `input/` findings of the loader.
 * - `tab`: YAML forbids tabs in indentation; yaml reports `TAB_AS_INDENT` where js-yaml accepts
 *   some tabs (after `- `, in flow collections) and folds them differently in scalars.
 * - `carriage-return`: CR and CRLF line ends; js-yaml and yaml differ on a lone CR (old Mac line
 *   ends), and CRLF inside quoted and block scalars is a folding corner.
 * - `backslash`: escapes in double-quoted scalars (`\x`, `\u`, `\N`, `\L`, `\_`, escaped line
 *   breaks); the two parsers differ on invalid ones, and an escape can spell `${` or a control.
 * - `interpolation`: `${` is expanded by the loader, with `env/` findings located at the scalar.
 * - `unicode-space`: non-ASCII line breaks and spaces (U+0085, U+00A0, U+2028, U+2000-U+200F,
 *   U+3000, U+FEFF, ...) and C1 controls: YAML 1.1 and 1.2 disagree on NEL/LS/PS, JavaScript's
 *   `\s` and `trim()` count the spaces as white space where YAML does not.
 * - `long-line`: yaml refuses an implicit key over 1,024 characters (`KEY_OVER_1024_CHARS`);
 *   js-yaml has no such limit. A line of over 1,000 bytes cannot hold such a key.
 * - `directive`: `%YAML` / `%TAG` (the loader warns about versions other than 1.2; tag handles).
 * - `document-marker`: `---` / `...` at the start of a line: several documents (names `file#2`,
 *   per-document findings), empty documents and document-end garbage stay with the loader; js-yaml
 *   also reads `---#` as a marker and a comment, where yaml reads a plain scalar.
 * - `anchor-alias-tag`: `&anchor`, `*alias`, `!tag` at the start of a token. Aliases have the
 *   loader's expansion limits, tags its `yaml/unknown-tag`; js-yaml resolves `!!str`, `!!map`,
 *   and reads a lone `!` as null where yaml reads "".
 * - `explicit-key`: `?` at the start of a token: explicit and complex keys, which js-yaml turns
 *   into strings (`[a, b]` becomes "a,b") where yaml reports `yaml/non-string-key`.
 * - `explicit-value`: `:` at the start of a token (`: value`, `key : value`): empty keys become
 *   the string "null" in js-yaml, and the two differ on where such a key ends.
 * - `empty-entry`: a `-` with nothing after it on its line. js-yaml 4 puts the entries that follow
 *   an empty entry of a nested block sequence into the inner sequence (`- - x\n  -\n- y` is
 *   `[[x, null, y]]` there, `[[x, null], y]` in yaml).
 * - `trailing-space`: a space at the end of a line. Lines of only spaces and trailing spaces are
 *   where the two parsers' folding and chomping of block scalars differ (`|+` before a line of
 *   spaces, a comment after one); without them, block scalars read alike whatever their indicators.
 * - `comment-before-value`: a comment line no more indented than a key that has no value on its
 *   line (`a:`, then `# c` at the same column or left of it, then the value). yaml reads a plain
 *   value after it as a second line of an implicit key and fails; js-yaml reads the value.
 * - `unseparated-comment`: `#` right after a quote, a bracket, a comma or a colon: yaml requires
 *   white space before a comment (`"x"# c` is an error), js-yaml does not.
 * - `reserved`: `@` and `` ` `` at the start of a token are reserved by YAML; the parsers' errors differ.
 *
 * Everything else (block and flow collections, plain, quoted and block scalars, comments,
 * non-ASCII text) is left to js-yaml, whose result `readPlainData` checks further. The
 * differential test (`test/e2e/validate-fast-path.test.ts`) holds the whole list to
 * the loader on thousands of generated and mutated files.
 */
export type Hazard =
  | 'too-large'
  | 'bom'
  | 'control'
  | 'tab'
  | 'carriage-return'
  | 'backslash'
  | 'interpolation'
  | 'unicode-space'
  | 'long-line'
  | 'directive'
  | 'document-marker'
  | 'anchor-alias-tag'
  | 'explicit-key'
  | 'explicit-value'
  | 'empty-entry'
  | 'trailing-space'
  | 'comment-before-value'
  | 'unseparated-comment'
  | 'reserved';

/** Larger files go to the loader. */
export const FAST_MAX_BYTES = 64 * 1024;
/** Longer lines (in bytes) go to the loader: see `long-line`. */
export const FAST_MAX_LINE_BYTES = 1000;

const LF = 0x0a;
const SPACE = 0x20;

/** What a byte at the start of a token means, for the bytes that matter there. */
const atTokenStart: Partial<Record<number, Hazard>> = {
  0x26: 'anchor-alias-tag', // &
  0x2a: 'anchor-alias-tag', // *
  0x21: 'anchor-alias-tag', // !
  0x3f: 'explicit-key', // ?
  0x3a: 'explicit-value', // :
  0x25: 'directive', // %
  0x40: 'reserved', // @
  0x60: 'reserved', // `
};

/** Bytes that end a token, so that the next byte starts one: space, line feed, `[`, `{`, `,`. */
function endsToken(byte: number | undefined): boolean {
  return byte === undefined || byte === SPACE || byte === LF || byte === 0x5b || byte === 0x7b || byte === 0x2c;
}

/**
 * The first hazard in `bytes`, or undefined when the file may take the fast path. One pass, no
 * allocation: it runs on every file of a bulk run.
 */
export function findHazard(bytes: Uint8Array, maxBytes: number = FAST_MAX_BYTES): Hazard | undefined {
  if (bytes.length > maxBytes || bytes.length > FAST_MAX_BYTES) return 'too-large';
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'bom';
  // The column of the key on the last content line when that key may have no value on its line.
  let emptyValueColumn = -1;
  for (let start = 0; start < bytes.length; ) {
    let end = bytes.indexOf(LF, start);
    if (end === -1) end = bytes.length;
    if (end - start > FAST_MAX_LINE_BYTES) return 'long-line';
    if (end > start && bytes[end - 1] === SPACE) return 'trailing-space';
    let first = start;
    while (first < end && bytes[first] === SPACE) first++;
    if (first < end && bytes[first] === 0x23) {
      if (first - start <= emptyValueColumn) return 'comment-before-value';
    } else if (first < end) {
      const scanned = scanLine(bytes, start, end);
      if (typeof scanned === 'string') return scanned;
      emptyValueColumn = scanned ? keyColumn(bytes, start, end) : -1;
    }
    start = end + 1;
  }
  return undefined;
}

/**
 * The byte-level hazards of one line (`start` to `end`, the line feed excluded), or whether the
 * line may end with a key that has no value: a `:` followed only by spaces, or by a comment. (It
 * may also be inside a quoted scalar; counting that too only sends more files to the loader.)
 */
function scanLine(bytes: Uint8Array, start: number, end: number): Hazard | boolean {
  let colonLast = false;
  let emptyValue = false;
  for (let i = start; i < end; i++) {
    const b = bytes[i]!;
    if (b >= 0x80) {
      const width = unicodeHazardWidth(bytes, i);
      if (width === 0) return 'unicode-space';
      i += width - 1;
      colonLast = false;
      continue;
    }
    if (b < SPACE || b === 0x7f) return b === 0x09 ? 'tab' : b === 0x0d ? 'carriage-return' : 'control';
    if (b === 0x5c) return 'backslash';
    if (b === 0x24 && bytes[i + 1] === 0x7b) return 'interpolation';
    if (i === start && (b === 0x2d || b === 0x2e) && bytes[i + 1] === b && bytes[i + 2] === b) return 'document-marker';
    const previous = i === 0 ? undefined : bytes[i - 1];
    if (b === 0x23) {
      if (previous !== undefined && hugsComment(previous)) return 'unseparated-comment';
      if (colonLast) emptyValue = true;
    }
    if (b !== SPACE) colonLast = b === 0x3a;
    if (!endsToken(previous)) continue;
    const hazard = atTokenStart[b];
    if (hazard !== undefined) return hazard;
    if (b === 0x2d && nothingFollows(bytes, i + 1)) return 'empty-entry';
  }
  return emptyValue || colonLast;
}

/** The column where a line's content starts, after its indentation and any `- ` entry markers. */
function keyColumn(bytes: Uint8Array, start: number, end: number): number {
  let i = start;
  for (;;) {
    while (i < end && bytes[i] === SPACE) i++;
    if (bytes[i] !== 0x2d || bytes[i + 1] !== SPACE) return i - start;
    i += 2;
  }
}

/** A quote, bracket, brace, comma or colon: YAML wants white space between one of these and a comment. */
function hugsComment(byte: number): boolean {
  return byte === 0x22 || byte === 0x27 || byte === 0x5b || byte === 0x5d || byte === 0x7b || byte === 0x7d || byte === 0x2c || byte === 0x3a;
}

/** Only spaces, then a line end, a comment or the end of the file. */
function nothingFollows(bytes: Uint8Array, from: number): boolean {
  let i = from;
  while (bytes[i] === SPACE) i++;
  const next = bytes[i];
  return next === undefined || next === LF || next === 0x23;
}

/**
 * The length of the UTF-8 sequence at `i` when it is a harmless character, or 0 when it is one
 * of the characters `unicode-space` names (or not UTF-8 at all: the loader reports that).
 */
function unicodeHazardWidth(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  const b1 = bytes[i + 1] ?? 0;
  const b2 = bytes[i + 2] ?? 0;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    // U+0080-U+00A0: C1 controls, NEL, no-break space.
    if (b0 === 0xc2 && b1 <= 0xa0) return 0;
    return 2;
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    // U+1680, U+180E.
    if (b0 === 0xe1 && ((b1 === 0x9a && b2 === 0x80) || (b1 === 0xa0 && b2 === 0x8e))) return 0;
    // U+2000-U+200F, U+2028-U+202F, U+205F-U+206F.
    if (b0 === 0xe2 && b1 === 0x80 && (b2 <= 0x8f || (b2 >= 0xa8 && b2 <= 0xaf))) return 0;
    if (b0 === 0xe2 && b1 === 0x81 && b2 >= 0x9f && b2 <= 0xaf) return 0;
    // U+3000.
    if (b0 === 0xe3 && b1 === 0x80 && b2 === 0x80) return 0;
    // U+FEFF, U+FFF0-U+FFFF.
    if (b0 === 0xef && ((b1 === 0xbb && b2 === 0xbf) || (b1 === 0xbf && b2 >= 0xb0))) return 0;
    return 3;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) return 4;
  return 0;
}
