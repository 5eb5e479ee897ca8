import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isWithin, outsideOf, realTarget } from '../../../src/util/confine.js';
import { tempDir } from '../../helpers/temp-dir.js';

let top: string;
let root: string;
let out: string;

beforeEach(() => {
  top = tempDir('confine-unit');
  root = join(top, 'repo');
  out = join(top, 'out');
  mkdirSync(join(root, 'sub'), { recursive: true });
  mkdirSync(out);
  writeFileSync(join(out, 'secret'), 's');
  writeFileSync(join(root, 'sub', 'in.yaml'), 'x');
});

describe('isWithin', () => {
  it.each([
    ['/r', '/r', true],
    ['/r', '/r/a', true],
    ['/r', '/r/..a', true],
    ['/r', '/r/a/../b', true],
    ['/r', '/', false],
    ['/r', '/ra', false],
    ['/r', '/r/../x', false],
    ['/r/a', '/r', false],
  ])('%s holds %s: %s', (r, p, inside) => {
    expect(isWithin(r, p)).toBe(inside);
  });
});

describe('outsideOf', () => {
  it('paths inside, existing or not, are inside', () => {
    for (const p of ['sub/in.yaml', 'sub/new.json', 'new/deeper/file', '.', '..x', 'sub/../sub/in.yaml', join(root, 'sub')]) expect(outsideOf(root, p), p).toBeUndefined();
  });

  it('by name: up and out, or absolute elsewhere', () => {
    expect(outsideOf(root, '../out/secret')).toBe('it is outside the folder');
    expect(outsideOf(root, '..')).toBe('it is outside the folder');
    expect(outsideOf(root, join(out, 'secret'))).toBe('it is outside the folder');
    expect(outsideOf(root, 'sub/../../out')).toBe('it is outside the folder');
  });

  it.each([
    ['a link to a file out there', () => symlinkSync(join(out, 'secret'), join(root, 'l')), 'l'],
    ['a file below a folder link out', () => symlinkSync(out, join(root, 'l')), 'l/secret'],
    ['a file not yet written below a folder link out', () => symlinkSync(out, join(root, 'l')), 'l/new/report.txt'],
    ['a link to nothing out there (a write would create it)', () => symlinkSync(join(out, 'new.txt'), join(root, 'l')), 'l'],
    ['a relative link to nothing out there', () => symlinkSync('../out/new.txt', join(root, 'l')), 'l'],
    ['a chain of links to nothing out there', () => (symlinkSync(join(out, 'gone'), join(root, 'l2')), symlinkSync('l2', join(root, 'l'))), 'l'],
  ])('through %s: refused', (_name, make, path) => {
    make();
    expect(outsideOf(root, path)).toBe('a symbolic link on the way leads out of the folder');
  });

  it('links that stay inside, also to nothing yet, are followed', () => {
    symlinkSync(join(root, 'sub'), join(root, 'l'));
    symlinkSync('sub/later.txt', join(root, 'd'));
    expect(outsideOf(root, 'l/in.yaml')).toBeUndefined();
    expect(outsideOf(root, 'd')).toBeUndefined();
  });

  it('a loop is refused, and names itself', () => {
    symlinkSync(join(root, 'a'), join(root, 'b'));
    symlinkSync(join(root, 'b'), join(root, 'a'));
    expect(realTarget(join(root, 'a'))).toBeUndefined();
    expect(outsideOf(root, 'a')).toBe('it is a loop of symbolic links');
  });

  it('a chain of 40 links is followed (as the kernel does), one of 41 is a loop', () => {
    const chain = (length: number, prefix: string): string => {
      for (let i = 0; i < length; i++) symlinkSync(i === length - 1 ? join(root, `${prefix}-end`) : join(root, `${prefix}${i + 1}`), join(root, `${prefix}${i}`));
      return join(root, `${prefix}0`);
    };
    expect(realTarget(chain(40, 'a'))).toBe(join(root, 'a-end'));
    expect(realTarget(chain(41, 'b'))).toBeUndefined();
  });

  it('a root that is itself reached through a link is compared by where it really is', () => {
    symlinkSync(root, join(top, 'alias'));
    expect(outsideOf(join(top, 'alias'), 'sub/in.yaml')).toBeUndefined();
    expect(outsideOf(join(top, 'alias'), 'sub/new.txt')).toBeUndefined();
    expect(realTarget(join(top, 'alias', 'sub', 'new.txt'))).toBe(join(root, 'sub', 'new.txt'));
  });
});
