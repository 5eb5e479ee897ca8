import { describe, expect, it } from 'vitest';
import { compileGlob, GlobError, hasGlobMagic, matchGlob, splitGlob } from '../../../src/manifest/glob.js';

describe('compileGlob', () => {
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
    ['[a-c]x.yaml', 'bx.yaml', true],
    ['[^a-c]x.yaml', 'bx.yaml', false],
    ['[]]x.yaml', ']x.yaml', true],
    ['{a,{b,c}}.yaml', 'c.yaml', true],
    ['{a,{b,c}}.yaml', 'd.yaml', false],
    ['{x,y/z}/*.yaml', 'y/z/a.yaml', true],
    ['**', '.git/config', false],
    ['**/.git/*', 'a/.git/config', true],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'axbxcx', false],
    ['*', 'é.yaml', true],
    ['?.yaml', 'é.yaml', true],
  ])('%s against %s is %s', (pattern, path, expected) => {
    expect(compileGlob(pattern).match(path)).toBe(expected);
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

describe('a pattern against a long name that almost matches', () => {
  // A backtracking regular expression took over 20 s here; each pair of segments is now matched in
  // at most (pattern x name) steps.
  it.each([
    ['*-*-*-*-*.yaml', `${'-'.repeat(5000)}.yml`, false],
    ['*-*-*-*-*.yaml', `${'a-'.repeat(3000)}.yaml`, true],
    ['**/**/**/**/**/x.yaml', `${'d/'.repeat(200)}y.yaml`, false],
    ['*a*a*a*a*a*a*a*b', 'a'.repeat(20000), false],
  ])('%s', (pattern, path, expected) => {
    expect(matchGlob(pattern, path)).toBe(expected);
  });
});

describe('a pattern that is not valid', () => {
  it.each([
    ['[z-a].yaml', 'the range z-a is reversed'],
    ['[abc.yaml', 'the class [abc.yaml has no closing ]'],
    ['x[', 'a [ is never closed'],
    ['x[!', 'a [ is never closed'],
    ['{a,b.yaml', 'a { is never closed'],
    ['{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}{o,p}{q,r}.yaml', 'its {...} make more than 256 alternatives'],
    [`${'{'.repeat(200)}a${'}'.repeat(200)}`, 'its braces are nested more than 16 deep'],
    [`${'{a,b,'.repeat(40)}${'}'.repeat(40)}`, 'its braces are nested more than 16 deep'],
  ])('%s: %s', (pattern, reason) => {
    const thrown = ((): unknown => {
      try {
        compileGlob(pattern);
        return undefined;
      } catch (err) {
        return err;
      }
    })();
    expect(thrown).toBeInstanceOf(GlobError);
    expect(thrown).toMatchObject({ pattern, reason });
  });
});
