import { describe, expect, test } from 'vitest';
import { codeFrame, splitLines, type CodeFrameOptions } from '../../src/diagnostics/codeframe.js';
import type { Range } from '../../src/diagnostics/diagnostic.js';

const r = (sl: number, sc: number, el: number, ec: number): Range => ({ start: { line: sl, col: sc }, end: { line: el, col: ec } });
const lines = (n: number, make = (i: number) => `line ${i}`): string => Array.from({ length: n }, (_, i) => make(i + 1)).join('\n') + '\n';

interface Case {
  name: string;
  source: string;
  range: Range;
  options?: CodeFrameOptions;
  expected: string[];
}

const cases: Case[] = [
  {
    name: 'one line in the middle: two lines of context each side',
    source: lines(9),
    range: r(5, 6, 5, 7),
    expected: ['  3 | line 3', '  4 | line 4', '> 5 | line 5', '    |      ^', '  6 | line 6', '  7 | line 7'],
  },
  {
    name: 'the first line has no context before it',
    source: 'name: a\nuser_id: b\nx: 1\ny: 2\n',
    range: r(1, 7, 1, 8),
    expected: ['> 1 | name: a', '    |       ^', '  2 | user_id: b', '  3 | x: 1'],
  },
  {
    name: 'the last line: the final newline is not shown as an empty line',
    source: 'a: 1\nb: 2\nc: 3\n',
    range: r(3, 1, 3, 2),
    expected: ['  1 | a: 1', '  2 | b: 2', '> 3 | c: 3', '    | ^'],
  },
  {
    name: 'an empty range gets one caret',
    source: 'key: value\n',
    range: r(1, 6, 1, 6),
    expected: ['> 1 | key: value', '    |      ^'],
  },
  {
    name: 'an end before the start is treated as empty',
    source: 'key: value\n',
    range: r(1, 6, 1, 2),
    expected: ['> 1 | key: value', '    |      ^'],
  },
  {
    name: 'a caret just past the end of the line (a missing value)',
    source: 'key:\nnext: 1\n',
    range: r(1, 5, 1, 5),
    expected: ['> 1 | key:', '    |     ^', '  2 | next: 1'],
  },
  {
    name: 'the gutter is as wide as the largest line number',
    source: lines(12),
    range: r(9, 1, 9, 5),
    expected: ['   7 | line 7', '   8 | line 8', '>  9 | line 9', '     | ^^^^', '  10 | line 10', '  11 | line 11'],
  },
  {
    name: 'a multi-line range marks and underlines every line; an end at column 1 does not pull in the next line',
    source: 'a: 1\ntools:\n  github:\n    enable: [x]\nb: 2\nc: 3\n',
    range: r(3, 3, 5, 1),
    expected: ['  1 | a: 1', '  2 | tools:', '> 3 |   github:', '    |   ^^^^^^^', '> 4 |     enable: [x]', '    |     ^^^^^^^^^^^', '  5 | b: 2', '  6 | c: 3'],
  },
  {
    name: 'a long range elides its middle',
    source: lines(12),
    range: r(2, 1, 9, 7),
    options: { context: 1 },
    expected: [
      '   1 | line 1',
      '>  2 | line 2',
      '     | ^^^^^^',
      '>  3 | line 3',
      '     | ^^^^^^',
      '>  4 | line 4',
      '     | ^^^^^^',
      '>  5 | line 5',
      '     | ^^^^^^',
      '   … |',
      '>  9 | line 9',
      '     | ^^^^^^',
      '  10 | line 10',
    ],
  },
  {
    name: 'a blank line inside a range is marked but not underlined',
    source: 'a:\n\n  b: 1\n',
    range: r(1, 1, 3, 7),
    options: { context: 0 },
    expected: ['> 1 | a:', '    | ^^', '> 2 |', '> 3 |   b: 1', '    |   ^^^^'],
  },
  {
    name: 'a tab is shown as a visible arrow taking two cells',
    source: 'a:\n\tb: 1\n',
    range: r(2, 1, 2, 2),
    expected: ['  1 | a:', '> 2 | → b: 1', '    | ^^'],
  },
  {
    name: 'a tab before the range shifts the caret by the cells it takes',
    source: '\tkey: x\n',
    range: r(1, 7, 1, 8),
    expected: ['> 1 | → key: x', '    |        ^'],
  },
  {
    name: 'control characters from the file never reach the terminal',
    source: 'k: "\u001b[2J\u0007"\n',
    range: r(1, 4, 1, 12),
    expected: ['> 1 | k: "\uFFFD[2J\uFFFD"', '    |    ^^^^^^^^'],
  },
  {
    name: 'a surrogate pair is one cell',
    source: 'a: "😀" # x\n',
    range: r(1, 9, 1, 10),
    expected: ['> 1 | a: "😀" # x', '    |        ^'],
  },
  {
    name: 'CRLF line endings',
    source: 'a: 1\r\nb: 2\r\nc: 3\r\n',
    range: r(2, 4, 2, 5),
    expected: ['  1 | a: 1', '> 2 | b: 2', '    |    ^', '  3 | c: 3'],
  },
  {
    name: 'a long line is cut around the range, with … where text was left out',
    source: `k: ${'x'.repeat(200)}BAD${'y'.repeat(200)}\n`,
    range: r(1, 204, 1, 207),
    options: { maxWidth: 20 },
    expected: ['> 1 | …xxxxxxxxxBADyyyyyy…', '    |           ^^^'],
  },
  {
    name: 'a long line with the range near its start is cut only at the end',
    source: `key: ${'v'.repeat(50)}\n`,
    range: r(1, 1, 1, 4),
    options: { maxWidth: 20 },
    expected: ['> 1 | key: vvvvvvvvvvvvvv…', '    | ^^^'],
  },
  {
    name: 'a range at the end of a long line: the window ends with the line',
    source: `k: ${'x'.repeat(50)}END\n`,
    range: r(1, 54, 1, 57),
    options: { maxWidth: 20 },
    expected: [`> 1 | …${'x'.repeat(16)}END`, `    | ${' '.repeat(17)}^^^`],
  },
  {
    name: 'a range beyond the end of the file gives no frame',
    source: 'a: 1\n',
    range: r(7, 1, 7, 2),
    expected: [''],
  },
  {
    name: 'an empty source and a range at its start',
    source: '',
    range: r(1, 1, 1, 1),
    expected: ['> 1 |', '    | ^'],
  },
  {
    name: 'a range that ends past the last line is clamped',
    source: 'a: 1\nb: 2',
    range: r(2, 1, 9, 1),
    expected: ['  1 | a: 1', '> 2 | b: 2', '    | ^^^^'],
  },
];

describe('codeFrame', () => {
  test.each(cases)('$name', ({ source, range, options, expected }) => {
    expect(codeFrame(source, range, options)).toBe(expected.join('\n'));
  });

  test.each(cases)('pre-split lines give the same frame: $name', ({ source, range, options }) => {
    expect(codeFrame(splitLines(source), range, options)).toBe(codeFrame(source, range, options));
  });

  test('the gutter and the marker are painted, the code is not', () => {
    const out = codeFrame('a: 1\nb: 2\n', r(2, 1, 2, 2), { paint: { gutter: (s) => `[${s}]`, marker: (s) => `<${s}>` } });
    expect(out).toBe(['  [1 |] a: 1', '<>> [2 |] b: 2', '  [  |] <^>'].join('\n'));
  });
});

