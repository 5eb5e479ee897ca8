/**
 * A deliberately small YAML reader for the fast path of bulk validation (see `fast-path.ts`).
 *
 * It reads only the plain shape most manifests have: block mappings with identifier keys, block
 * sequences of scalars, one-line flow sequences of scalars, plain scalars and quoted scalars
 * without escapes, and comments. For anything else (anchors, tags, flow mappings, block scalars,
 * multi-line scalars, several documents, `${VAR}`, tabs, numbers other than small integers, ...)
 * it returns `undefined` and the caller uses the full loader. It never guesses: where its reading
 * could differ from yaml's YAML 1.2 core schema it gives up, so whatever it does return is exactly
 * what the full loader would produce.
 */

export interface FastDocument {
  data: Record<string, unknown>;
  /** JSON pointers of the scalars that were quoted (all other string scalars were plain). */
  quoted: Set<string>;
  /** Whether any plain string could read otherwise in YAML 1.1 (starts like `yes`, `n`, `0`). */
  yaml11Candidates: boolean;
  /** With `{ positions: true }`: where each scalar value and each key is (see `FastPositions`). */
  positions?: FastPositions;
}

/** 1-based line, columns in UTF-16 code units, end exclusive: as `SourceText.range` gives them. */
export interface FastSpan {
  line: number;
  startCol: number;
  endCol: number;
}

/**
 * Positions of scalars (with their source text and style) and of keys, by JSON pointer. Nothing
 * else is recorded: collections and empty values have no entry, and asking for them sends the
 * file to the full loader.
 */
export interface FastPositions {
  values: Map<string, FastSpan & { source: string; style: 'plain' | 'quoted' }>;
  keys: Map<string, FastSpan>;
}

/** The positions being recorded by the current `parseFast` call, if it was asked for them. */
let recording: FastPositions | undefined;
let currentLine = 0;

const YAML11_CANDIDATE = /^(?:[yn~]|yes|no|on|off|true|false|null|[-+.0-9])/i;
let sawCandidate = false;

/** Characters whose presence anywhere, comments included, sends the file to the full loader. */
const UNSUPPORTED_ANYWHERE = /[\t\r\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/;
/** Characters with a YAML meaning beyond the subset (or `${VAR}`), outside comments. */
const UNSUPPORTED_CONTENT = /[&*!%|>`@{}?\\$]/;
/** Plain scalars that are not strings in the core schema, or might not be: left to yaml. */
const NOT_SURELY_STRING = /^[-+.0-9~]/;
const MAX_DEPTH = 10;

class Unsupported extends Error {}
// One instance, thrown again and again: building a stack trace per unsupported file costs more
// than reading the file.
const unsupported = new Unsupported('outside the fast subset');

function fail(): never {
  throw unsupported;
}

function escapeSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The JSON pointer of a path; built only for quoted scalars, which are few. */
function pointerOf(path: readonly string[]): string {
  let out = '';
  for (const seg of path) out += '/' + escapeSegment(seg);
  return out;
}

/** `^[A-Za-z_][A-Za-z0-9_-]*$` without a regular expression: this runs for every key. */
function isPlainKey(key: string): boolean {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
    if (!letter && (i === 0 || !((c >= 48 && c <= 57) || c === 45))) return false;
  }
  return key.length > 0;
}

interface Line {
  /** 1-based line number in the text. */
  lineNo: number;
  indent: number;
  /** The content without indentation and without a trailing comment. */
  text: string;
}

/** Trims spaces only: `String#trim` also drops U+00A0 and friends, which YAML keeps in a scalar. */
function trimSpaces(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text.charCodeAt(start) === 32) start++;
  while (end > start && text.charCodeAt(end - 1) === 32) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** Splits off a trailing ` # comment`, refusing any `#` or quote whose role is unclear. */
function stripComment(content: string): string {
  const hash = content.indexOf(' #');
  const body = hash < 0 ? content : content.slice(0, hash);
  if (body.includes('#') && !/^[^"']*$/.test(body)) fail();
  // Spaces only: `trimEnd` would also drop U+00A0 and friends, which YAML keeps in a scalar.
  let end = body.length;
  while (end > 0 && body.charCodeAt(end - 1) === 32) end--;
  return end === body.length ? body : body.slice(0, end);
}

function toLines(text: string): Line[] {
  const lines: Line[] = [];
  let lineNo = 0;
  for (const raw of text.split('\n')) {
    lineNo++;
    let indent = 0;
    while (raw.charCodeAt(indent) === 32) indent++;
    const content = raw.slice(indent);
    if (content === '' || content.startsWith('#')) continue;
    if (raw.startsWith('---') || raw.startsWith('...')) fail();
    const body = stripComment(content);
    if (UNSUPPORTED_CONTENT.test(body)) fail();
    lines.push({ lineNo, indent, text: body });
  }
  return lines;
}

/** A plain or quoted scalar on one line. */
function scalar(text: string, path: string[], quoted: Set<string>, col: number): unknown {
  const first = text[0];
  if (first === '"' || first === "'") {
    if (text.length < 2 || text[text.length - 1] !== first || text.slice(1, -1).includes(first)) fail();
    quoted.add(pointerOf(path));
    recording?.values.set(pointerOf(path), { line: currentLine, startCol: col, endCol: col + text.length, source: text, style: 'quoted' });
    return text.slice(1, -1);
  }
  if (text !== '') recording?.values.set(pointerOf(path), { line: currentLine, startCol: col, endCol: col + text.length, source: text, style: 'plain' });
  if (text === '') return null;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(text) || text.includes(': ') || text.endsWith(':') || text.includes(' #')) fail();
  if (/^(?:0|[1-9][0-9]{0,14})$/.test(text)) return Number(text);
  // The YAML 1.2 core schema's booleans and nulls, spelled exactly as it accepts them.
  if (text === 'true' || text === 'True' || text === 'TRUE') return true;
  if (text === 'false' || text === 'False' || text === 'FALSE') return false;
  if (text === 'null' || text === 'Null' || text === 'NULL' || text === '~') return null;
  if (NOT_SURELY_STRING.test(text)) fail();
  if (!sawCandidate && YAML11_CANDIDATE.test(text)) sawCandidate = true;
  return text;
}

function flowSequence(text: string, path: string[], quoted: Set<string>, col: number): unknown[] {
  if (!text.endsWith(']')) fail();
  const raw = text.slice(1, -1);
  const inner = trimSpaces(raw);
  if (inner === '') return [];
  if (/[[\]]/.test(inner)) fail();
  const rawParts = raw.split(',');
  const parts = rawParts.map((p) => trimSpaces(p));
  if (parts.some((p) => p === '')) fail();
  // In flow context `:` and `#` have meanings of their own; leave such items to yaml.
  if (parts.some((p) => p.includes(':') || p.includes('#'))) fail();
  let offset = col + 1;
  return parts.map((p, i) => {
    const rawPart = rawParts[i]!;
    path.push(String(i));
    const v = scalar(p, path, quoted, offset + leadingSpaces(rawPart));
    path.pop();
    offset += rawPart.length + 1;
    return v;
  });
}

function leadingSpaces(text: string): number {
  let n = 0;
  while (n < text.length && text.charCodeAt(n) === 32) n++;
  return n;
}

function value(text: string, path: string[], quoted: Set<string>, col: number): unknown {
  return text.startsWith('[') ? flowSequence(text, path, quoted, col) : scalar(text, path, quoted, col);
}

/**
 * Parses a manifest text, or returns undefined when it uses anything beyond the subset above.
 * The root must be a non-empty mapping.
 */
export function parseFast(text: string, options: { positions?: boolean } = {}): FastDocument | undefined {
  if (UNSUPPORTED_ANYWHERE.test(text)) return undefined;
  const quoted = new Set<string>();
  sawCandidate = false;
  const positions: FastPositions | undefined = options.positions === true ? { values: new Map(), keys: new Map() } : undefined;
  recording = positions;
  try {
    const lines = toLines(text);
    if (lines.length === 0 || lines[0]!.indent !== 0) return undefined;
    let i = 0;

    const path: string[] = [];
    const block = (indent: number, depth: number): unknown => {
      if (depth > MAX_DEPTH) fail();
      const head = lines[i]!;
      if (head.text.startsWith('- ') || head.text === '-') {
        const out: unknown[] = [];
        while (i < lines.length && lines[i]!.indent === indent && (lines[i]!.text.startsWith('- ') || lines[i]!.text === '-')) {
          const afterDash = lines[i]!.text.slice(2);
          const item = trimSpaces(afterDash);
          // `- key: value` (a list of mappings) and `-` alone are left to yaml.
          if (item === '' || item.includes(': ') || item.endsWith(':')) fail();
          path.push(String(out.length));
          currentLine = lines[i]!.lineNo;
          out.push(value(item, path, quoted, indent + 3 + leadingSpaces(afterDash)));
          path.pop();
          i++;
          if (i < lines.length && lines[i]!.indent > indent) fail();
        }
        return out;
      }
      const out: Record<string, unknown> = {};
      while (i < lines.length && lines[i]!.indent === indent) {
        const line = lines[i]!;
        const colon = line.text.indexOf(':');
        if (colon <= 0) fail();
        const key = line.text.slice(0, colon);
        // `__proto__` would set the object's prototype here instead of a key; such keys are
        // schema findings anyway, so the loader reads them.
        // YAML limits implicit keys to 1024 characters; long ones are the loader's finding.
        if (key.length > 1000 || !isPlainKey(key) || key === '__proto__' || key === 'constructor' || key === 'prototype' || Object.prototype.hasOwnProperty.call(out, key)) fail();
        const rest = line.text.slice(colon + 1);
        if (rest !== '' && !rest.startsWith(' ')) fail();
        path.push(key);
        currentLine = line.lineNo;
        recording?.keys.set(pointerOf(path), { line: line.lineNo, startCol: indent + 1, endCol: indent + 1 + key.length });
        i++;
        if (trimSpaces(rest) !== '') {
          out[key] = value(trimSpaces(rest), path, quoted, indent + 1 + colon + 1 + leadingSpaces(rest));
          if (i < lines.length && lines[i]!.indent > indent) fail();
        } else if (i < lines.length && lines[i]!.indent > indent) {
          out[key] = block(lines[i]!.indent, depth + 1);
        } else if (i < lines.length && lines[i]!.indent === indent && lines[i]!.text.startsWith('- ')) {
          // A sequence may sit at its key's own indentation.
          out[key] = block(indent, depth + 1);
        } else {
          out[key] = null;
        }
        path.pop();
      }
      return out;
    };

    const data = block(0, 0);
    if (i !== lines.length || data === null || typeof data !== 'object' || Array.isArray(data)) return undefined;
    if (Object.keys(data).length === 0) return undefined;
    return { data: data as Record<string, unknown>, quoted, yaml11Candidates: sawCandidate, ...(positions !== undefined ? { positions } : {}) };
  } catch (err) {
    if (err instanceof Unsupported) return undefined;
    throw err;
  } finally {
    recording = undefined;
  }
}
