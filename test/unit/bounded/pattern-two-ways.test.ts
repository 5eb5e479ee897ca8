import { describe, expect, it } from 'vitest';
import { patternProblem } from '../../../src/validate/policies/safe-pattern.js';
import { ambiguity } from '../../../src/validate/policies/pattern-ambiguity.js';

/*
 * Issue 29, item 5: patterns with polynomial (or exponential) blow-up that the sequence check let
 * through, because what sat between two repetitions of the same characters was optional, or a
 * fixed part that itself overlaps them, or an alternation whose branches match the same text.
 * `^a*b?a*b?a*b?a*$` took 36 s at 1,000 characters. Each is refused now, naming where two ways
 * meet; the second list holds patterns of the same look that have one way only, and pass.
 */
const twoWays = 'it could take polynomial or exponential time: a text can reach';

describe('patterns that can match one text in two ways are refused', () => {
  it.each([
    // The pattern and its variant with more optional separators.
    ['^a*b?a*b?a*b?a*$', '`a` (character 6)'],
    ['^a*b?a*b?a*b?a*b?a*b?a*b?a*$', '`a` (character 6)'],
    // New variants of the class: something optional between repetitions of the same characters.
    ['^[a-z]*-?[a-z]*-?[a-z]*$', '`[a-z]` (character 10)'],
    ['^\\d*[.,]?\\d*$', '`\\d` (character 10)'],
    ['^\\w+\\s?\\w+$', '`\\w` (character 8)'],
    ['^a+-?a+$', '`a` (character 6)'],
    ['^x*[yz]?x*$', '`x` (character 9)'],
    // A fixed part that overlaps both neighbours slides between them.
    ['^a*[ab]b*[bc]c*$', '`b` (character 8)'],
    ['^[a-z]+[a-z0-9][0-9]+[0-9a-f][a-f]+$', '`[0-9]` (character 16)'],
    // Alternatives that match the same text, one after the other: 2^n ways.
    [`^${'(x|x)'.repeat(30)}$`, '`x` (character 8)'],
    ['^(?:[ab]|b)(?:[bc]|c)d$', '`[bc]` (character 15)'],
    // Two ways to match nothing: each `(?:|)` doubles the ways.
    [`^${'(?:|)'.repeat(30)}a$`, '`a` (character 152)'],
    ['^(?:a?)?b$', '`b` (character 9)'],
    // A bounded repetition next to the same characters.
    ['^a{0,5}b?a{0,5}$', '`a` (character 10)'],
  ])('%s', (pattern, where) => {
    expect(patternProblem(pattern)).toBe(`${twoWays} ${where} in more than one way`);
  });

  it.each([
    '^[a-z]*-[a-z]*-[a-z]*$',
    '^\\d*(?:[.,]\\d+)?$',
    '^\\w+(?:\\s\\w+)?$',
    '^a*(?:ba*)?$',
    '^(?:x|y)(?:x|y)z$',
    '^.+@example\\.com$',
    '^(?:ab|ac)d$',
    '^(x|x)$',
    '^[a-z]{1,63}$',
    '^[a-z]{1,8}-[a-z0-9]{2,4}$',
    '^[a-z]{1,8}[a-z0-9]$',
    '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
    '^a+(?:aa){2}$',
  ])('one way only: %s', (pattern) => {
    expect(patternProblem(pattern)).toBeUndefined();
  });

  it('a pattern too large to check once its repetitions are counted out is refused, not checked for long', () => {
    expect(ambiguity('^(?:ab){1500}$')).toBe('too long to check once repetitions are counted out (over 2000 characters)');
    expect(ambiguity('^(?:ab){900}$')).toBeUndefined();
    expect(ambiguity('^(?:ab){1,9999}$')).toBeUndefined();
  });

  it('a repeated part that can match nothing is refused', () => {
    expect(ambiguity('^(?:a?)*b$')).toBe('a repeated part can match nothing');
    expect(ambiguity('^(?:a?){2,}b$')).toBe('a repeated part can match nothing');
  });
});
