import { describe, expect, it } from 'vitest';
import { parseManifestText } from '../../../src/manifest/load.js';
import type { ManifestDocument } from '../../../src/manifest/types.js';
import { yaml } from './yaml-text.js';

function only(text: string): ManifestDocument {
  const r = parseManifestText(text, '/m/session.yaml', { env: {} });
  expect(r.diagnostics).toEqual([]);
  expect(r.documents).toHaveLength(1);
  return r.documents[0] as ManifestDocument;
}

const manifest = yaml`
  name: support-agent
  toolkits:
    enable: [gmail, slack]
  tools:
    github:
      disable:
        - GITHUB_DELETE_A_REPOSITORY
        - GITHUB_X
    "a/b~c": { tags: [readOnlyHint] }
  1: numeric key
  empty:
`;

// Ranges end one column after the last character (exclusive), as SARIF regions do.
describe('locate', () => {
  const doc = only(manifest);
  it.each([
    ['a top-level value', '/name', false, [1, 7], [1, 20]],
    ['a top-level key', '/name', true, [1, 1], [1, 5]],
    ['a flow sequence item', '/toolkits/enable/1', false, [3, 19], [3, 24]],
    ['a block sequence item', '/tools/github/disable/1', false, [8, 9], [8, 17]],
    ['a key with ~1 and ~0 escapes', '/tools/a~1b~0c/tags/0', false, [9, 21], [9, 33]],
    ['the key of an escaped entry', '/tools/a~1b~0c', true, [9, 3], [9, 10]],
    ['a numeric key, compared as a string', '/1', true, [10, 1], [10, 2]],
    ['a key without a value points at the key', '/empty', false, [11, 1], [11, 6]],
    ['a missing index resolves to its sequence', '/toolkits/enable/9', false, [3, 11], [3, 25]],
    ['a missing key resolves to the nearest ancestor', '/tools/slack/enable', false, [5, 3], [9, 36]],
    ['the whole document', '', false, [1, 1], [11, 7]],
  ] as const)('%s', (_name, pointer, key, start, end) => {
    const r = doc.locate(pointer, { key });
    expect([r.start.line, r.start.col]).toEqual(start);
    expect([r.end.line, r.end.col]).toEqual(end);
  });

  it('counts columns in UTF-16 code units after multi-byte characters', () => {
    const d = only('a: "é€😀"\nb: x\n');
    expect(d.locate('/b').start).toEqual({ line: 2, col: 4 });
    const bom = only('\ufeffa: 1\n');
    expect(bom.locate('/a').start).toEqual({ line: 1, col: 4 });
  });

  it('keeps line numbers right with CRLF line ends', () => {
    const d = only('a: 1\r\nb:\r\n  - x\r\n');
    expect(d.locate('/b/0').start).toEqual({ line: 3, col: 5 });
  });

  it('follows aliases to the anchored node', () => {
    const d = only('base: &tk [gmail, slack]\nother: *tk\n');
    expect(d.locate('/other/1').start).toEqual({ line: 1, col: 19 });
    expect(d.data).toEqual({ base: ['gmail', 'slack'], other: ['gmail', 'slack'] });
  });
});

describe('scalar', () => {
  const doc = only('a: yes\nb: "yes"\nc: |\n  text\nd: [1]\n');
  it.each([
    ['/a', { source: 'yes', style: 'plain' }],
    ['/b', { source: '"yes"', style: 'quoted' }],
    ['/c', { source: '|\n  text\n', style: 'block' }],
    ['/d', undefined],
    ['/missing', undefined],
  ] as const)('%s', (pointer, expected) => {
    expect(doc.scalar(pointer)).toEqual(expected);
  });
});
