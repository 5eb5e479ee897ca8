import type { Diagnostic, Position } from '../diagnostics/diagnostic.js';

/** The default size limit of one manifest file (DESIGN §1: huge inputs end in a clear error). */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

export type Decoded = { ok: true; text: string } | { ok: false; diagnostic: Diagnostic };

const fatalUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lenientUtf8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });

/**
 * Turns the bytes of a file into text, or says why they are not a UTF-8 YAML text: too large,
 * UTF-16/32, binary (NUL and other control characters), invalid UTF-8. A UTF-8 byte order mark is
 * dropped silently, as YAML allows it. `buf.toString()` is not used because it replaces invalid
 * bytes with U+FFFD without a word (runtime-facts §1.2).
 */
export function decodeManifestBytes(bytes: Uint8Array, file: string, maxBytes: number = DEFAULT_MAX_FILE_BYTES): Decoded {
  if (bytes.length > maxBytes) return { ok: false, diagnostic: tooLarge(file, bytes.length, maxBytes) };

  const wide = wideEncoding(bytes);
  if (wide !== undefined) {
    return {
      ok: false,
      diagnostic: {
        code: 'input/utf16',
        severity: 'error',
        message: `the file is encoded as ${wide}; manifests must be UTF-8`,
        file,
        range: startRange,
        hint: 'convert it, for example with `iconv -f UTF-16 -t UTF-8`',
      },
    };
  }

  const control = firstControlByte(bytes);
  if (control !== -1) {
    const byte = bytes[control] ?? 0;
    const at = bytePosition(bytes, control);
    const what = byte === 0 ? 'a NUL byte' : `the control character U+${byte.toString(16).toUpperCase().padStart(4, '0')}`;
    return {
      ok: false,
      diagnostic: {
        code: 'input/binary',
        severity: 'error',
        message: `the file contains ${what}; it is not a YAML text file`,
        file,
        range: { start: at, end: at },
      },
    };
  }

  let text: string;
  try {
    text = fatalUtf8.decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    const at = bytePosition(bytes, bad);
    return {
      ok: false,
      diagnostic: {
        code: 'input/invalid-utf8',
        severity: 'error',
        message: `the file is not valid UTF-8 (byte 0x${(bytes[bad] ?? 0).toString(16).padStart(2, '0')} at offset ${bad})`,
        file,
        range: { start: at, end: at },
        hint: 'save the file as UTF-8',
      },
    };
  }
  return { ok: true, text: stripBom(text) };
}

/** Checks text that arrived as a string (the programmatic API) the same way as bytes. */
export function checkManifestText(text: string, file: string, maxBytes: number = DEFAULT_MAX_FILE_BYTES): Decoded {
  const size = Buffer.byteLength(text, 'utf8');
  if (size > maxBytes) return { ok: false, diagnostic: tooLarge(file, size, maxBytes) };
  // Lone surrogates cannot come from a file, but a caller may pass them; they are re-encoded the
  // same way a file would be, so the rules above apply unchanged.
  return decodeManifestBytes(Buffer.from(text, 'utf8'), file, maxBytes);
}

export function tooLarge(file: string, size: number, maxBytes: number): Diagnostic {
  return {
    code: 'input/too-large',
    severity: 'error',
    message: `the file is larger than the limit of ${formatBytes(maxBytes)}${size > maxBytes ? ` (at least ${formatBytes(size)})` : ''}`,
    file,
    range: startRange,
    hint: 'split it into several manifests, or raise the limit with --max-file-size',
  };
}

const startRange = { start: { line: 1, col: 1 }, end: { line: 1, col: 1 } };

function formatBytes(n: number): string {
  if (n >= 1024 * 1024) return `${(n / (1024 * 1024)).toFixed(n % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(n % 1024 === 0 ? 0 : 1)} KiB`;
  return `${n} bytes`;
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** UTF-16 and UTF-32, by byte order mark or by the NUL pattern of ASCII text without one. */
function wideEncoding(b: Uint8Array): string | undefined {
  const [b0, b1, b2, b3] = [b[0], b[1], b[2], b[3]];
  if (b0 === 0x00 && b1 === 0x00 && b2 === 0xfe && b3 === 0xff) return 'UTF-32 (big-endian)';
  if (b0 === 0xff && b1 === 0xfe && b2 === 0x00 && b3 === 0x00) return 'UTF-32 (little-endian)';
  if (b0 === 0xfe && b1 === 0xff) return 'UTF-16 (big-endian)';
  if (b0 === 0xff && b1 === 0xfe) return 'UTF-16 (little-endian)';
  if (b.length >= 4) {
    if (b0 !== 0 && b1 === 0 && b2 === 0 && b3 === 0) return 'UTF-32 (little-endian)';
    if (b0 === 0 && b1 === 0 && b2 === 0 && b3 !== 0) return 'UTF-32 (big-endian)';
    if (b0 !== 0 && b1 === 0 && b2 !== 0 && b3 === 0) return 'UTF-16 (little-endian)';
    if (b0 === 0 && b1 !== 0 && b2 === 0 && b3 !== 0) return 'UTF-16 (big-endian)';
  }
  return undefined;
}

/**
 * The first byte that YAML does not allow in a text file: C0 controls other than tab, line feed
 * and carriage return, and DEL. In UTF-8 these bytes never occur inside a multi-byte sequence, so
 * a byte scan is exact.
 */
function firstControlByte(b: Uint8Array): number {
  for (let i = 0; i < b.length; i++) {
    const c = b[i] as number;
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f) return i;
  }
  return -1;
}

/** The offset of the first byte that makes a prefix undecodable (binary search; prefixes only get worse). */
function firstInvalidUtf8(b: Uint8Array): number {
  let lo = 0;
  let hi = b.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
    let ok = true;
    try {
      // `stream: true` tolerates a sequence cut at the end of the prefix; only real errors throw.
      decoder.decode(b.subarray(0, mid + 1), { stream: true });
    } catch {
      ok = false;
    }
    if (ok) lo = mid + 1;
    else hi = mid;
  }
  // `lo` is the byte at which decoding first became impossible; the bad sequence starts at the
  // last complete character before it (at most three bytes back).
  for (let start = lo; start >= Math.max(0, lo - 3); start--) {
    try {
      new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(b.subarray(0, start));
      return Math.min(start, b.length - 1);
    } catch {
      // an incomplete sequence ends this prefix; step back
    }
  }
  return Math.min(lo, b.length - 1);
}

/** 1-based line and column (UTF-16 units, like the rest of the project) of a byte offset. */
export function bytePosition(b: Uint8Array, offset: number): Position {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < b.length; i++) {
    if (b[i] === 0x0a) {
      line++;
      lineStart = i + 1;
    }
  }
  let prefix = lenientUtf8.decode(b.subarray(lineStart, offset));
  if (line === 1 && prefix.charCodeAt(0) === 0xfeff) prefix = prefix.slice(1);
  return { line, col: prefix.length + 1 };
}
