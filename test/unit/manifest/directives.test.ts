import { readdirSync, readFileSync } from 'node:fs';
import { Parser } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readComments } from '../../../src/manifest/comments.js';
import { readDirectives } from '../../../src/manifest/directives.js';
import { dedent } from '../validate/helpers.js';

/** `scope codes@line:col reason` per directive, the form the cases below assert. */
function read(text: string): string[] {
  return readDirectives(dedent(text)).map(
    (d) => `${d.scope} ${d.codes.map((c) => `${c.code}@${c.range.start.line}:${c.range.start.col}`).join(',')} @${d.range.start.line}:${d.range.start.col}${d.reason === undefined ? '' : ` "${d.reason}"`}`,
  );
}

describe('suppression comments', () => {
  it('reads line and file directives with their codes, places and reasons', () => {
    expect(
      read(`
        # sessionctl-ignore-file rule/empty-allowlist: drafts are empty on purpose
        name: x   # sessionctl-ignore rule/a, policy/no-proxy:  reviewed in #123: fine
        # sessionctl-ignore catalog/unknown-toolkit
        toolkits: [gitub]
      `),
    ).toEqual([
      'file rule/empty-allowlist@1:26 @1:1 "drafts are empty on purpose"',
      'line rule/a@2:31,policy/no-proxy@2:39 @2:11 "reviewed in #123: fine"',
      'line catalog/unknown-toolkit@3:21 @3:1',
    ]);
  });

  it('never reads a # inside a value as a comment', () => {
    expect(
      read(`
        description: |
          # sessionctl-ignore rule/in-block: block scalar text
        quoted: "# sessionctl-ignore rule/in-quotes: text"
        single: '# sessionctl-ignore rule/in-single: text'
        plain: a#sessionctl-ignore rule/in-plain
        folded: >-
          text
          # sessionctl-ignore rule/in-folded: text
      `),
    ).toEqual([]);
  });

  it('reads comments inside flow collections, after anchors and in later documents', () => {
    expect(
      read(`
        tools: [a, # sessionctl-ignore rule/flow: x
          b]
        k: &anchor # sessionctl-ignore rule/anchor: y
          x: 1
        ---
        # sessionctl-ignore rule/second-doc: z
        name: b
      `),
    ).toEqual(['line rule/flow@1:32 @1:12 "x"', 'line rule/anchor@3:32 @3:12 "y"', 'line rule/second-doc@6:21 @6:1 "z"']);
  });

  it('keeps a directive without codes or reason, and ignores look-alike words', () => {
    expect(
      read(`
        # sessionctl-ignore
        # sessionctl-ignore: a reason but no code
        # sessionctl-ignorefoo rule/x: not a directive
        #sessionctl-ignore rule/tight:no space
        a: 1
      `),
    ).toEqual(['line  @1:1', 'line  @2:1 "a reason but no code"', 'line rule/tight@4:20 @4:1 "no space"']);
  });

  it('reads every comment of a text through the YAML parser', () => {
    expect(readComments('a: 1 # one\n# two\nb: "#x" #three\n').map((c) => c.text)).toEqual([' one', ' two', 'three']);
  });

  it('finds exactly the comments of yaml\'s syntax tree, at the same offsets, in tricky texts', () => {
    /** The reference: every comment token of the CST that yaml's parser builds. */
    const fromTree = (text: string): Array<[number, string]> => {
      const out: Array<[number, string]> = [];
      const stack: unknown[] = [...new Parser().parse(text)];
      while (stack.length > 0) {
        const node = stack.pop();
        if (node === null || typeof node !== 'object') continue;
        const t = node as { type?: string; offset?: number; source?: string };
        if (t.type === 'comment') out.push([t.offset!, t.source!]);
        else stack.push(...Object.values(node));
      }
      return out.sort((a, b) => a[0] - b[0]);
    };
    const examples = new URL('../../../examples/', import.meta.url);
    const texts = [
      ...readdirSync(examples).filter((f) => f.endsWith('.yaml')).map((f) => readFileSync(new URL(f, examples), 'utf8')),
      '\ufeff# bom\r\na: 1 # crlf\r\n',
      '%YAML 1.2\n# before\n--- # start\na: |  # header\n  # text\n  more\nb: >-\n  # text\n# after\n... # end\n',
      'a: [1, # one\n  2, {b: c, # two\n  d: e}] # three\nf: "x # y" # four\ng: \'# z\' #five\n',
      '? # key\n  k\n: # value\n  v\n- # oops\n',
      'a: &x # anchor\n  b: *x # alias\nc: !!str # tag\n  d\n',
      'unterminated: "abc\n# not after an open quote\n',
      '- a\nb: 1 # broken\n[}\n# still read\n',
    ];
    for (const text of texts) {
      const found = readComments(text);
      expect(found.map((c) => [c.offset, `#${c.text}`]), text).toEqual(fromTree(text));
      for (const c of found) expect(text.slice(c.offset, c.end)).toBe(`#${c.text}`);
    }
  });
});
