import { describe, expect, it } from 'vitest';
import { sortDiagnostics } from '../../../src/diagnostics/diagnostic.js';
import { validateDocument } from '../../../src/validate/index.js';
import { doc, where } from './helpers.js';

const lines = (...l: string[]): string => `${l.join('\n')}\n`;
const head = ['name: a', 'user_id: u'];

describe('a plain value that runs on over lines', () => {
  it.each([
    [
      'a list item indented one space too far',
      lines(...head, 'toolkits:', '  - github', '   - gmail'),
      'schema/pattern@4:5',
      '`- gmail` on line 5 is indented more than line 4, so it is read as more of this value, not as an entry of its own; if it is one, line it up with the entry on line 4.',
    ],
    [
      'a second item after a blank line',
      lines(...head, 'tools:', '  github:', '    enable:', '      - GITHUB_GET_A_REPOSITORY', '', '        - GITHUB_STAR_A_REPOSITORY'),
      'schema/pattern@6:9',
      '`- GITHUB_STAR_A_REPOSITORY` on line 8 is indented more than line 6, so it is read as more of this value, not as an entry of its own; if it is one, line it up with the entry on line 6.',
    ],
    [
      'a choice with a key run into it',
      lines(...head, 'workbench:', '  sandbox_size:', '    medium', '     large'),
      'schema/enum@5:5',
      '`large` on line 6 is indented more than line 5, so it is read as more of this value, not as an entry of its own; if it is one, line it up with the entry on line 5.',
    ],
    [
      'a flow list without a comma',
      lines(...head, 'toolkits: [slack,', '  github', '  gmail]'),
      'schema/pattern@4:3',
      '`gmail` on line 5 is read as more of this value: in `[...]` and `{...}` entries are parted by commas, not by lines; a comma is probably missing at the end of line 4.',
    ],
    [
      'a long line run on after a line of spaces',
      lines(...head, 'toolkits:', '  - github', '    ', '    - google_analytics_and_some_more_words_here'),
      'schema/pattern@4:5',
      '`- google_analytics_and_some_more_word...` on line 6 is indented more than line 4, so it is read as more of this value, not as an entry of its own; if it is one, line it up with the entry on line 4.',
    ],
    [
      'a run-on line of exactly 40 characters, shown whole',
      lines(...head, 'toolkits:', '  - github', '    - abcdefghij_abcdefghij_abcdefghij_abcde'),
      'schema/pattern@4:5',
      '`- abcdefghij_abcdefghij_abcdefghij_abcde` on line 5 is indented more than line 4, so it is read as more of this value, not as an entry of its own; if it is one, line it up with the entry on line 4.',
    ],
    [
      'a flow list without a comma, a blank line between',
      lines(...head, 'toolkits: [slack, github', '', '  gmail]'),
      'schema/pattern@3:19',
      '`gmail` on line 5 is read as more of this value: in `[...]` and `{...}` entries are parted by commas, not by lines; a comma is probably missing at the end of line 3.',
    ],
  ])('%s: the schema finding says why', (_name, yaml, at, hint) => {
    const found = sortDiagnostics(validateDocument(doc(yaml))).filter((d) => d.code.startsWith('schema/'));
    expect(where(found)).toEqual([at]);
    expect(found[0]?.hint).toBe(hint);
  });

  it.each([
    ['a quoted value over lines', lines(...head, 'toolkits:', '  - "git', '    hub x"')],
    ['a folded block', lines(...head, 'toolkits:', '  - >', '    git', '    hub x')],
    ['a wrong value on one line', lines(...head, 'toolkits:', '  - git hub')],
  ])('%s keeps the schema\'s own hint', (_name, yaml) => {
    const found = validateDocument(doc(yaml)).filter((d) => d.code === 'schema/pattern');
    expect(found.map((d) => d.hint)).toEqual(['A toolkit slug, such as `gmail` or `google_analytics`.']);
  });
});
