import { describe, expect, it } from 'vitest';
import type { Code } from '../../../src/diagnostics/codes.js';
import type { Diagnostic } from '../../../src/diagnostics/diagnostic.js';
import { parseManifestText } from '../../../src/manifest/parse.js';
import { mistakeAbout, oneFindingPerMistake } from '../../../src/manifest/yaml-mistakes.js';

/** The first syntax finding of a text: its place, words and hint. */
function first(text: string): { at: string; message: string; hint: string } {
  const d = parseManifestText(text, 'm.yaml', { env: {} }).diagnostics.find((x) => x.code === 'yaml/syntax');
  if (d === undefined) throw new Error(`no yaml/syntax finding for ${JSON.stringify(text)}`);
  return { at: `${d.range?.start.line}:${d.range?.start.col}`, message: d.message, hint: d.hint ?? '' };
}

describe('YAML syntax errors in plain words', () => {
  it.each([
    // [case, text, line:col, words the message must hold, words the hint must hold]
    ['a key between two levels', 'toolkits:\n  enable: [github]\n tools:\n  github: [X]\n', '3:1', ['`tools` on line 3', 'read as part of `toolkits`'], ['column 1, next to `toolkits`', 'column 3']],
    ['a key indented under a scalar', 'name: a\nuser_id: b\n  toolkits: [x]\n', '2:10', ['`toolkits` on line 3', 'part of the value of `user_id`'], ['start it at column 1, like `user_id`']],
    ['a nested key out of line', 'tools:\n  github:\n    disable: [X]\n   tags: {enable: [readOnlyHint]}\n', '4:1', ['`tags` on line 4', 'part of `github`'], ['column 3, next to `github`']],
    ['a list item out of line', 'toolkits:\n  enable:\n    - github\n   - slack\n', '4:4', ['`- slack` on line 4', 'part of `enable`'], ['column 5, next to `- github`']],
    ['a list item among keys', 'toolkits:\n  enable: [a]\n- b\n', '3:1', ['a list item at the column of the keys'], ['under the key whose list it is, such as `enable`']],
    ['a key without a colon', 'name: a\nworkbench\n  enable: false\n', '2:1', ['`workbench` on line 2 has no `:`'], ['`workbench:`']],
    ['no space after a colon', 'name:a\nuser_id: b\n', '1:1', ['`name:a`', 'no space after its `:`'], ['`name: a`']],
    ['a colon and space in a value', 'callback_url: http://x: y\n', '1:15', ['contains `: `'], ['`callback_url: "http://x: y"`']],
    ['an unclosed bracket', 'toolkits: [a, b\nname: x\n', '1:11', ['this `[` is never closed', 'before line 2'], ['`]` after its last item']],
    ['an unclosed bracket after a quoted `]` and a comment', 'toolkits: ["a]", # ]\n  b\nname: x\n', '1:11', ['this `[` is never closed', 'before line 3'], ['`]` after its last item']],
    ['an unclosed bracket at the end of the file', 'name: x\ntoolkits: [a, [b]\n', '2:11', ['this `[` is never closed', 'before the end of the file'], ['`]` after its last item']],
    ['an unclosed quote', 'name: "abc\nuser_id: x\n', '3:1', ['opened with `"` is never closed'], ['closing quote']],
    ['a bad escape', 'name: "a\\qb"\n', '1:9', ['`\\q` is not an escape sequence'], ['single quotes']],
    ['a reserved first character', 'name: @x\n', '1:7', ['cannot start with `@`'], ['`name: "@x"`']],
    ['a block list inside brackets', 'toolkits: [a, - b]\n', '1:15', ['inside brackets'], ['commas']],
    ['two anchors', 'name: &a &b x\n', '1:10', ['two anchors'], ['one `&anchor`']],
    ['a stray bracket', 'name: a\n]\n', '2:1', ['unexpected `]` on line 2'], ['unmatched bracket']],
    ['a comment glued to a value', 'name: a\nuser_id: "b"# c\n', '2:13', ['`#` right after a value'], ['space before `#`']],
    ['a directive after content', 'a: 1\n%YAML 1.2\n---\nb: 2\n', '2:1', ['directive after content'], ['top of the file']],
    ['a key over 1024 characters', `${'a'.repeat(1100)}: 1\n`, '1:1', ['longer than 1,024 characters'], ['shorten']],
  ])('%s', (_name, text, at, message, hint) => {
    const d = first(text);
    expect(d.at).toBe(at);
    for (const words of message) expect(d.message).toContain(words);
    for (const words of hint) expect(d.hint).toContain(words);
    // yaml's own code stays at the end, for searching its docs.
    expect(d.message).toMatch(/ \(yaml [A-Z_0-9]+\)$/);
    expect(d.message).not.toMatch(/Implicit keys|compact mappings|All mapping items/);
  });
});

describe('one mistake, one finding', () => {
  /** Every finding of a text: code, line:col to line:col, and yaml's code when named. */
  const all = (text: string): string[] =>
    parseManifestText(text, 'm.yaml', { env: {} }).diagnostics.map(
      (d) => `${d.code} ${d.range?.start.line}:${d.range?.start.col}-${d.range?.end.line}:${d.range?.end.col}${/\(yaml ([A-Z_0-9]+)\)$/.exec(d.message)?.[1] ?? ''}`,
    );

  it.each([
    // yaml reports each of these two to four times, with the same explanation.
    ['a key indented under a value: the finding that spans both lines', 'name: a\nuser_id: b\n  toolkits: [x]\n', ['yaml/syntax 2:10-3:11MULTILINE_IMPLICIT_KEY']],
    ['a list item out of line: the finding on the item, not its key read', 'name: a\ntoolkits:\n  - github\n - slack\n', ['yaml/syntax 4:2-5:1MISSING_CHAR']],
  ])('%s', (_name, text, expected) => {
    expect(all(text)).toEqual(expected);
  });

  it('two mistakes explained alike on two lines stay two findings', () => {
    expect(all('name: a\nx: "a\\qb"\ny: "c\\qd"\n')).toEqual(['yaml/syntax 2:6-2:7BAD_DQ_ESCAPE', 'yaml/syntax 3:6-3:7BAD_DQ_ESCAPE']);
  });

  it('a key that is not a plain string is its own finding where nothing else is wrong on its line', () => {
    expect(all('name: a\n? [x, y]\n: 1\n')).toEqual(['yaml/non-string-key 2:3-2:4']);
  });
});

describe('oneFindingPerMistake', () => {
  /** A finding on `line` from `from` to `to` (`line:col` each), with words, yaml's code and a hint. */
  const at = (code: Code, from: string, to: string, words = 'a key is out of line', yamlCode = 'BAD_INDENT', hint = 'indent it'): Diagnostic => {
    const [sl, sc] = from.split(':').map(Number) as [number, number];
    const [el, ec] = to.split(':').map(Number) as [number, number];
    return { code, severity: 'error', message: code === 'yaml/syntax' ? `${words} (yaml ${yamlCode})` : words, hint, file: 'm.yaml', range: { start: { line: sl, col: sc }, end: { line: el, col: ec } } };
  };
  const places = (ds: Diagnostic[]): string[] => oneFindingPerMistake(ds).map((d) => `${d.code} ${d.range?.start.line}:${d.range?.start.col}-${d.range?.end.line}:${d.range?.end.col}`);

  it.each([
    ['more lines win', [at('yaml/syntax', '3:5', '3:5'), at('yaml/syntax', '3:2', '4:1', undefined, 'MISSING_CHAR'), at('yaml/syntax', '3:1', '3:9')], 'yaml/syntax 3:2-4:1'],
    ['more columns win', [at('yaml/syntax', '3:1', '3:4'), at('yaml/syntax', '3:2', '3:9', undefined, 'MISSING_CHAR')], 'yaml/syntax 3:2-3:9'],
    ['as wide: the earlier start wins', [at('yaml/syntax', '3:4', '3:6'), at('yaml/syntax', '3:2', '3:4', undefined, 'MISSING_CHAR')], 'yaml/syntax 3:2-3:4'],
  ])('the same mistake twice: %s, in either order', (_name, ds, kept) => {
    expect(places(ds)).toEqual([kept]);
    expect(places([...ds].reverse())).toEqual([kept]);
  });

  it('as wide and from the same place: the first stays', () => {
    const ds = [at('yaml/syntax', '3:2', '3:4'), at('yaml/syntax', '3:2', '3:4', undefined, 'MISSING_CHAR')];
    expect(oneFindingPerMistake(ds)).toEqual([ds[0]]);
    expect(oneFindingPerMistake([...ds].reverse())).toEqual([ds[1]]);
  });

  it("yaml's code is taken off the end of the words only, not off a key the words quote", () => {
    const ds = [at('yaml/syntax', '3:1', '3:2', '`k (yaml X)` is out of line'), at('yaml/syntax', '3:1', '3:2', '`k (yaml X)` is out of line', 'MISSING_CHAR')];
    expect(oneFindingPerMistake(ds)).toEqual([ds[0]]);
  });

  it('keeps findings in their order; the wider one takes the place of the first', () => {
    const ds = [at('yaml/syntax', '2:1', '2:1'), at('yaml/tab-indent', '2:3', '2:4', 'a tab'), at('yaml/syntax', '2:1', '3:1', undefined, 'MULTILINE_IMPLICIT_KEY'), at('yaml/syntax', '5:1', '5:2', 'other words')];
    expect(places(ds)).toEqual(['yaml/syntax 2:1-3:1', 'yaml/tab-indent 2:3-2:4', 'yaml/syntax 5:1-5:2']);
  });

  it('keeps what is not the same mistake: other words, another hint, another line, another code, no place', () => {
    const unplaced: Diagnostic = { code: 'yaml/syntax', severity: 'error', message: 'a key is out of line (yaml BAD_INDENT)', hint: 'indent it' };
    const ds = [
      at('yaml/syntax', '3:1', '3:2'),
      at('yaml/syntax', '3:1', '3:2', 'a key is out of line, twice'),
      at('yaml/syntax', '3:1', '3:2', undefined, undefined, 'indent it more'),
      at('yaml/syntax', '4:1', '4:2'),
      at('yaml/unknown-tag', '6:1', '6:3', 'unknown tag !x'),
      at('yaml/unknown-tag', '6:5', '6:7', 'unknown tag !x'),
      unplaced,
      unplaced,
    ];
    expect(oneFindingPerMistake(ds)).toEqual(ds);
  });

  it('one mistake that yaml reports on several lines: the first place stays, in either order', () => {
    const about = (d: Diagnostic, line: number): Diagnostic => {
      mistakeAbout(d, line);
      return d;
    };
    const ds = [about(at('yaml/syntax', '3:1', '3:2'), 2), about(at('yaml/syntax', '4:1', '6:9', undefined, 'MISSING_CHAR'), 2), about(at('yaml/syntax', '3:5', '3:9'), 2)];
    expect(places(ds)).toEqual(['yaml/syntax 3:1-3:2']);
    expect(places([...ds].reverse())).toEqual(['yaml/syntax 3:1-3:2']);
    // The first place is the earliest line, then the earliest column on it; never a later line.
    expect(places([about(at('yaml/syntax', '3:5', '3:6'), 2), about(at('yaml/syntax', '4:1', '4:2'), 2)])).toEqual(['yaml/syntax 3:5-3:6']);
    expect(places([about(at('yaml/syntax', '4:1', '4:2'), 2), about(at('yaml/syntax', '3:5', '3:6'), 2)])).toEqual(['yaml/syntax 3:5-3:6']);
    // Words of a mistake on another line, or a finding not marked, stay apart.
    expect(places([ds[0]!, about(at('yaml/syntax', '4:1', '4:2'), 4), at('yaml/syntax', '5:1', '5:2')])).toEqual(['yaml/syntax 3:1-3:2', 'yaml/syntax 4:1-4:2', 'yaml/syntax 5:1-5:2']);
  });

  it('a non-string key goes on a line with a syntax finding, and stays on another', () => {
    expect(places([at('yaml/non-string-key', '3:2', '3:3', 'not a plain string'), at('yaml/syntax', '3:1', '3:9'), at('yaml/non-string-key', '4:2', '4:3', 'not a plain string')])).toEqual([
      'yaml/syntax 3:1-3:9',
      'yaml/non-string-key 4:2-4:3',
    ]);
  });
});
