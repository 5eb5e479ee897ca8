import { describe, expect, it } from 'vitest';
import { globToRegExp, hasGlobMagic, splitGlob } from '../../../src/manifest/glob.js';

describe('globToRegExp', () => {
  it.each([
    ['*.yaml', 'a.yaml', true],
    ['*.yaml', 'dir/a.yaml', false],
    ['*.yaml', '.hidden.yaml', false],
    ['.*.yaml', '.hidden.yaml', true],
    ['**/*.yaml', 'a.yaml', true],
    ['**/*.yaml', 'x/y/z/a.yaml', true],
    ['**/*.yaml', 'x/.git/a.yaml', false],
    ['x/**', 'x/a/b.yaml', true],
    ['x/**/b.yaml', 'x/b.yaml', true],
    ['?.yml', 'a.yml', true],
    ['?.yml', 'ab.yml', false],
    ['[ab].yml', 'b.yml', true],
    ['[!ab].yml', 'c.yml', true],
    ['[!ab].yml', 'a.yml', false],
    ['*.{yml,yaml}', 'a.yml', true],
    ['*.{yml,yaml}', 'a.yaml', true],
    ['*.{yml,yaml}', 'a.json', false],
    ['a+b(1).yaml', 'a+b(1).yaml', true],
    ['team-*/session.yaml', 'team-x/session.yaml', true],
  ])('%s against %s is %s', (pattern, path, expected) => {
    expect(globToRegExp(pattern).test(path)).toBe(expected);
  });
});

describe('splitGlob', () => {
  it.each([
    ['manifests/**/*.yaml', { base: 'manifests', rest: '**/*.yaml' }],
    ['*.yaml', { base: '', rest: '*.yaml' }],
    ['/abs/dir/*.yml', { base: '/abs/dir', rest: '*.yml' }],
    ['/*.yml', { base: '/', rest: '*.yml' }],
  ])('%s', (pattern, expected) => {
    expect(splitGlob(pattern)).toEqual(expected);
  });

  it('knows magic from plain names', () => {
    expect(hasGlobMagic('dir/file.yaml')).toBe(false);
    expect(hasGlobMagic('dir/*.yaml')).toBe(true);
    expect(hasGlobMagic('dir/{a,b}.yaml')).toBe(true);
  });
});
