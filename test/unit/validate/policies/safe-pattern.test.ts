import { describe, expect, it } from 'vitest';
import { compilePattern, patternProblem } from '../../../../src/validate/policies/safe-pattern.js';

describe('policy patterns', () => {
  it.each([
    '^usr_[0-9a-f]{8}$',
    '^[a-z0-9-]+$',
    '^ac_prod',
    '^(prod|staging)-[a-z]+-[0-9]+$',
    '^[a-z]+-[a-z]+-[a-z]+-[0-9]+$',
    '^https?://[^/]+/',
    '^-?[0-9]+(?:\\.[0-9]+)?$',
    '^[^-]*-.*$',
    '^.*@example\\.com$',
    '^(?<team>[a-z]+)/[a-z]+$',
    '^\\p{L}+$',
    '^(?:ab){3}c+$',
    '[]',
  ])('accepts %s', (pattern) => {
    expect(patternProblem(pattern)).toBeUndefined();
  });

  it.each([
    ['(a+)+$', 'exponential'],
    ['^(a|aa)+$', 'exponential'],
    ['^(a|a)*$', 'exponential'],
    ['^(\\w+\\s?)*$', 'exponential'],
    ['^.*-.*-.*$', 'exponential'],
    ['^a?a?a?a?a?a?aaaaaa$', 'exponential'],
    ['^[a-z]*[a-z0-9]*$', 'exponential'],
    ['^(x+x+)+y$', 'exponential'],
    ['^(a)\\1$', 'exponential'],
    ['^(?:a+)?a+$', 'exponential'],
    ['^(?:a)?(?:b)?(?:c)?(?:d)?(?:e)?(?:f)?(?:g)?$', 'exponential'],
    ['^(?=a)a$', 'exponential'],
    ['^(?<!a)b$', 'exponential'],
    ['(', 'not a valid regular expression'],
    ['[z-a]', 'not a valid regular expression'],
    ['a{2,1}', 'not a valid regular expression'],
  ])('refuses %s', (pattern, why) => {
    expect(patternProblem(pattern)).toContain(why);
  });

  it('runs an accepted pattern on a hostile value without backtracking away (the test would time out)', () => {
    const re = compilePattern('^[a-z]+-[a-z]+-[a-z]+-[0-9]+$');
    expect(re.test(`${'a'.repeat(1000)}!`)).toBe(false);
    expect(re.test(`${'a-'.repeat(500)}!`)).toBe(false);
    expect(compilePattern('^[^-]*-.*$').test(`${'-'.repeat(1024)}\n`)).toBe(false);
  });
});
