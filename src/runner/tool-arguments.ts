import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { InputError, UsageError } from '../diagnostics/errors.js';

/** The largest JSON file (or stdin) read for `--args-file` and `--body`: the service's own body limit. */
export const MAX_JSON_INPUT = 1024 * 1024;

/**
 * A `--arg key=value` value: JSON when it parses as JSON (`42`, `true`, `null`, `{"a":1}`,
 * `["x"]`, `"quoted"`), otherwise the text as a string. So `--arg count=3` sends a number,
 * `--arg name=alice` a string, and `--arg 'code="007"'` the string `007`.
 */
export function parseArgValue(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/**
 * Turns repeated `--arg key=value` into an object. Throws a UsageError naming the offending
 * `--arg` (its position and text) for a missing `=`, an empty key, or a key given twice.
 */
export function parseArgPairs(pairs: readonly string[], flag = '--arg'): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  pairs.forEach((pair, i) => {
    const at = `${flag} #${i + 1} (${JSON.stringify(pair)})`;
    const eq = pair.indexOf('=');
    if (eq === -1) throw new UsageError(`${at}: expected key=value`, `write ${flag} name=value; values that parse as JSON are sent as JSON (numbers, true/false, null, objects, arrays), others as strings`);
    const key = pair.slice(0, eq);
    if (key.trim() === '') throw new UsageError(`${at}: the key before "=" is empty`, `write ${flag} name=value`);
    if (Object.hasOwn(out, key)) throw new UsageError(`${at}: "${key}" is given twice`, `give each argument once; put a list in one value as JSON, e.g. ${flag} '${key}=["a","b"]'`);
    out[key] = parseArgValue(pair.slice(eq + 1));
  });
  return out;
}

/** 1-based line and column of a character offset. */
export function lineCol(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      start = i + 1;
    }
  }
  return { line, col: offset - start + 1 };
}

const END_OF_INPUT = /^Unexpected end of JSON input/;
const AT_POSITION = / in JSON at position (\d+)/;

/** The offset V8 names, or undefined; an error "at" the very end of the text means it just stops. */
function failurePosition(message: string, length: number): number | 'end' | undefined {
  if (END_OF_INPUT.test(message)) return 'end';
  const m = AT_POSITION.exec(message);
  if (m === null) return undefined;
  const pos = Number(m[1]);
  return pos >= length ? 'end' : pos;
}

/**
 * Where JSON.parse fails. V8 gives a position for most errors but not for an unexpected token
 * ("Unexpected token 'a', "<the text>" is not valid JSON", which would also echo the input). A
 * prefix of the text fails only as "it stops early" until it includes the bad character, so for
 * those the smallest prefix that fails otherwise ends at the error: a binary search finds it.
 */
export function jsonErrorOffset(text: string): number {
  const failure = (k: number): number | 'end' | undefined | null => {
    try {
      JSON.parse(text.slice(0, k));
      return null;
    } catch (err) {
      return failurePosition((err as Error).message, k);
    }
  };
  const whole = failure(text.length);
  if (typeof whole === 'number') return whole;
  if (whole === 'end' || whole === null) return text.length;
  // An unexpected token: find the shortest prefix that fails for a reason other than its end.
  const failsBefore = (k: number): boolean => {
    const f = failure(k);
    return f !== null && f !== 'end';
  };
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (failsBefore(mid)) hi = mid;
    else lo = mid + 1;
  }
  return Math.max(0, lo - 1);
}

/** V8's reason without the echoed input or the position (which we give as line:col). */
function jsonReason(message: string): string {
  return message
    .replace(/, (\.\.\.)?".*" is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/^Unexpected end of JSON input$/, 'unexpected end of input')
    .replace(/^./, (c) => c.toLowerCase());
}

/**
 * Parses JSON text read from `name` (a file, or `<stdin>`). A syntax error is an InputError at
 * `name:line:col` with the parser's reason, never echoing the text.
 */
export function parseJsonText(text: string, name: string): unknown {
  const clean = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return JSON.parse(clean) as unknown;
  } catch (err) {
    const { line, col } = lineCol(clean, jsonErrorOffset(clean));
    throw new InputError(`${line}:${col}: not valid JSON: ${jsonReason((err as Error).message)}`, name);
  }
}

/**
 * Reads `--args-file FILE` / `--body FILE`, or standard input for `-`, at most MAX_JSON_INPUT
 * bytes. Unreadable input is an InputError naming the file.
 */
export async function readJsonInput(spec: string, io: { cwd: string; stdin: Readable }, flag: string): Promise<{ value: unknown; name: string }> {
  if (spec === '-') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of io.stdin) {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += buf.length;
      if (size > MAX_JSON_INPUT) throw new InputError(`${flag} -: standard input is larger than ${MAX_JSON_INPUT} bytes`, '<stdin>');
      chunks.push(buf);
    }
    return { value: parseJsonText(Buffer.concat(chunks).toString('utf8'), '<stdin>'), name: '<stdin>' };
  }
  const path = resolve(io.cwd, spec);
  let text: string;
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    if (st.size > MAX_JSON_INPUT) throw new InputError(`${flag}: the file is larger than ${MAX_JSON_INPUT} bytes`, spec);
    text = await readFile(path, 'utf8');
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a folder' : code === 'EACCES' ? 'permission denied' : (code ?? 'unreadable');
    throw new InputError(`${flag}: cannot read the file (${why})`, spec, { cause: err });
  }
  return { value: parseJsonText(text, spec), name: spec };
}

/**
 * The arguments object of `execute` / `execute-meta`: the `--args-file` object (when given), then
 * each `--arg` on top of it (an `--arg` wins over the same top-level key of the file).
 */
export async function buildToolArguments(
  pairs: readonly string[],
  argsFile: string | undefined,
  io: { cwd: string; stdin: Readable },
): Promise<Record<string, unknown>> {
  let base: Record<string, unknown> = {};
  if (argsFile !== undefined) {
    const { value, name } = await readJsonInput(argsFile, io, '--args-file');
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new InputError(`--args-file must hold a JSON object ({"name": value, ...}), not ${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value}`, name);
    }
    base = value as Record<string, unknown>;
  }
  return { ...base, ...parseArgPairs(pairs) };
}

/**
 * `--known-fields K:V,...` for search: each comma-separated part must be `key:value` with a key.
 * Returns the service's own spelling, "key:value, key:value".
 */
export function parseKnownFields(raw: string): string {
  const parts = raw.split(',').map((p) => p.trim()).filter((p) => p !== '');
  if (parts.length === 0) throw new UsageError('--known-fields is empty', 'write --known-fields key:value,key:value (e.g. channel:general,user:alice)');
  for (const part of parts) {
    const colon = part.indexOf(':');
    if (colon <= 0) throw new UsageError(`--known-fields: "${part}" is not key:value`, 'write --known-fields key:value,key:value (e.g. channel:general,user:alice)');
  }
  return parts.join(', ');
}

/** One `--param` of `proxy`: `header:NAME=VALUE` or `query:NAME=VALUE`. */
export function parseProxyParam(raw: string, index: number): { name: string; value: string; type: 'header' | 'query' } {
  const m = /^(header|query):([^=]+)=(.*)$/s.exec(raw);
  if (m === null) {
    throw new UsageError(`--param #${index + 1} (${JSON.stringify(raw)}): expected header:NAME=VALUE or query:NAME=VALUE`, 'e.g. --param header:Accept=application/json --param query:per_page=5');
  }
  return { type: m[1] as 'header' | 'query', name: m[2] as string, value: m[3] as string };
}
