import { describe, expect, it } from 'vitest';
import { declaredName, parseManifestText } from '../../../src/manifest/parse.js';

/*
 * The loader's own findings (not yaml's words), held to code, severity, message, hint and place:
 * empty documents and their labels in a stream, the alias limits, the %YAML directive, names.
 */

const parse = (text: string, env: Record<string, string> = {}) => parseManifestText(text, '/work/m.yaml', { env });
const found = (text: string) =>
  parse(text).diagnostics.map((d) => [d.code, d.severity, d.message, d.hint, d.file, d.range === undefined ? undefined : `${d.range.start.line}:${d.range.start.col}-${d.range.end.line}:${d.range.end.col}`]);

describe('empty documents', () => {
  it('alone: the document; in a stream: its number, at its start', () => {
    expect(found('# only a comment\n')).toStrictEqual([['yaml/empty', 'warning', 'the file holds no YAML document', undefined, '/work/m.yaml', '1:1-1:1']]);
    expect(found('---\n')).toStrictEqual([['yaml/empty', 'warning', 'the document is empty', undefined, '/work/m.yaml', '1:1-1:1']]);
    expect(found('user_id: a\n---\n---\nuser_id: c\n')).toStrictEqual([['yaml/empty', 'warning', 'document 2 is empty', undefined, '/work/m.yaml', '2:1-2:1']]);
  });

  it('a document of only a tag or an anchor is not empty', () => {
    expect(parse('!!null\n').diagnostics.map((d) => d.code)).toStrictEqual([]);
    expect(parse('&a\n').documents).toHaveLength(1);
  });
});

describe('the alias limits', () => {
  const aliases = (n: number) => `a: &x 1\nb: [${Array.from({ length: n }, () => '*x').join(', ')}]\n`;

  it('an anchored value repeated 31 times is read (yaml alone would allow 100); two anchors of 20 each too', () => {
    const r = parse(aliases(31));
    expect(r.diagnostics).toStrictEqual([]);
    expect((r.documents[0]!.data as { b: number[] }).b).toHaveLength(31);
    const two = `a: &x 1\nc: &y 2\nb: [${Array.from({ length: 20 }, () => '*x, *y').join(', ')}]\n`;
    expect(parse(two).diagnostics).toStrictEqual([]);
  });

  it('32 times, one error at the first alias, naming the document in a stream', () => {
    expect(found(aliases(32))).toStrictEqual([
      ['yaml/excessive-aliases', 'error', 'the document repeats one anchored value 32 times or more through aliases (the aliases inside a repeated value count again)', 'write the values out, or share fewer of them through anchors', '/work/m.yaml', '2:5-2:7'],
    ]);
    expect(found(`user_id: a\n---\n${aliases(32)}`).map((f) => f[2])).toStrictEqual(['document 2 repeats one anchored value 32 times or more through aliases (the aliases inside a repeated value count again)']);
  });

  it('an expansion past four times the size limit is refused at the first alias', () => {
    const big = 'x'.repeat(1000);
    const text = `a: &x [${Array.from({ length: 30 }, () => big).join(', ')}]\nb: [${Array.from({ length: 30 }, () => '*x').join(', ')}]\n`;
    const r = parseManifestText(text, '/work/m.yaml', { env: {}, maxFileBytes: 64 * 1024 });
    expect(r.diagnostics.map((d) => [d.code, d.message, d.range?.start])).toStrictEqual([
      ['yaml/excessive-aliases', 'the document expands through aliases to more than 4 times the file size limit', { line: 2, col: 5 }],
    ]);
  });
});

describe('the %YAML directive', () => {
  it('another version is a warning at the directive, with or without extra spaces', () => {
    expect(found('%YAML   1.1\n---\nuser_id: a\n')).toStrictEqual([
      ['yaml/directive', 'warning', 'the file asks for YAML 1.1; manifests are always read as YAML 1.2', 'remove the %YAML directive; quote values such as yes, on or 0755 that YAML 1.1 would read differently', '/work/m.yaml', '1:1-1:12'],
    ]);
    expect(found('%YAML 1.2\n---\nuser_id: a\n')).toStrictEqual([]);
  });
});

describe('names', () => {
  it.each([
    ['a string', { name: 'x' }, 'x'],
    ['empty', { name: '' }, undefined],
    ['a number', { name: 5 }, undefined],
    ['absent', { user_id: 'u' }, undefined],
    ['inherited only', Object.create({ name: 'proto' }) as object, undefined],
    ['not a mapping', ['name'], undefined],
  ])('declaredName of %s', (_what, data, name) => {
    expect(declaredName(data)).toBe(name);
  });

  it('a name whose variable is not set gives way to the file stem; the second document gets #2', () => {
    const r = parse('name: ${NOPE}\nuser_id: a\n---\nuser_id: b\n');
    expect(r.documents.map((d) => [d.name, d.nameDeclared])).toStrictEqual([
      ['m', true],
      ['m#2', false],
    ]);
    expect(parse('name: ${N}\nuser_id: a\n', { N: 'set' }).documents[0]!.name).toBe('set');
  });
});
