import { describe, expect, it } from 'vitest';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import { parseManifestText, type ParseOptions } from '../../../src/manifest/load.js';
import { yaml } from './yaml-text.js';

const FILE = '/m/hazard.yaml';
const parse = (input: string | Uint8Array, options: Partial<ParseOptions> = {}) => parseManifestText(input, FILE, { env: {}, ...options });
const where = (d: Diagnostic) => [d.code, d.severity, d.range?.start.line, d.range?.start.col];

describe('bytes that are not a UTF-8 text', () => {
  it.each([
    ['a UTF-16 LE byte order mark', [0xff, 0xfe, 0x61, 0x00], 'input/utf16'],
    ['a UTF-16 BE byte order mark', [0xfe, 0xff, 0x00, 0x61], 'input/utf16'],
    ['UTF-16 LE without a mark', [0x61, 0x00, 0x3a, 0x00, 0x20, 0x00], 'input/utf16'],
    ['a UTF-32 LE byte order mark', [0xff, 0xfe, 0x00, 0x00, 0x61, 0, 0, 0], 'input/utf16'],
    ['a UTF-32 BE byte order mark', [0x00, 0x00, 0xfe, 0xff, 0, 0, 0, 0x61], 'input/utf16'],
  ])('%s is input/utf16 at 1:1', (_name, bytes, code) => {
    const r = parse(Uint8Array.from(bytes));
    expect(r.diagnostics.map(where)).toEqual([[code, 'error', 1, 1]]);
    expect(r.text).toBeUndefined();
  });

  it('a NUL byte is input/binary at its line and column', () => {
    const r = parse(Buffer.from('name: ok\nuser_id: a\0b\n'));
    expect(r.diagnostics.map(where)).toEqual([['input/binary', 'error', 2, 11]]);
  });

  it('a PNG header is input/binary', () => {
    const r = parse(Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]));
    expect(r.diagnostics.map((d) => d.code)).toEqual(['input/binary']);
  });

  it('a control character is input/binary', () => {
    expect(parse('a: x\nb: \x1b[31mred\n').diagnostics.map(where)).toEqual([['input/binary', 'error', 2, 4]]);
  });

  it('invalid UTF-8 is input/invalid-utf8 at the bad byte', () => {
    const bytes = Buffer.concat([Buffer.from('name: café\nb: '), Buffer.from([0xc3, 0x28]), Buffer.from('\n')]);
    expect(parse(bytes).diagnostics.map(where)).toEqual([['input/invalid-utf8', 'error', 2, 4]]);
  });

  it('a truncated multi-byte sequence at the end is invalid UTF-8', () => {
    expect(parse(Buffer.from([0x61, 0x3a, 0x20, 0xe2, 0x82])).diagnostics.map((d) => d.code)).toEqual(['input/invalid-utf8']);
  });

  it('a UTF-8 byte order mark is dropped without a finding, positions unchanged', () => {
    const r = parse(Buffer.from('\ufeffname: x\n'));
    expect(r.diagnostics).toEqual([]);
    expect(r.text).toBe('name: x\n');
    expect(r.documents[0]?.locate('/name').start).toEqual({ line: 1, col: 7 });
  });

  it('a file over the size limit is input/too-large before anything else', () => {
    const r = parse(Buffer.alloc(2048, 0), { maxFileBytes: 1024 });
    expect(r.diagnostics.map(where)).toEqual([['input/too-large', 'error', 1, 1]]);
  });

  it('a string over the size limit counts its UTF-8 bytes', () => {
    expect(parse(`a: ${'é'.repeat(600)}\n`, { maxFileBytes: 1024 }).diagnostics.map((d) => d.code)).toEqual(['input/too-large']);
    expect(parse(`a: ${'e'.repeat(600)}\n`, { maxFileBytes: 1024 }).diagnostics).toEqual([]);
  });
});

describe('nesting depth, checked before composing', () => {
  it.each([
    ['flow sequences', '['.repeat(10_000), 1, 65],
    ['flow mappings', '{a: '.repeat(10_000), 1, 257],
    ['block sequences', `${'- '.repeat(10_000)}x\n`, 1, 129],
    ['block mappings', Array.from({ length: 70 }, (_, i) => `${' '.repeat(i)}k:`).join('\n'), 65, 65],
  ])('10,000 levels of %s end in input/too-deep at the first level past 64', (_name, text, line, col) => {
    expect(parse(text).diagnostics.map(where)).toEqual([['input/too-deep', 'error', line, col]]);
  });

  it('two deep documents in one process are both refused (Node 20 would abort V8 in the composer)', () => {
    for (let i = 0; i < 3; i++) expect(parse('['.repeat(50_000)).diagnostics.map((d) => d.code)).toEqual(['input/too-deep']);
  });

  it('deep flow nesting past the token budget is still reported as too deep, where it passes the limit', () => {
    expect(parse(`v: ${'[{a: '.repeat(60_000)}\n`).diagnostics.map(where)).toEqual([['input/too-deep', 'error', 1, 4 + 5 * 32]]);
  });

  it('brackets inside quotes do not count', () => {
    expect(parse(`a: "${'['.repeat(500)}"\n`).diagnostics).toEqual([]);
  });

  it('the limit is an option', () => {
    const text = 'a: {b: {c: [1]}}\n';
    expect(parse(text, { maxDepth: 3 }).diagnostics.map((d) => d.code)).toEqual(['input/too-deep']);
    expect(parse(text, { maxDepth: 4 }).diagnostics).toEqual([]);
  });
});

describe('YAML hazards', () => {
  it('a duplicate key names both places, also when one key is quoted', () => {
    const r = parse(yaml`
      tools:
        github: { enable: [A] }
        "github": { disable: [B] }
    `);
    expect(r.diagnostics.map(where)).toEqual([['yaml/duplicate-key', 'error', 3, 3]]);
    expect(r.diagnostics[0]?.related?.[0]?.range?.start).toEqual({ line: 2, col: 3 });
    expect(r.documents).toEqual([]);
  });

  it.each([
    ['a block mapping, the key three times', 'a: 1\nb: 2\na: 3\na: 4\n', [['yaml/duplicate-key', 'error', 3, 1], ['yaml/duplicate-key', 'error', 4, 1]]],
    ['a flow mapping', 'x: {a: 1, a: 2}\n', [['yaml/duplicate-key', 'error', 1, 11]]],
    ['a flow mapping in a list', 'x:\n  - {"a": 1, a: 2}\n', [['yaml/duplicate-key', 'error', 2, 14]]],
  ])('a repeated key in %s is one finding per repeat, ours (yaml reports none with uniqueKeys off)', (_name, text, expected) => {
    expect(parse(text).diagnostics.map(where)).toEqual(expected);
  });

  it('1: and "1": are the same key', () => {
    expect(parse('1: a\n"1": b\n').diagnostics.map(where)).toEqual([['yaml/duplicate-key', 'error', 2, 1]]);
  });

  it('a tab used as indentation is yaml/tab-indent', () => {
    expect(parse('a:\n\tb: 1\n').diagnostics.map(where)).toEqual([['yaml/tab-indent', 'error', 2, 1]]);
  });

  it('tabs elsewhere are fine', () => {
    expect(parse('a:\tb\nc: "x\ty"\n').diagnostics).toEqual([]);
  });

  it.each([
    ['an unknown local tag', 'a: !foo x\n', 1, 4],
    ['a code tag', 'a: !!js/function "function () {}"\n', 1, 4],
    ['a python object tag', 'a: !!python/object:os.system ls\n', 1, 4],
  ])('%s is yaml/unknown-tag, and nothing runs', (_name, text, line, col) => {
    const r = parse(text);
    expect(r.diagnostics.map(where)).toEqual([['yaml/unknown-tag', 'error', line, col]]);
    expect(r.documents).toEqual([]);
  });

  it.each([
    ['!!binary', 'a: !!binary aGVsbG8=\n'],
    ['!!set', 'a: !!set {x, y}\n'],
    ['!!omap', 'a: !!omap [x: 1]\n'],
    ['!!timestamp', 'a: !!timestamp 2001-12-14\n'],
  ])('the YAML 1.1 type %s is yaml/unknown-tag, not a Set, Map, Date or bytes', (_name, text) => {
    expect(parse(text).diagnostics.map(where)).toEqual([['yaml/unknown-tag', 'error', 1, 4]]);
  });

  it('a collection as a key is yaml/non-string-key', () => {
    expect(parse('? [a, b]\n: c\n').diagnostics.map(where)).toEqual([['yaml/non-string-key', 'error', 1, 3]]);
  });

  it('%YAML 1.1 is a yaml/directive warning, and the document is still read as YAML 1.2', () => {
    const r = parse('%YAML 1.1\n---\nname: x\nflag: yes\nmode: 0755\n');
    expect(r.diagnostics.map(where)).toEqual([['yaml/directive', 'warning', 1, 1]]);
    expect(r.documents[0]?.data).toEqual({ name: 'x', flag: 'yes', mode: 755 });
  });

  it('an unsupported %YAML version is one yaml/directive warning', () => {
    expect(parse('%YAML 1.3\n---\na: 1\n').diagnostics.map(where)).toEqual([['yaml/directive', 'warning', 1, 1]]);
  });

  it('%YAML 1.2 is fine', () => {
    expect(parse('%YAML 1.2\n---\na: 1\n').diagnostics).toEqual([]);
  });

  it('merge keys stay literal keys under YAML 1.2', () => {
    expect(parse('base: &b {a: 1}\nx:\n  <<: *b\n').documents[0]?.data).toEqual({ base: { a: 1 }, x: { '<<': { a: 1 } } });
  });

  it.each([
    ['an empty file', '', 1, 1],
    ['a comment-only file', '# nothing here\n# at all\n', 1, 1],
    ['whitespace only', '\n\n   \n', 1, 1],
  ])('%s is a yaml/empty warning', (_name, text, line, col) => {
    const r = parse(text);
    expect(r.diagnostics.map(where)).toEqual([['yaml/empty', 'warning', line, col]]);
    expect(r.documents).toEqual([]);
  });

  it('an explicit null document is not "empty": the schema will say what is wrong', () => {
    const r = parse('~\n');
    expect(r.diagnostics).toEqual([]);
    expect(r.documents[0]?.data).toBeNull();
  });

  it.each([
    // Shown at the bracket that is never closed, where the fix goes (not where the parser gave up).
    ['an unclosed flow sequence', 'a: [1, 2\nb: 3\n', 1],
    ['an unclosed quote', 'a: "x\n', 2],
    ['a compact nested mapping', 'a: b: c\n', 1],
    ['a sequence then a mapping', '- a\nb: 1\n', 2],
    ['a bad escape', 'a: "\\q"\n', 1],
    ['bad indentation', 'a:\n  b: 1\n c: 2\n', 3],
  ])('%s is yaml/syntax at its line', (_name, text, line) => {
    const r = parse(text);
    expect(r.documents).toEqual([]);
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics.every((d) => d.code === 'yaml/syntax' && d.severity === 'error')).toBe(true);
    expect(r.diagnostics[0]?.range?.start.line).toBe(line);
    expect(r.diagnostics[0]?.message).toMatch(/\(yaml [A-Z_]+\)$/);
  });

  it('a stream of thousands of syntax errors stops early, at the first one', () => {
    const r = parse('- a\nb: 1\n'.repeat(2000));
    expect(r.diagnostics.map(where)).toEqual([['yaml/syntax', 'error', 2, 2]]);
    expect(r.diagnostics[0]?.message).toMatch(/more than 100 syntax errors/);
  });

  it('findings inside one document are capped with a count of the rest', () => {
    const r = parse(Array.from({ length: 300 }, (_, i) => `k${i}: !x v`).join('\n'));
    expect(r.diagnostics.length).toBe(101);
    expect(r.diagnostics[100]?.message).toBe('200 more problems in this file are not shown');
  });

  it('more than 1,000 documents are input/too-large at the start of the 1,001st', () => {
    const r = parse('a: 1\n---\n'.repeat(1500));
    expect(r.diagnostics.map(where)).toEqual([['input/too-large', 'error', 2000, 1]]);
  });

  it('1,000 documents are fine', () => {
    const r = parse(Array.from({ length: 1000 }, (_, i) => `name: n${i}\n`).join('---\n'));
    expect(r.diagnostics).toEqual([]);
    expect(r.documents).toHaveLength(1000);
  });

  it('a dense file past the token budget is input/too-large where the budget ran out', () => {
    const r = parse(`x: [${'1,'.repeat(200_000)}1]\n`);
    expect(r.diagnostics.map((d) => [d.code, d.range?.start.line])).toEqual([['input/too-large', 1]]);
    expect(r.diagnostics[0]?.range?.start.col).toBeGreaterThan(100_000);
  });
});

describe('aliases', () => {
  const laughs = yaml`
    a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]
    b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
    c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
    d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]
    e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]
    f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]
    g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]
    h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]
    i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]
  `;

  it('a billion laughs is yaml/excessive-aliases at the first alias', () => {
    const r = parse(laughs);
    expect(r.diagnostics.map(where)).toEqual([['yaml/excessive-aliases', 'error', 2, 8]]);
    expect(r.documents).toEqual([]);
  });

  it('a few aliases of a large scalar that would expand past the limit are refused', () => {
    const big = 'x'.repeat(60_000);
    const text = `a: &a ${big}\n${Array.from({ length: 30 }, (_, i) => `k${i}: *a`).join('\n')}\n`;
    const r = parse(text, { maxFileBytes: 256 * 1024 });
    expect(r.diagnostics.map(where)).toEqual([['yaml/excessive-aliases', 'error', 2, 5]]);
  });

  it('ordinary sharing works, and shared values are copies', () => {
    const r = parse('enable: &tk [gmail, slack]\nagain: *tk\n');
    expect(r.diagnostics).toEqual([]);
    const data = r.documents[0]?.data as { enable: string[]; again: string[] };
    expect(data.again).toEqual(['gmail', 'slack']);
    expect(data.again).not.toBe(data.enable);
  });

  it('an alias to a missing anchor is located', () => {
    expect(parse('a: 1\nb: *nope\n').diagnostics.map(where)).toEqual([['yaml/syntax', 'error', 2, 4]]);
  });

  it('an alias inside its own anchor is located, not an endless value', () => {
    expect(parse('a: &a [1, *a]\n').diagnostics.map(where)).toEqual([['yaml/syntax', 'error', 1, 11]]);
  });

  it('a __proto__ key stays an own property', () => {
    const data = parse('__proto__: {polluted: true}\nx: &x {a: 1}\ny: *x\n').documents[0]?.data as Record<string, unknown>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__', 'x', 'y']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
