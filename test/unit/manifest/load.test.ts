import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { loadManifests, readStreamBounded } from '../../../src/manifest/load.js';
import type { LoadOptions } from '../../../src/manifest/types.js';
import { yaml } from './yaml-text.js';
import { tempDir } from '../../helpers/temp-dir.js';

let dir: string;
const opts = (extra: Partial<LoadOptions> = {}): LoadOptions => ({ cwd: dir, env: {}, ...extra });
const where = (d: { code: string; range?: { start: { line: number; col: number } } }) => [d.code, d.range?.start.line, d.range?.start.col];

beforeAll(async () => {
  dir = tempDir('load');
  await mkdir(join(dir, 'tree/nested/deeper'), { recursive: true });
  await mkdir(join(dir, 'tree/node_modules'), { recursive: true });
  await mkdir(join(dir, 'tree/.hidden'), { recursive: true });
  await mkdir(join(dir, 'empty-folder'), { recursive: true });
  await writeFile(join(dir, 'tree/b.yaml'), 'name: b\n');
  await writeFile(join(dir, 'tree/a.yml'), 'name: a\n');
  await writeFile(join(dir, 'tree/notes.txt'), 'not: a manifest\n');
  await writeFile(join(dir, 'tree/nested/c.YAML'), 'name: c\n');
  await writeFile(join(dir, 'tree/nested/deeper/d.yaml'), 'name: d\n');
  await writeFile(join(dir, 'tree/node_modules/skip.yaml'), 'name: skipped\n');
  await writeFile(join(dir, 'tree/.hidden/skip.yaml'), 'name: hidden\n');
  await symlink(join(dir, 'tree'), join(dir, 'tree/nested/loop'));
  await writeFile(
    join(dir, 'multi.yaml'),
    yaml`
      name: first
      ---
      user_id: u2
      ---
      # only a comment
      ---
      name: fourth
    `,
  );
  await writeFile(
    join(dir, 'dup.yaml'),
    yaml`
      name: dup
      toolkits:
        enable: [gmail]
      workbench: {}
      toolkits:
        disable: [slack]
    `,
  );
  await writeFile(join(dir, 'broken.yaml'), 'name: broken\ntoolkits: [gmail, slack\nother: 1\n');
  await writeFile(join(dir, 'manifest.txt'), 'name: any-extension\n');
  // Links in a searched folder: out of it, to the root of the file system, in a loop, and inside it.
  await mkdir(join(dir, 'links/inner'), { recursive: true });
  await mkdir(join(dir, 'elsewhere'), { recursive: true });
  await writeFile(join(dir, 'elsewhere/secret.yaml'), 'name: secret\n');
  await writeFile(join(dir, 'links/inner/real.yaml'), 'name: real\n');
  await symlink(join(dir, 'elsewhere/secret.yaml'), join(dir, 'links/out.yaml'));
  await symlink('/', join(dir, 'links/root'));
  await symlink('self.yaml', join(dir, 'links/self.yaml'));
  await symlink('inner/real.yaml', join(dir, 'links/alias.yaml'));
  await symlink('../elsewhere', join(dir, 'links/shared'));
  await symlink('nowhere.yaml', join(dir, 'links/dangling.yaml'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadManifests', () => {
  it('folder search follows no link out of the folders given: each is a finding at the link; loops end', async () => {
    const r = await loadManifests(['links'], opts());
    expect(r.files).toEqual(['links/alias.yaml', 'links/inner/real.yaml'].map((f) => join(dir, f)));
    expect(r.diagnostics.map((d) => [d.code, d.file?.slice(dir.length + 1)])).toEqual([
      ['input/symlink-outside', 'links/out.yaml'],
      ['input/symlink-outside', 'links/root'],
      ['input/symlink-loop', 'links/self.yaml'],
      ['input/symlink-outside', 'links/shared'],
    ]);
    expect(r.documents.map((d) => d.name)).toEqual(['real', 'real']);
  });

  it('a link into another folder of the same run is followed', async () => {
    const r = await loadManifests(['links/**/*.yaml', 'elsewhere'], opts());
    expect(r.diagnostics.map((d) => [d.code, d.file?.slice(dir.length + 1)])).toEqual([
      ['input/symlink-outside', 'links/root'],
      ['input/symlink-loop', 'links/self.yaml'],
    ]);
    expect(r.files.map((f) => f.slice(dir.length + 1))).toEqual(['links/alias.yaml', 'links/inner/real.yaml', 'links/out.yaml', 'links/shared/secret.yaml', 'elsewhere/secret.yaml']);
  });

  it('a bad glob pattern is input/bad-pattern, saying which and why', async () => {
    const r = await loadManifests(['tree/[z-a].yaml'], opts());
    expect(r.diagnostics.map((d) => [d.code, d.message])).toEqual([['input/bad-pattern', 'the pattern tree/[z-a].yaml is not valid: the range z-a is reversed']]);
  });

  it('loads a folder recursively, *.yaml and *.yml only, sorted, skipping node_modules, hidden folders and link loops', async () => {
    const r = await loadManifests(['tree'], opts());
    expect(r.diagnostics).toEqual([]);
    expect(r.files).toEqual(['tree/a.yml', 'tree/b.yaml', 'tree/nested/c.YAML', 'tree/nested/deeper/d.yaml'].map((f) => join(dir, f)));
    expect(r.documents.map((d) => d.name)).toEqual(['a', 'b', 'c', 'd']);
    expect([...r.sources.keys()]).toEqual(r.files);
  });

  it('loads a file named explicitly whatever its extension, and each file once', async () => {
    const r = await loadManifests(['manifest.txt', join(dir, 'manifest.txt'), './manifest.txt'], opts());
    expect(r.files).toEqual([join(dir, 'manifest.txt')]);
    expect(r.documents.map((d) => [d.name, d.nameDeclared, d.data])).toEqual([['any-extension', true, { name: 'any-extension' }]]);
  });

  it('keeps the order of the arguments', async () => {
    const r = await loadManifests(['tree/b.yaml', 'tree/a.yml'], opts());
    expect(r.documents.map((d) => d.name)).toEqual(['b', 'a']);
  });

  it('splits multi-document files; later documents without name: get file stem #N; empty ones warn', async () => {
    const r = await loadManifests(['multi.yaml'], opts());
    expect(r.documents.map((d) => [d.index, d.name, d.nameDeclared])).toEqual([
      [0, 'first', true],
      [1, 'multi#2', false],
      [3, 'fourth', true],
    ]);
    expect(r.documents[1]?.locate('/user_id').start).toEqual({ line: 3, col: 10 });
    expect(r.diagnostics.map(where)).toEqual([['yaml/empty', 4, 1]]);
    expect(r.diagnostics[0]?.severity).toBe('warning');
  });

  it('reports a duplicate key at the second key, with the first as related, and drops the document', async () => {
    const r = await loadManifests(['dup.yaml'], opts());
    expect(r.documents).toEqual([]);
    expect(r.diagnostics.map(where)).toEqual([['yaml/duplicate-key', 5, 1]]);
    expect(r.diagnostics[0]?.related?.map((x) => [x.file, x.range?.start])).toEqual([[join(dir, 'dup.yaml'), { line: 2, col: 1 }]]);
    expect(r.diagnostics[0]?.file).toBe(join(dir, 'dup.yaml'));
  });

  it('reports syntax errors with yaml\'s code named and a position', async () => {
    const r = await loadManifests(['broken.yaml'], opts());
    expect(r.documents).toEqual([]);
    expect(r.diagnostics.length).toBeGreaterThan(0);
    for (const d of r.diagnostics) {
      expect(d.code).toBe('yaml/syntax');
      expect(d.message).toMatch(/\(yaml [A-Z_]+\)$/);
      expect(d.range?.start.line).toBeGreaterThanOrEqual(2);
    }
  });

  it.each([
    ['a missing file', ['nope.yaml']],
    ['a folder without manifests', ['empty-folder']],
    ['a glob that matches nothing', ['tree/*.json']],
  ])('%s is input/not-found', async (_name, paths) => {
    const r = await loadManifests(paths, opts());
    expect(r.diagnostics.map((d) => d.code)).toEqual(['input/not-found']);
    expect(r.documents).toEqual([]);
  });

  it('still loads the other paths when one matches nothing', async () => {
    const r = await loadManifests(['nope.yaml', 'tree/a.yml'], opts());
    expect(r.diagnostics.map((d) => d.code)).toEqual(['input/not-found']);
    expect(r.documents.map((d) => d.name)).toEqual(['a']);
  });

  it.each([
    ['*.yaml in one folder', ['tree/*.yaml'], ['tree/b.yaml']],
    ['** across folders', ['tree/**/*.yaml'], ['tree/b.yaml', 'tree/nested/deeper/d.yaml']],
    ['braces', ['tree/*.{yml,yaml}'], ['tree/a.yml', 'tree/b.yaml']],
    ['a character class', ['tree/[ab].y*'], ['tree/a.yml', 'tree/b.yaml']],
    ['? for one character', ['tree/?.yml'], ['tree/a.yml']],
    ['an absolute pattern', [`${'<dir>'}/tree/*/deeper/d.yaml`], ['tree/nested/deeper/d.yaml']],
  ])('globs: %s', async (_name, patterns, expected) => {
    const r = await loadManifests(
      patterns.map((p) => p.replace('<dir>', dir)),
      opts(),
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.files).toEqual(expected.map((f) => join(dir, f)));
  });

  it('globs skip node_modules and hidden folders unless the pattern names them', async () => {
    expect((await loadManifests(['tree/**/skip.yaml'], opts())).diagnostics.map((d) => d.code)).toEqual(['input/not-found']);
    expect((await loadManifests(['tree/.hidden/*.yaml'], opts())).files).toEqual([join(dir, 'tree/.hidden/skip.yaml')]);
  });

  it('- reads standard input once, as <stdin>, named "stdin"', async () => {
    let reads = 0;
    const readStdin = async () => {
      reads++;
      return Buffer.from('user_id: u1\n---\nname: second\n');
    };
    const r = await loadManifests(['-', '-'], opts({ readStdin }));
    expect(reads).toBe(1);
    expect(r.files).toEqual(['<stdin>']);
    expect(r.documents.map((d) => [d.file, d.name])).toEqual([
      ['<stdin>', 'stdin'],
      ['<stdin>', 'second'],
    ]);
    expect(r.sources.get('<stdin>')).toBe('user_id: u1\n---\nname: second\n');
  });

  it('- without a way to read standard input is input/unreadable', async () => {
    expect((await loadManifests(['-'], opts())).diagnostics.map((d) => d.code)).toEqual(['input/unreadable']);
  });

  it('standard input over the size limit is input/too-large, and the stream is not read to its end', async () => {
    let produced = 0;
    const endless = new Readable({
      read() {
        produced += 1024;
        this.push(Buffer.alloc(1024, 0x61));
      },
    });
    const r = await loadManifests(['-'], opts({ maxFileBytes: 10_000, readStdin: () => readStreamBounded(endless, 10_000) }));
    expect(r.diagnostics.map((d) => d.code)).toEqual(['input/too-large']);
    expect(produced).toBeLessThan(100_000);
  });

  it('a file over the size limit is refused from its size, before it is read', async () => {
    await writeFile(join(dir, 'big.yaml'), `a: ${'x'.repeat(5000)}\n`);
    const r = await loadManifests(['big.yaml'], opts({ maxFileBytes: 4096 }));
    expect(r.diagnostics.map((d) => [d.code, d.range?.start])).toEqual([['input/too-large', { line: 1, col: 1 }]]);
    expect(r.sources.size).toBe(0);
  });
});
