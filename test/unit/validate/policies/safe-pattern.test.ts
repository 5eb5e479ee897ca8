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

/*
 * Each rule of the reader held to its exact answer, in pairs that differ in one character class,
 * escape, group or quantifier: what the engine would match decides, so a misread escape or class
 * shows as a pattern accepted that can backtrack (or one refused that cannot).
 */
describe('policy patterns: what each part of a pattern matches', () => {
  const exp = (why: string) => `it could take exponential time: ${why}`;
  const overlap = exp('two repetitions in a row can match the same characters');

  it.each([
    // Character sets: ASCII one by one, everything else as one member.
    ['^é+\\x7f+$', undefined],
    ['^\\p{L}+a+$', overlap],
    ['^\\P{L}+$', undefined],
    ['^\\p{L}a+a+$', overlap],
    ['^\\S+é+$', overlap],
    ['^[^é]+ü+$', overlap],
    ['^\\w+0+$', overlap],
    ['^\\w+Z+$', overlap],
    ['^\\w+z+$', overlap],
    ['^\\w+_+$', overlap],
    ['^\\w+-+$', undefined],
    ['^\\W+-+$', overlap],
    ['^\\d+5+$', overlap],
    ['^\\d+a+$', undefined],
    ['^\\D+a+$', overlap],
    ['^\\D+5+$', undefined],
    ['^\\s+\\t+$', overlap],
    ['^\\s+\\r+$', overlap],
    ['^\\s+ +$', overlap],
    ['^\\s+é+$', overlap],
    ['^\\s+a+$', undefined],
    ['^.+\\n+$', undefined],
    ['^.+\\r+$', undefined],
    ['^.+a+$', overlap],
    // Assertions match no character: they separate nothing.
    ['a+^a+', overlap],
    ['a+$a+', overlap],
    ['a+\\ba+', overlap],
    ['a+\\Ba+', overlap],
    // Groups.
    ['^(?:a+b)a+$', undefined],
    ['^(?:a+|b)a+$', overlap],
    ['^(?:a)+a+$', overlap],
    ['^(?:a)*a+$', overlap],
    ['^(?:(?:ab)?c)+$', exp('a repeated group holds a repetition or an alternation')],
    ['^a+a{2}$', undefined],
    ['^a+(?:aa){2}$', undefined],
    ['^a+(?:a|aa)$', overlap],
    ['^é+(?:😀|ab)$', overlap],
    ['a+(?<n>a+)', overlap],
    ['^(?<team>[a-z]+)-[a-z]+$', undefined],
    [`${'('.repeat(9)}a${')'.repeat(9)}`, undefined],
    [`${'('.repeat(10)}a${')'.repeat(10)}`, exp('groups are nested too deep')],
    ['(?=a)a', exp('lookahead and lookbehind are not supported')],
    ['(?!a)b', exp('lookahead and lookbehind are not supported')],
    ['(?<=a)b', exp('lookahead and lookbehind are not supported')],
    ['(?<!a)b', exp('lookahead and lookbehind are not supported')],
    ['(a)\\1', exp('backreferences are not supported')],
    ['(?<n>a)\\k<n>', exp('backreferences are not supported')],
    // Characters beyond the Basic Multilingual Plane take two code units; U+FFFF takes one.
    ['^😀+a+$', undefined],
    ['a+\uffffa+', undefined],
    ['[\uffff]+a+', undefined],
    ['^\uffffa+a+$', overlap],
    // Escapes.
    ['^\\t+t+$', undefined],
    ['^\\t+\\x09+$', overlap],
    ['^\\v+\\x0b+$', overlap],
    ['^\\f+\\x0c+$', overlap],
    ['^\\r+\\x0d+$', overlap],
    ['^\\0+\\x00+$', overlap],
    ['^\\x41+A+$', overlap],
    ['^\\x41+b+$', undefined],
    ['^\\x41+4+$', undefined],
    ['^\\u0041+A+$', overlap],
    ['^\\u{41}+A+$', overlap],
    ['^\\u{41}+b+$', undefined],
    ['^\\u0061*\\u0061*\\u0061*$', overlap],
    ['^\\cJ+\\n+$', overlap],
    ['^\\cJ+a+$', undefined],
    ['^\\.+\\.+$', overlap],
    ['^\\.+[.]+$', overlap],
    ['^[\\.]+\\.+$', overlap],
    // Character classes.
    ['^[^a]+b+$', overlap],
    ['^[^a]+\\[+$', overlap],
    ['^[^a]+\\^+$', overlap],
    ['^[a-]+b+$', undefined],
    ['^[a-]+-+$', overlap],
    ['^[a-c]+é+$', undefined],
    ['^[a-c]+b+$', overlap],
    ['^[a-c]+d+$', undefined],
    ['^[\\d]+5+$', overlap],
    ['^[\\b]+b+$', undefined],
    ['^[\\b]*\\x08*$', overlap],
    // Quantifiers.
    ['^a{10}$', undefined],
    ['^a{2,10}b$', undefined],
    ['^a{2,10}a{2,10}$', overlap],
    ['^a+a{3}$', undefined],
    ['^a+a{2,2}$', undefined],
    ['^a+a{0,}$', overlap],
    ['^a+?b$', undefined],
    ['^a+?a+?$', overlap],
    ['^a+b{0}a+$', overlap],
    // Optional groups: every shape is checked, up to six of them.
    ['^(?:a)?(?:b)?(?:c)?(?:d)?(?:e)?(?:f)?$', undefined],
    ['^(?:a)?(?:b)?(?:c)?(?:d)?(?:e)?(?:f)?(?:g)?$', exp('more than 6 optional groups in a row')],
    ['^(?:x)?(?:a+)?a+$', overlap],
    // Invalid, with the engine's reason.
    ['(', 'it is not a valid regular expression: /(/u: Unterminated group'],
    ['a{', 'it is not a valid regular expression: /a{/u: Incomplete quantifier'],
  ])('%s', (pattern, expected) => {
    expect(patternProblem(pattern)).toBe(expected);
  });

  it('compiles once per pattern, with the u flag, and remembers at most 1,000', () => {
    expect(compilePattern('^\\p{L}+$')).toBe(compilePattern('^\\p{L}+$'));
    expect(compilePattern('^\\p{L}+$').test('é')).toBe(true);
    for (let i = 0; i < 1000; i++) compilePattern(`^fill${i}$`);
    expect(compilePattern('^late$')).not.toBe(compilePattern('^late$'));
  });
});
