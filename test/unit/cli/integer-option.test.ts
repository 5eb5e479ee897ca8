import { Command, Option } from 'commander';
import { describe, expect, test } from 'vitest';
import { integerOption } from '../../../src/cli/integer-option.js';
import { wholeNumber } from '../../../src/util/whole-number.js';

describe('wholeNumber', () => {
  test.each([
    ['1', 1, 64, 1],
    ['64', 1, 64, 64],
    ['007', 1, 64, 7],
    ['0', 0, 10, 0],
    ['0', 1, 64, undefined],
    ['65', 1, 64, undefined],
    ['-1', -5, 5, undefined],
    ['+3', 1, 64, undefined],
    ['1.5', 1, 64, undefined],
    ['1e3', 1, 5000, undefined],
    [' 3', 1, 64, undefined],
    ['0x10', 1, 64, undefined],
    ['', 1, 64, undefined],
    ['ten', 1, 64, undefined],
    ['9007199254740991', 1, Number.MAX_SAFE_INTEGER, 9007199254740991],
    ['9007199254740992', 1, Number.MAX_SAFE_INTEGER, undefined],
    ['99999999999999999999', 1, Number.MAX_SAFE_INTEGER, undefined],
  ])('%j from %d to %d is %s', (text, min, max, expected) => {
    expect(wholeNumber(text, min, max)).toBe(expected);
  });

  test('without a maximum, any safe whole number from the minimum', () => {
    expect(wholeNumber('123456789', 1)).toBe(123456789);
    expect(wholeNumber('0', 1)).toBeUndefined();
  });
});

describe('integerOption', () => {
  function parse(argv: string[]): { value?: number; error?: string } {
    const errors: string[] = [];
    const cmd = new Command('x')
      .exitOverride()
      .configureOutput({ writeErr: (s) => void errors.push(s), writeOut: () => undefined })
      .addOption(new Option('--jobs <n>', 'threads').argParser(integerOption(1, 64, 'a whole number of threads from 1 to 64')));
    try {
      cmd.parse(argv, { from: 'user' });
    } catch {
      return { error: errors.join('') };
    }
    return { value: (cmd.opts() as { jobs?: number }).jobs };
  }

  test('gives the number', () => {
    expect(parse(['--jobs', '8'])).toEqual({ value: 8 });
  });

  test.each([['0'], ['65'], ['two'], ['-1'], ['2.5']])('refuses %s, naming the option and what it expects', (value) => {
    expect(parse(['--jobs', value]).error).toBe(`error: option '--jobs <n>' argument '${value}' is invalid. expected a whole number of threads from 1 to 64\n`);
  });
});
