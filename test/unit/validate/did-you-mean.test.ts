import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../../src/validate/did-you-mean.js';

describe('editDistance (optimal string alignment)', () => {
  it.each([
    ['', '', 0],
    ['abc', 'abc', 0],
    ['abc', '', 3],
    ['', 'ab', 2],
    ['kitten', 'sitting', 3],
    ['gmial', 'gmail', 1],
    ['ab', 'ba', 1],
    ['abcd', 'badc', 2],
    // A transposition needs both letters swapped: one matching side is two edits.
    ['ba', 'xb', 2],
    ['ab', 'bx', 2],
    // Optimal string alignment edits no substring twice: `ca` -> `abc` is 3, not Damerau's 2.
    ['ca', 'abc', 3],
    ['slakc', 'slack', 1],
    ['enabel', 'enable', 1],
  ])('%j to %j is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('didYouMean', () => {
  it.each([
    ['enabel', ['enable', 'disable'], 'enable'],
    ['GMAL', ['gmail', 'slack'], 'gmail'],
    // Equally close: the first candidate wins.
    ['abc', ['abd', 'abe'], 'abd'],
    ['abc', ['xyz', 'abe', 'abd'], 'abe'],
    // At most a third of the longer word may differ.
    ['foo', ['tags'], undefined],
    ['ab', ['ac'], 'ac'],
    ['abcdef', ['abcxyz'], undefined],
    ['abcdefghi', ['abcdefxyz'], 'abcdefxyz'],
    ['x', [], undefined],
  ])('%j among %j is %s', (input, candidates, expected) => {
    expect(didYouMean(input, candidates)).toBe(expected);
  });
});
