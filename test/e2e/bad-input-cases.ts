/**
 * The cases of the bad-input suite (`bad-input.test.ts`): hundreds of hostile or malformed
 * manifests, generated (a syntax error, a bad byte, a duplicate key, ... at every line of the
 * examples; a wrong type at every field of the examples) and hand-picked (alias bombs, 10,000
 * levels of nesting, a 50 MB file, binary files, every kind of broken encoding). Shared with the
 * fast-path differential test, which runs every one of them both ways.
 */
import { readFileSync } from 'node:fs';
import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments, type Document } from 'yaml';
import type { Code } from '../../src/diagnostics/codes.js';

export interface Case {
  name: string;
  /** File name inside the temporary folder. */
  file: string;
  /** The bytes, or a writer for files too large to hold as a literal. */
  content: string | Buffer | ((path: string) => Promise<void>);
  /** More files to validate in the same run (for "two deep files in one process"). */
  more?: string[];
  /** At least one error with one of these codes... */
  codes?: readonly Code[];
  /** ...at this 1-based line (of the case file). */
  line?: number;
  /** For wrong-type cases: an error must point at this JSON pointer or an ancestor below the root. */
  pointer?: string;
}

const examples = new URL('../../examples/', import.meta.url);
const example = (name: string): string => readFileSync(new URL(name, examples), 'utf8');

// ---------------------------------------------------------------------------------------------
// Generated: a fault at every line of the examples.

const KEY_VALUE = /^(\s*)([A-Za-z_][\w-]*):[ ]+(\S.*)$/;

function lineFaults(base: string, label: string): Case[] {
  const lines = base.replace(/\n$/, '').split('\n');
  const cases: Case[] = [];
  const variant = (edit: (copy: string[]) => void): string => {
    const copy = [...lines];
    edit(copy);
    return `${copy.join('\n')}\n`;
  };
  lines.forEach((line, i) => {
    if (line.trim() === '' || line.trimStart().startsWith('#')) return;
    const n = i + 1;
    const indent = /^\s*/.exec(line)?.[0] ?? '';
    const at = `${label}:${n}`;
    cases.push(
      { name: `unclosed quote after ${at}`, file: `${label}-quote-${n}.yaml`, content: variant((c) => c.splice(n, 0, `${indent}broken: "unterminated`)), codes: ['yaml/syntax'] },
      { name: `unclosed flow sequence after ${at}`, file: `${label}-flow-${n}.yaml`, content: variant((c) => c.splice(n, 0, `${indent}broken: [a, b`)), codes: ['yaml/syntax'] },
      { name: `tab indentation at ${at}`, file: `${label}-tab-${n}.yaml`, content: variant((c) => (c[i] = `\t${line.trimStart()}`)), codes: ['yaml/tab-indent', 'yaml/syntax'] },
      { name: `NUL byte at ${at}`, file: `${label}-nul-${n}.yaml`, content: variant((c) => (c[i] = `${line.slice(0, 3)}\0${line.slice(3)}`)), codes: ['input/binary'], line: n },
      {
        name: `invalid UTF-8 at ${at}`,
        file: `${label}-utf8-${n}.yaml`,
        content: Buffer.concat([Buffer.from(lines.slice(0, n).join('\n')), Buffer.from([0xc3, 0x28]), Buffer.from(`\n${lines.slice(n).join('\n')}\n`)]),
        codes: ['input/invalid-utf8'],
        line: n,
      },
    );
    const kv = KEY_VALUE.exec(line);
    if (kv === null) return;
    const [, ind, key] = kv;
    cases.push(
      { name: `duplicate key after ${at}`, file: `${label}-dup-${n}.yaml`, content: variant((c) => c.splice(n, 0, line)), codes: ['yaml/duplicate-key'], line: n + 1 },
      { name: `alias to no anchor at ${at}`, file: `${label}-alias-${n}.yaml`, content: variant((c) => (c[i] = `${ind}${key}: *nowhere`)), codes: ['yaml/syntax'], line: n },
      { name: `code tag at ${at}`, file: `${label}-tag-${n}.yaml`, content: variant((c) => (c[i] = `${ind}${key}: !!js/function "function () { process.exit(9) }"`)), codes: ['yaml/unknown-tag'], line: n },
      { name: `unset variable at ${at}`, file: `${label}-env-${n}.yaml`, content: variant((c) => (c[i] = `${ind}${key}: \${SESSIONCTL_BAD_INPUT_UNSET}`)), codes: ['env/unset-variable'], line: n },
      { name: `bad reference at ${at}`, file: `${label}-ref-${n}.yaml`, content: variant((c) => (c[i] = `${ind}${key}: "\${1BAD:x}"`)), codes: ['env/bad-reference'], line: n },
    );
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Generated: a wrong type at every field of the examples.

type Path = Array<string | number>;

/**
 * Every field and item below the root. The inside of a custom tool's `input_schema` is left out:
 * it is the tool's own JSON Schema, whose keywords the manifest schema does not constrain.
 */
function leafAndBranchPaths(value: unknown, path: Path = []): Path[] {
  const here = path.length > 0 ? [path] : [];
  if (path.at(-1) === 'input_schema') return here;
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => leafAndBranchPaths(v, [...path, i]))];
  if (typeof value === 'object' && value !== null) return [...here, ...Object.entries(value).flatMap(([k, v]) => leafAndBranchPaths(v, [...path, k]))];
  return here;
}

/** A value of a type that the schema does not allow where `original` is. */
function wrongValue(original: unknown): unknown {
  if (typeof original === 'string') return { wrong: ['type'] };
  if (typeof original === 'boolean' || original === null) return 'sometimes';
  if (typeof original === 'number') return 'lots';
  return 42;
}

const pointerOf = (path: Path): `/${string}` => `/${path.map((s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;

function wrongTypes(base: string, label: string): Case[] {
  const docs = parseAllDocuments(base) as Document[];
  const cases: Case[] = [];
  docs.forEach((doc, d) => {
    for (const path of leafAndBranchPaths(doc.toJS())) {
      const mutated = doc.clone();
      mutated.setIn(path, mutated.createNode(wrongValue(doc.getIn(path))));
      const text = docs.map((other, j) => String(j === d ? mutated : other)).join('');
      const pointer = pointerOf(path);
      cases.push({ name: `wrong type at ${label}${docs.length > 1 ? `#${d + 1}` : ''} ${pointer}`, file: `${label}-type-${d}-${cases.length}.yaml`, content: text, pointer });
    }
  });
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Hand-picked.

/** A line of a JavaScript stack trace: never in any output. */
export const STACK_LINE = /^\s+at .+(:\d+:\d+\)?|\(native\)|<anonymous>)$/m;

/** A billion-laughs document: `levels` anchors, each a list of `width` aliases of the one before. */
export const laughs = (levels: number, width: number): string => {
  const out = [`l0: &l0 [${Array.from({ length: width }, () => 'lol').join(', ')}]`];
  for (let i = 1; i < levels; i++) out.push(`l${i}: &l${i} [${Array.from({ length: width }, () => `*l${i - 1}`).join(', ')}]`);
  return `name: bomb\n${out.join('\n')}\n`;
};

export const FIFTY_MB = 50 * 1024 * 1024;
const writeHuge = async (path: string): Promise<void> => {
  const handle = await open(path, 'w');
  const chunk = Buffer.from(`${'key_0123456789: "a manifest that goes on and on"\n'.repeat(20_000)}`);
  try {
    for (let written = 0; written < FIFTY_MB; written += chunk.length) await handle.write(chunk);
  } finally {
    await handle.close();
  }
};

// Deterministic pseudo-random bytes: the suite must not depend on the run.
export const noise = (length: number, seed: number): Buffer => {
  const b = Buffer.alloc(length);
  let x = seed;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x >>> 16;
  }
  return b;
};
export const bytes = (...parts: Array<string | number[]>): Buffer => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
export const utf16 = (s: string, le: boolean, bom: boolean): Buffer => {
  const body = Buffer.from(s, 'utf16le');
  if (!le) body.swap16();
  return Buffer.concat([bom ? Buffer.from(le ? [0xff, 0xfe] : [0xfe, 0xff]) : Buffer.alloc(0), body]);
};

export const handPicked: Case[] = [
  // Alias bombs.
  { name: 'billion laughs (9 x 9)', file: 'laughs.yaml', content: laughs(9, 9), codes: ['yaml/excessive-aliases'], line: 3 },
  { name: 'billion laughs, wide (4 x 40)', file: 'laughs-wide.yaml', content: laughs(4, 40), codes: ['yaml/excessive-aliases'], line: 3 },
  { name: 'billion laughs, deep (30 x 2)', file: 'laughs-deep.yaml', content: laughs(30, 2), codes: ['yaml/excessive-aliases'] },
  { name: '100 aliases of one scalar', file: 'alias-many.yaml', content: `name: x\na: &a v\nb: [${Array.from({ length: 100 }, () => '*a').join(', ')}]\n`, codes: ['yaml/excessive-aliases'], line: 3 },
  {
    name: 'a large scalar aliased 30 times (quadratic blow-up)',
    file: 'alias-quadratic.yaml',
    content: `name: x\nbig: &big ${'y'.repeat(200_000)}\n${Array.from({ length: 30 }, (_, i) => `c${i}: *big`).join('\n')}\n`,
    codes: ['yaml/excessive-aliases'],
    line: 3,
  },
  { name: 'an alias inside its own anchor', file: 'alias-cycle.yaml', content: 'name: x\ntoolkits: &t [gmail, *t]\n', codes: ['yaml/syntax'], line: 2 },
  { name: 'an alias before its anchor', file: 'alias-early.yaml', content: 'name: x\ntoolkits: *t\nother: &t [gmail]\n', codes: ['yaml/syntax'], line: 2 },
  // yaml-errors.ts once found the name of an alias ending in `:` with a regex anchored at the end
  // of the text, which retried from every `*` before it: minutes for this file.
  // Tens of thousands of yaml errors or aliases in a file under the limits: each used to be put in
  // words (reading its line) or resolved (walking the document), minutes in all.
  { name: "20,000 aliases ending in ':'", file: 'many-colon-aliases.yaml', content: `${Array.from({ length: 20_000 }, (_, i) => `k${i}: *a:`).join('\n')}\n`, codes: ['yaml/syntax'] },
  { name: '20,000 aliases of one anchor', file: 'many-aliases.yaml', content: `name: x\na: &a 1\n${Array.from({ length: 20_000 }, (_, i) => `k${i}: *a`).join('\n')}\n`, codes: ['yaml/excessive-aliases'] },
  // yaml's conversion to data is quadratic in the anchors used: 10 s for this file.
  { name: '20,000 anchors, each used once', file: 'many-anchors-used.yaml', content: `name: x\nl: [${Array.from({ length: 20_000 }, (_, i) => `&a${i} ${i}`).join(', ')}]\nm: [${Array.from({ length: 20_000 }, (_, i) => `*a${i}`).join(', ')}]\n`, codes: ['yaml/excessive-aliases'], line: 3 },
  { name: '100,000 anchors on one node', file: 'many-anchors.yaml', content: `${'&a '.repeat(100_000)}- a\n`, codes: ['yaml/syntax'], line: 1 },
  { name: '200,000 bad escapes in one string', file: 'many-escapes.yaml', content: `name: "${'\\u'.repeat(200_000)}"\n`, codes: ['yaml/syntax'], line: 1 },
  // Each error put in words split the whole text into lines again: seconds for these.
  { name: '120,000 comment lines, then 400 block texts not indented', file: 'many-lines-block-text.yaml', content: `${'#\n'.repeat(120_000)}${Array.from({ length: 400 }, (_, i) => `k${i}: |\nx${i}\n`).join('')}`, codes: ['yaml/syntax'], line: 120_002 },
  { name: '120,000 comment lines, then 400 keys beside lists', file: 'many-lines-key-list.yaml', content: `${'#\n'.repeat(120_000)}${Array.from({ length: 400 }, (_, i) => `k${i}:\n  - a\n  b${i}: c\n`).join('')}`, codes: ['yaml/syntax'], line: 120_003 },
  { name: '30,000 deep list items, then 300 keys lined up with nothing', file: 'many-lines-deep-block.yaml', content: `k:\n${'    - a\n'.repeat(30_000)}${Array.from({ length: 300 }, (_, i) => `  b${i}: c\n`).join('')}`, codes: ['yaml/syntax'], line: 30_002 },
  { name: "500,000 '*' before an alias ending in ':'", file: 'alias-colon-stars.yaml', content: `name: x\n# ${'*'.repeat(500_000)}\nuser_id: *a:\n`, codes: ['yaml/syntax'], line: 3 },

  // Nesting.
  { name: '10,000 levels of flow sequences', file: 'deep-flow-seq.yaml', content: `${'['.repeat(10_000)}${']'.repeat(10_000)}\n`, codes: ['input/too-deep'], line: 1 },
  { name: '10,000 levels of flow mappings', file: 'deep-flow-map.yaml', content: `${'{a: '.repeat(10_000)}1${'}'.repeat(10_000)}\n`, codes: ['input/too-deep'], line: 1 },
  { name: '10,000 levels of block sequences', file: 'deep-block-seq.yaml', content: `${'- '.repeat(10_000)}x\n`, codes: ['input/too-deep'], line: 1 },
  { name: '10,000 levels of explicit keys', file: 'deep-explicit.yaml', content: `${'? '.repeat(10_000)}x\n`, codes: ['input/too-deep'], line: 1 },
  {
    name: '1,000 levels of indented block mappings',
    file: 'deep-block-map.yaml',
    content: Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n'),
    codes: ['input/too-deep'],
    line: 65,
  },
  { name: '10,000 unclosed brackets (no end at all)', file: 'deep-unclosed.yaml', content: '['.repeat(10_000), codes: ['input/too-deep'], line: 1 },
  { name: '100,000 levels, mixed flow', file: 'deep-mixed.yaml', content: `name: x\nv: ${'[{a: '.repeat(50_000)}\n`, codes: ['input/too-deep'], line: 2 },
  {
    name: 'two 10,000-level files in one run (Node 20 would abort V8 on the second)',
    file: 'deep-twice-a.yaml',
    content: '['.repeat(10_000),
    more: ['deep-twice-b.yaml'],
    codes: ['input/too-deep'],
    line: 1,
  },
  { name: 'deep documents twice in one file', file: 'deep-multi.yaml', content: `name: ok\n---\n${'['.repeat(10_000)}\n---\n${'{'.repeat(10_000)}\n`, codes: ['input/too-deep'], line: 3 },

  // Size.
  { name: 'a 50 MB file', file: 'fifty-mb.yaml', content: writeHuge, codes: ['input/too-large'], line: 1 },
  { name: 'one byte over 1 MiB', file: 'one-mib-plus.yaml', content: `name: x\nnote: ${'n'.repeat(1024 * 1024 - 14)}\n`, codes: ['input/too-large'], line: 1 },
  { name: '2,000 documents', file: 'many-docs.yaml', content: 'name: x\n---\n'.repeat(2000), codes: ['input/too-large'] },
  { name: '262,000 empty documents', file: 'many-empty-docs.yaml', content: '---\n'.repeat(262_000), codes: ['input/too-large'] },
  { name: '500,000 flow items in 1 MiB', file: 'dense-flow.yaml', content: `name: x\ntags: [${'a,'.repeat(500_000)}a]\n`, codes: ['input/too-large'], line: 2 },
  { name: '80,000 keys in 1 MiB', file: 'dense-keys.yaml', content: Array.from({ length: 80_000 }, (_, i) => `k${String(i).padStart(7, '0')}: v`).join('\n'), codes: ['input/too-large'] },
  { name: '1 MiB of syntax errors', file: 'error-stream.yaml', content: '- a\nb: 1\n'.repeat(116_000), codes: ['yaml/syntax'], line: 2 },

  // Binary.
  { name: 'a PNG image', file: 'image.yaml', content: bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]), codes: ['input/binary'], line: 2 },
  { name: 'a gzip stream', file: 'archive.yaml', content: bytes([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0, 0x03]), codes: ['input/binary'], line: 1 },
  { name: 'an ELF executable header', file: 'program.yaml', content: bytes([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0]), codes: ['input/binary'], line: 1 },
  { name: '64 KiB of random bytes', file: 'random.yaml', content: noise(64 * 1024, 7), codes: ['input/binary', 'input/invalid-utf8', 'input/utf16'] },
  { name: '4 KiB of NUL bytes', file: 'zeros.yaml', content: Buffer.alloc(4096), codes: ['input/binary'], line: 1 },
  { name: 'a NUL byte at the very end', file: 'nul-end.yaml', content: 'name: x\n\0', codes: ['input/binary'], line: 2 },
  { name: 'an escape sequence (terminal colours)', file: 'ansi.yaml', content: 'name: \x1b[31mred\x1b[0m\n', codes: ['input/binary'], line: 1 },
  { name: 'a form feed', file: 'form-feed.yaml', content: 'name: x\n\x0c\nuser_id: y\n', codes: ['input/binary'], line: 2 },
  { name: 'a DEL character', file: 'del.yaml', content: 'name: x\x7f\n', codes: ['input/binary'], line: 1 },

  // Encodings.
  { name: 'UTF-16 LE with a byte order mark', file: 'utf16le-bom.yaml', content: utf16('name: x\n', true, true), codes: ['input/utf16'], line: 1 },
  { name: 'UTF-16 BE with a byte order mark', file: 'utf16be-bom.yaml', content: utf16('name: x\n', false, true), codes: ['input/utf16'], line: 1 },
  { name: 'UTF-16 LE without a byte order mark', file: 'utf16le.yaml', content: utf16('name: x\n', true, false), codes: ['input/utf16'], line: 1 },
  { name: 'UTF-16 BE without a byte order mark', file: 'utf16be.yaml', content: utf16('name: x\n', false, false), codes: ['input/utf16'], line: 1 },
  { name: 'UTF-32 LE with a byte order mark', file: 'utf32le.yaml', content: bytes([0xff, 0xfe, 0, 0, 0x6e, 0, 0, 0]), codes: ['input/utf16'], line: 1 },
  { name: 'UTF-32 BE with a byte order mark', file: 'utf32be.yaml', content: bytes([0, 0, 0xfe, 0xff, 0, 0, 0, 0x6e]), codes: ['input/utf16'], line: 1 },
  { name: 'Latin-1 text', file: 'latin1.yaml', content: bytes('name: caf', [0xe9], '\n'), codes: ['input/invalid-utf8'], line: 1 },
  { name: 'a lone continuation byte', file: 'utf8-continuation.yaml', content: bytes('name: x\nuser_id: ', [0x80], '\n'), codes: ['input/invalid-utf8'], line: 2 },
  { name: 'an overlong encoding', file: 'utf8-overlong.yaml', content: bytes('name: ', [0xc0, 0xaf], '\n'), codes: ['input/invalid-utf8'], line: 1 },
  { name: 'an encoded surrogate', file: 'utf8-surrogate.yaml', content: bytes('name: ', [0xed, 0xa0, 0x80], '\n'), codes: ['input/invalid-utf8'], line: 1 },
  { name: 'a byte that never occurs in UTF-8', file: 'utf8-f8.yaml', content: bytes('a: 1\nb: 2\nname: ', [0xf8, 0x88, 0x80, 0x80, 0x80], '\n'), codes: ['input/invalid-utf8'], line: 3 },
  { name: 'a sequence cut at the end of the file', file: 'utf8-truncated.yaml', content: bytes('name: x\nuser_id: ', [0xe2, 0x82]), codes: ['input/invalid-utf8'], line: 2 },
  { name: 'a BOM followed by invalid UTF-8', file: 'bom-bad.yaml', content: bytes([0xef, 0xbb, 0xbf], 'name: ', [0xff], '\n'), codes: ['input/invalid-utf8'], line: 1 },

  // YAML that other tools might run, merge, or read differently.
  { name: 'a JavaScript function tag', file: 'tag-js.yaml', content: 'name: x\nuser_id: !!js/function "function () { return process.exit(9) }"\n', codes: ['yaml/unknown-tag'], line: 2 },
  { name: 'a Python object/apply tag', file: 'tag-python.yaml', content: 'name: x\nuser_id: !!python/object/apply:os.system ["touch /tmp/pwned"]\n', codes: ['yaml/unknown-tag'], line: 2 },
  { name: 'a Ruby object tag', file: 'tag-ruby.yaml', content: 'name: x\nuser_id: !ruby/object:Gem::Installer\n  i: x\n', codes: ['yaml/unknown-tag'], line: 2 },
  { name: 'an !include tag', file: 'tag-include.yaml', content: 'name: x\ntools: !include /etc/passwd\n', codes: ['yaml/unknown-tag'], line: 2 },
  { name: 'a !!binary value', file: 'tag-binary.yaml', content: 'name: x\nuser_id: !!binary aGVsbG8=\n', codes: ['yaml/unknown-tag'], line: 2 },
  { name: 'a !!set (YAML 1.1 only)', file: 'tag-set.yaml', content: 'name: x\ntoolkits: !!set {gmail, slack}\n', codes: ['yaml/unknown-tag'], line: 2 },
  { name: 'a merge key, literal under YAML 1.2', file: 'merge-key.yaml', content: 'base: &b {workbench: {enable: false}}\nname: x\n<<: *b\n', codes: ['schema/unknown-key'], line: 1 },
  { name: 'a __proto__ key', file: 'proto.yaml', content: 'name: x\n__proto__: {polluted: true}\n', codes: ['schema/unknown-key', 'schema/forbidden-key'], line: 2 },
  { name: 'a constructor key', file: 'constructor.yaml', content: 'name: x\nconstructor: {prototype: {polluted: true}}\n', codes: ['schema/unknown-key', 'schema/forbidden-key'], line: 2 },
  { name: 'a collection as a key', file: 'complex-key.yaml', content: 'name: x\n? [gmail, slack]\n: enable\n', codes: ['yaml/non-string-key'], line: 2 },
  { name: 'an implicit key over 1024 characters', file: 'long-key.yaml', content: `name: x\n${'k'.repeat(1100)}: 1\n`, codes: ['yaml/syntax'], line: 2 },
  { name: 'duplicate keys, CRLF line ends', file: 'dup-crlf.yaml', content: 'name: x\r\nuser_id: a\r\ntoolkits: [gmail]\r\nuser_id: b\r\n', codes: ['yaml/duplicate-key'], line: 4 },
  { name: 'duplicate keys, quoted and plain', file: 'dup-quoted.yaml', content: 'name: x\n"name": y\n', codes: ['yaml/duplicate-key'], line: 2 },
  { name: 'duplicate keys in a flow mapping', file: 'dup-flow.yaml', content: 'name: x\nworkbench: {enable: true, enable: false}\n', codes: ['yaml/duplicate-key'], line: 2 },
  { name: 'old Mac line ends (CR only)', file: 'cr-only.yaml', content: 'name: a\rname: b\r', codes: ['yaml/syntax', 'yaml/duplicate-key', 'schema/pattern', 'schema/type'] },
  { name: 'a document end marker followed by text', file: 'doc-end-garbage.yaml', content: 'name: x\n... garbage\n', codes: ['yaml/syntax'], line: 2 },
  { name: 'JSON with a missing comma', file: 'json.yaml', content: '{"name": "x" "user_id": "y"}\n', codes: ['yaml/syntax'], line: 1 },
  { name: 'a scalar instead of a mapping', file: 'scalar-root.yaml', content: 'just a string\n', codes: ['schema/type'], line: 1 },
  { name: 'a list instead of a mapping', file: 'list-root.yaml', content: '- name: x\n- name: y\n', codes: ['schema/type'], line: 1 },
  { name: 'a one-line manifest of 1 MiB', file: 'long-line.yaml', content: `name: ${'x'.repeat(1024 * 1024 - 16)}\n`, codes: ['schema/pattern', 'schema/limit'], line: 1 },
  { name: 'a quoted string that never ends', file: 'endless-quote.yaml', content: `name: "${'x'.repeat(500_000)}\n`, codes: ['yaml/syntax'] },
  { name: 'a block scalar with a bad indentation indicator', file: 'block-indicator.yaml', content: 'name: x\nuser_id: |0\n  text\n', codes: ['yaml/syntax'], line: 2 },
  { name: 'an undefined tag handle', file: 'tag-handle.yaml', content: 'name: x\nuser_id: !e!thing y\n', codes: ['yaml/syntax', 'yaml/unknown-tag'], line: 2 },
  { name: 'an anchor with nothing after it, then an alias key', file: 'anchor-key.yaml', content: 'name: x\n*a : 1\n', codes: ['yaml/syntax'], line: 2 },
  { name: 'an unclosed ${ at the end of a value', file: 'env-unclosed.yaml', content: 'name: x\nuser_id: "user-${USER"\n', codes: ['env/bad-reference'], line: 2 },
  { name: 'a variable that is not set in name:', file: 'env-name.yaml', content: 'name: ${SESSIONCTL_BAD_INPUT_UNSET}\nuser_id: u\n', codes: ['env/unset-variable'], line: 1 },
];

// ---------------------------------------------------------------------------------------------

export const generated: Array<[string, Case[]]> = [
  ['a syntax or encoding fault at every line', [...lineFaults(example('support-agent.yaml'), 'support'), ...lineFaults(example('ci-bot.yaml'), 'ci'), ...lineFaults(example('readonly-analyst.yaml'), 'analyst')]],
  [
    'a wrong type at every field',
    [
      ...wrongTypes(example('support-agent.yaml'), 'support'),
      ...wrongTypes(example('ci-bot.yaml'), 'ci'),
      ...wrongTypes(example('readonly-analyst.yaml'), 'analyst'),
      ...wrongTypes(example('team.yaml'), 'team'),
      ...wrongTypes(example('custom-tools.yaml'), 'custom'),
    ],
  ],
  ['hand-picked hostile inputs', handPicked],
];

/** Writes every case's files into `dir`. */
export async function writeCases(dir: string): Promise<void> {
  for (const [, cases] of generated) {
    for (const c of cases) {
      const path = join(dir, c.file);
      if (typeof c.content === 'function') await c.content(path);
      else await writeFile(path, c.content);
      for (const more of c.more ?? []) await writeFile(join(dir, more), typeof c.content === 'function' ? '' : c.content);
    }
  }
}
