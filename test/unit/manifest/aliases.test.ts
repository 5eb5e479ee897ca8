import { describe, expect, it } from 'vitest';
import { Document, parseAllDocuments, parseDocument, visit, type Scalar } from 'yaml';
import { checkAliases, copyWithin, ExpansionTooLarge, MAX_ALIAS_COUNT, MAX_ALIASES_IN_DOCUMENT } from '../../../src/manifest/aliases.js';
import { SourceText } from '../../../src/manifest/source.js';

/** aliases.ts on its own: what checkAliases finds in a document yaml composed, and what copyWithin copies and charges. */
const check = (text: string, doc: Document = parseDocument(text)) => checkAliases(doc, new SourceText(text), 'm.yaml');
const at = (line: number, col: number, endLine: number, endCol: number) => ({ start: { line, col }, end: { line: endLine, col: endCol } });

describe('checkAliases', () => {
  it('an alias to no anchor: the whole finding, and the first alias', () => {
    expect(check('a: 1\nb: *nope\n')).toEqual({
      diagnostics: [
        {
          code: 'yaml/syntax',
          severity: 'error',
          message: 'alias *nope refers to no anchor defined before it (yaml BAD_ALIAS)',
          file: 'm.yaml',
          range: at(2, 4, 2, 9),
          hint: 'define &nope on an earlier node',
        },
      ],
      firstAlias: at(2, 4, 2, 9),
    });
  });

  it('an alias inside the node it refers to: the whole finding', () => {
    expect(check('a: &a [1, *a]\n').diagnostics).toStrictEqual([
      { code: 'yaml/syntax', severity: 'error', message: 'alias *a is inside the node it refers to, which makes an endless value (yaml BAD_ALIAS)', file: 'm.yaml', range: at(1, 11, 1, 13) },
    ]);
  });

  it('an alias with no name is left to yaml (its own BAD_ALIAS), but is the first alias', () => {
    expect(check('a: &a 1\nb: *\n')).toEqual({ diagnostics: [], firstAlias: at(2, 4, 2, 5) });
  });

  it('no alias: nothing, and no first alias', () => {
    expect(check('a: &a 1\nb: 2\n')).toEqual({ diagnostics: [], firstAlias: undefined });
  });

  const aliases = (n: number): string => Array.from({ length: n }, (_, i) => `k${i}: *a`).join('\n');

  it(`looks at ${MAX_ALIAS_COUNT + 1} aliases: one past the limit, enough to refuse the document for its count`, () => {
    const text = `a: &a 1\n${aliases(MAX_ALIAS_COUNT)}\nz: *nope\n`;
    expect(check(text).diagnostics.map((d) => [d.message, d.range?.start.line])).toEqual([['alias *nope refers to no anchor defined before it (yaml BAD_ALIAS)', MAX_ALIAS_COUNT + 2]]);
  });

  it('checks every alias, however many: yaml limits the uses of each anchor, not their sum', () => {
    const many = `a: &a 1\nb: &b 2\nl: [${Array.from({ length: MAX_ALIAS_COUNT }, (_, i) => (i % 2 === 0 ? '*a' : '*b')).join(', ')}]\n`;
    expect(check(`${many}z: *nope\n`).diagnostics.map((d) => d.message)).toEqual(['alias *nope refers to no anchor defined before it (yaml BAD_ALIAS)']);
    expect(check(`${many}y: &y [1, *y]\n`).diagnostics.map((d) => d.message)).toEqual(['alias *y is inside the node it refers to, which makes an endless value (yaml BAD_ALIAS)']);
  });

  it(`holds at most ${MAX_ALIASES_IN_DOCUMENT} aliases in all, each anchor used once; the next is refused where it stands, and nothing after it is looked at`, () => {
    const spread = (n: number) => `l: [${Array.from({ length: n }, (_, i) => `&a${i} ${i}`).join(', ')}]\nm: [${Array.from({ length: n }, (_, i) => `*a${i}`).join(', ')}]\n`;
    expect(check(spread(MAX_ALIASES_IN_DOCUMENT)).diagnostics).toEqual([]);
    const text = `${spread(MAX_ALIASES_IN_DOCUMENT + 1)}z: *nope\n`;
    const r = checkAliases(parseDocument(text), new SourceText(text), 'm.yaml', 'document 2');
    const col = text.split('\n')[1]!.indexOf(`*a${MAX_ALIASES_IN_DOCUMENT}`) + 1;
    expect(r.diagnostics).toEqual([
      {
        code: 'yaml/excessive-aliases',
        severity: 'error',
        message: 'document 2 holds more than 1,000 aliases',
        file: 'm.yaml',
        range: at(2, col, 2, col + `*a${MAX_ALIASES_IN_DOCUMENT}`.length),
        hint: 'write the values out, or share fewer of them through anchors',
      },
    ]);
    expect(check(`${spread(MAX_ALIASES_IN_DOCUMENT + 1)}`).diagnostics.map((d) => d.message)).toEqual(['the document holds more than 1,000 aliases']);
  });

  it('an alias refers to the last anchor of its name before it', () => {
    const r = check('a: &x [1]\nb: *x\nc: &x [2, *x]\nd: *x\n');
    expect(r.diagnostics.map((d) => [d.message, d.range?.start])).toEqual([['alias *x is inside the node it refers to, which makes an endless value (yaml BAD_ALIAS)', { line: 3, col: 11 }]]);
  });

  /** The document's aliases without the place yaml gave them, as in a document made by a program. */
  const withoutPlaces = (doc: Document): Document => {
    visit(doc, {
      Alias(_key, alias) {
        (alias as { range?: unknown }).range = undefined;
      },
    });
    return doc;
  };

  it('an alias without a place is shown at the start of its document', () => {
    const text = 'a: 1\n---\nb: &x 1\nc: *x\nd: *y\n';
    const second = withoutPlaces(parseAllDocuments(text)[1]!);
    const report = check(text, second);
    expect(report.firstAlias).toEqual(at(2, 1, 2, 1));
    expect(report.diagnostics.map((d) => d.range)).toEqual([at(2, 1, 2, 1)]);
  });

  it('an alias in a document made by a program, which has no place at all, is shown at 1:1', () => {
    const doc = new Document({ a: 1 });
    const a = doc.get('a', true) as Scalar;
    a.anchor = 'x';
    doc.set('b', doc.createAlias(a, 'x'));
    expect(check('', doc)).toEqual({ diagnostics: [], firstAlias: at(1, 1, 1, 1) });
  });
});

describe('copyWithin', () => {
  it('copies every kind of value as it is, keys as plain own properties', () => {
    const value = { a: [1, true, null, 'x', { b: 2.5 }], __proto__key: {} };
    const copy = copyWithin(value, 1000) as typeof value;
    expect(copy).toStrictEqual(value);
    expect(copy.a).not.toBe(value.a);
    expect(Object.getOwnPropertyDescriptor(copy, 'a')).toStrictEqual({ value: copy.a, enumerable: true, writable: true, configurable: true });
  });

  it('keeps a __proto__ key an own property', () => {
    const copy = copyWithin(JSON.parse('{"__proto__": {"polluted": true}}'), 1000) as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
  });

  it.each([
    // A string costs its length and 2; a key the same; a list or a mapping 8; any other value 8.
    ['a string', 'abc', 5],
    ['a number', 7, 8],
    ['a list of a string', ['ab'], 12],
    ['a mapping of one key to a number', { ab: 1 }, 20],
  ])('%s: copied within its exact cost, refused one below it', (_name, value, cost) => {
    expect(copyWithin(value, cost)).toStrictEqual(value);
    expect(() => copyWithin(value, cost - 1)).toThrow(ExpansionTooLarge);
  });

  /** `levels` lists (or mappings) one inside the other, the innermost holding 1. */
  const nested = (levels: number, kind: 'list' | 'mapping'): unknown => {
    let v: unknown = 1;
    for (let i = 0; i < levels; i++) v = kind === 'list' ? [v] : { k: v };
    return v;
  };

  it.each(['list', 'mapping'] as const)('a value 1,024 %ss deep is copied, 1,025 is refused', (kind) => {
    expect(copyWithin(nested(1024, kind), 1e9)).toStrictEqual(nested(1024, kind));
    expect(() => copyWithin(nested(1025, kind), 1e9)).toThrow(ExpansionTooLarge);
  });
});
