import { describe, expect, test } from 'vitest';
import { createStyle } from '../../../src/report/ansi.js';
import { cell, renderFields, renderTable, truncate } from '../../../src/report/operate/table.js';

const plain = createStyle(false);

describe('renderTable', () => {
  const columns = [{ header: 'SLUG' }, { header: 'SIZE', align: 'right' as const }, { header: 'DESCRIPTION', shrink: true }];
  const rows = [
    ['github', 12, 'Code hosting and collaboration'],
    ['hackernews', 3, 'News'],
  ];

  test('aligns columns two spaces apart, numbers right, no trailing blanks', () => {
    expect(renderTable(columns, rows, { style: plain })).toBe(
      ['SLUG        SIZE  DESCRIPTION', 'github        12  Code hosting and collaboration', 'hackernews     3  News', ''].join('\n'),
    );
  });

  test('a width cuts only the shrinkable column, with an ellipsis', () => {
    const out = renderTable(columns, rows, { style: plain, width: 30 });
    expect(out).toBe(['SLUG        SIZE  DESCRIPTION', 'github        12  Code hostin…', 'hackernews     3  News', ''].join('\n'));
    for (const line of out.split('\n')) expect([...line].length).toBeLessThanOrEqual(30);
  });

  test('identifiers are never cut, even when the table cannot fit', () => {
    const out = renderTable(columns, rows, { style: plain, width: 10 });
    expect(out).toContain('hackernews');
    expect(out).toContain('Code hosti…');
  });

  test('the rightmost shrinkable column gives first', () => {
    const cols = [{ header: 'A', shrink: true }, { header: 'B', shrink: true }];
    const out = renderTable(cols, [['aaaaaaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbbbbbb']], { style: plain, width: 34 });
    expect(out.split('\n')[1]).toBe('aaaaaaaaaaaaaaaaaaaa  bbbbbbbbbbb…');
  });

  test('control characters from the service cannot move the cursor or break a row', () => {
    const out = renderTable([{ header: 'X' }], [['a\u001b[2Jb\nc\td']], { style: plain });
    expect(out).toBe('X\na [2Jb c d\n');
    expect(cell(null)).toBe('');
  });

  test('colour only styles the header, and only when enabled', () => {
    expect(renderTable([{ header: 'X' }], [['y']], { style: createStyle(true) })).toBe('\u001b[1mX\u001b[22m\ny\n');
  });

  test('truncate counts code points', () => {
    expect(truncate('héllo wörld', 6)).toBe('héllo…');
    expect(truncate('short', 10)).toBe('short');
  });
});

describe('renderFields', () => {
  test('keys aligned; a list is one item per line', () => {
    expect(renderFields([['session', 'trs_1'], ['meta tools', ['A', 'B']], ['empty', []]], { style: plain })).toBe(
      ['session     trs_1', 'meta tools  A', '            B', 'empty       (none)', ''].join('\n'),
    );
  });

  test('values are cut to the width', () => {
    expect(renderFields([['k', 'x'.repeat(50)]], { style: plain, width: 20 })).toBe(`k  ${'x'.repeat(16)}…\n`);
  });
});
