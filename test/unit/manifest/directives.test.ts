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
});
