import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_MAX_BYTES, findHazard, type Hazard } from '../../../src/validate/fast-path/hazards.js';
import { readPlainData } from '../../../src/validate/fast-path/plain-data.js';
import { tryFastPath } from '../../../src/validate/fast-path/try-fast-path.js';
import { validatePaths } from '../../../src/validate/run.js';
import { tempDir } from '../../helpers/temp-dir.js';

const clean = 'name: clean\nuser_id: u-1\ntoolkits: [gmail, slack]\nworkbench:\n  enable: true\n';

describe('findHazard: what sends a file to the loader before js-yaml reads it', () => {
  it.each<[Hazard, string]>([
    ['too-large', `name: x\nnote: ${'n'.repeat(FAST_MAX_BYTES)}\n`],
    ['bom', '\ufeffname: x\n'],
    ['control', 'name: a\u0007b\n'],
    ['tab', 'name:\tx\n'],
    ['carriage-return', 'name: x\r\nuser_id: y\r\n'],
    ['backslash', 'name: "x\\ty"\n'],
    ['interpolation', 'user_id: ${USER}\n'],
    ['unicode-space', 'name: x\u00a0\n'],
    ['unicode-space', 'name: x\u2028y\n'],
    ['unicode-space', 'name: x\u0085\n'],
    ['unicode-space', 'name: x\u3000\n'],
    ['long-line', `name: ${'x'.repeat(1000)}\n`],
    ['long-line', `name: ${'x'.repeat(1000)}`],
    ['directive', '%YAML 1.1\n---\nname: x\n'],
    ['document-marker', 'name: x\n---\nname: y\n'],
    ['document-marker', '---\nname: x\n'],
    ['document-marker', 'name: x\n...\n'],
    ['document-marker', '---# comment\nname: x\n'],
    ['anchor-alias-tag', 'a: &x [1]\nb: *x\n'],
    ['anchor-alias-tag', 'name: !!str x\n'],
    ['anchor-alias-tag', 'list: [!x a]\n'],
    ['explicit-key', '? name\n: x\n'],
    ['explicit-value', 'name : x\n'],
    ['empty-entry', 'list:\n  - a\n  -\n  - b\n'],
    ['empty-entry', 'list:\n  - # nothing\n'],
    ['trailing-space', 'name: x \n'],
    ['trailing-space', 'text: |\n  a\n  \n  b\n'],
    ['comment-before-value', 'name:\n# the name\n  x\n'],
    ['comment-before-value', 'tools:\n  gmail: # note\n # more\n    x\n'],
    ['unseparated-comment', 'name: "x"# c\n'],
    ['unseparated-comment', 'list: [a]# c\n'],
    ['reserved', 'name: @x\n'],
    ['reserved', 'name: `x`\n'],
  ])('%s (case %#)', (hazard, text) => {
    expect(findHazard(Buffer.from(text))).toBe(hazard);
  });

  it.each([
    clean,
    'name: x\ndescription: "Why? Because: it\'s 50%, Q&A, a#b, x*y!"\n',
    'name: x\ndescription: |\n  line one\n\n  line two\n',
    'name: x\ndescription: >-\n  folded\n  text\n',
    'name: x\n# a comment\ntoolkits:\n  # inside, at the key\'s column\n  enable: [gmail] # trailing\n',
    'name: x\nnote: Zoë, naïve café, 日本語, 😀\n',
    'name: x\nflow: {a: 1, b: [c, d]}\n',
    'name: x\nlist:\n- a\n- - b\n  - c\n',
    'name: x\nurl: "https://example.com/a?b=c"\n',
  ])('no hazard (case %#)', (text) => {
    expect(findHazard(Buffer.from(text))).toBeUndefined();
  });

  it('honours a smaller --max-file-size', () => {
    expect(findHazard(Buffer.from(clean), 10)).toBe('too-large');
  });
});

describe('readPlainData: js-yaml into data, only where it reads what the loader reads', () => {
  const loader = (text: string): unknown => parse(text, { schema: 'core', merge: false, stringKeys: true, resolveKnownTags: false });

  it.each([
    ['core-schema numbers', 'a: 1\nb: -0\nc: 0o17\nd: 0x1F\ne: 1.5\nf: 1e3\ng: .5\nh: -.inf\ni: .NaN\nj: 12345678901234567890\nk: +12\nl: +.5e3\nm: -1.\nn: .Inf\n'],
    ['what YAML 1.2 keeps as strings', 'a: 1_000\nb: 0b11\nc: +0x1F\nd: 0755\ne: 1:20\nf: 2001-12-14\ng: yes\nh: On\ni: y\nj: 3.10.1\n'],
    ['null and booleans', 'a: ~\nb: null\nc: Null\nd:\ne: true\nf: False\ng: TRUE\nh: NULL\ni: FALSE\n'],
    ['quoted scalars stay strings', 'a: "1"\nb: \'true\'\nc: "~"\nd: \'it\'\'s\'\n'],
    ['block scalars', 'a: |\n  one\n  two\nb: >\n  folded\n  text\n\n  para\nc: |+\n  keep\n\nd: x\n'],
    ['multi-line plain and quoted scalars', 'a: one\n  two\nb: "one\n  two"\nc: \'one\n\n  two\'\n'],
    ['flow collections', 'a: {b: [1, 2, {c: d}], e: f}\ng: [h, {i: j}]\n'],
    ['nested block sequences', 'a:\n- - b\n  - c\n- d: e\n  f: g\n'],
  ])('reads %s as the loader does', (_name, text) => {
    expect(findHazard(Buffer.from(text))).toBeUndefined();
    expect(readPlainData(text, 64)).toStrictEqual(loader(text));
  });

  it.each([
    ['an empty file', ''],
    ['a comment-only file', '# nothing here\n'],
    ['a scalar root', 'just text\n'],
    ['a sequence root', '- a\n- b\n'],
    ['a number key (js-yaml would print 0x10 as "16")', 'name: x\n0x10: y\n'],
    ['a null key', 'name: x\n~: y\n'],
    ['a boolean key', 'name: x\ntrue: y\n'],
    ['a __proto__ key', 'name: x\n__proto__: {a: 1}\n'],
    ['a mapping as a key', 'name: x\nflow: {{a: 1}}\n'],
    ['a sequence as a key in a flow mapping', 'name: x\nflow: {[a, b]}\n'],
    ['a sequence as a key in a flow sequence', 'name: x\nflow: [[a]: b]\n'],
    ['a sequence as an implicit block key', 'name: x\n[a, b]: c\n'],
    ['a value with ${', 'name: x\nuser_id: "$${NOT} here"\n'],
    ['a duplicate key', 'name: x\nname: y\n'],
    ['a syntax error', 'name: [x\n'],
    ['nesting past the fast path\'s depth', `name: x\ndeep: ${'['.repeat(40)}${']'.repeat(40)}\n`],
  ])('refuses %s', (_name, text) => {
    expect(readPlainData(text, 64)).toBeUndefined();
  });

  it('keeps to a smaller depth limit', () => {
    const text = 'name: x\na: {b: {c: {d: 1}}}\n';
    expect(readPlainData(text, 64)).toBeDefined();
    expect(readPlainData(text, 3)).toBeUndefined();
  });
});

describe('tryFastPath: a clean file without positions, anything else to the loader', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('fast-path-unit');
    writeFileSync(join(dir, 'clean.yaml'), clean);
    writeFileSync(join(dir, 'stem.yaml'), 'user_id: u-1\n');
    writeFileSync(join(dir, 'finding.yaml'), 'name: finding\nuser_id: u-1\ntoolkits: gmail\n');
    writeFileSync(join(dir, 'yaml11.yaml'), 'name: yaml11\nuser_id: u-1\nexperimental:\n  assistive_prompt_config:\n    user_timezone: no\n');
    writeFileSync(join(dir, 'secret.yaml'), 'name: secret\nuser_id: ghp_0123456789abcdefghijABCDEFGHIJ012345\n');
    mkdirSync(join(dir, 'folder.yaml'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('checks a clean file: its name, no places, no findings', async () => {
    expect(await tryFastPath(join(dir, 'clean.yaml'), {})).toBe('clean');
    expect(await tryFastPath(join(dir, 'stem.yaml'), {})).toBe('stem');
  });

  it.each(['finding.yaml', 'yaml11.yaml', 'secret.yaml', 'folder.yaml', 'missing.yaml'])('leaves %s to the loader', async (name) => {
    expect(await tryFastPath(join(dir, name), {})).toBeUndefined();
  });

  it('leaves standard input and files over --max-file-size to the loader', async () => {
    expect(await tryFastPath('<stdin>', {})).toBeUndefined();
    expect(await tryFastPath(join(dir, 'clean.yaml'), { maxFileBytes: 20 })).toBeUndefined();
  });

  it('locates a name that two fast-path files share, as the loader does', async () => {
    const shared = tempDir('fast-path-names');
    try {
      writeFileSync(join(shared, 'a.yaml'), '# first\nname: same\nuser_id: u-1\n');
      writeFileSync(join(shared, 'b.yaml'), 'user_id: u-2\nname: same\n');
      writeFileSync(join(shared, 'c.yaml'), 'name: other\nuser_id: u-3\n');
      expect(await tryFastPath(join(shared, 'a.yaml'), {})).toBeDefined();
      const fast = await validatePaths(['.'], { cwd: shared, env: {} });
      const loader = await validatePaths(['.'], { cwd: shared, env: {}, fastPath: false });
      expect(fast).toStrictEqual(loader);
      expect(fast.report.diagnostics.map((d) => [d.code, d.file, d.range?.start, d.related?.[0]?.range?.start])).toStrictEqual([
        ['rule/duplicate-name', join(shared, 'b.yaml'), { line: 2, col: 7 }, { line: 2, col: 7 }],
      ]);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  });
});
