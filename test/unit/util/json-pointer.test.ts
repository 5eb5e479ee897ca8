import { describe, expect, it } from 'vitest';
import { escapeSegment, joinPointer, parentPointer, splitPointer } from '../../../src/util/json-pointer.js';

describe('JSON pointers (RFC 6901)', () => {
  it.each([
    ['gmail', 'gmail'],
    ['a/b', 'a~1b'],
    ['a~b', 'a~0b'],
    ['~/', '~0~1'],
    ['/~1', '~1~01'],
    ['', ''],
    [0, '0'],
    [12, '12'],
  ])('escapes %j as %j', (segment, escaped) => {
    expect(escapeSegment(segment)).toBe(escaped);
  });

  it('joins segments, escaping each, and round-trips through splitPointer', () => {
    expect(joinPointer('')).toBe('');
    expect(joinPointer('/tools', 'a/b', 0, 'tags')).toBe('/tools/a~1b/0/tags');
    expect(joinPointer('', '', 'x~')).toBe('//x~0');
    expect(splitPointer(joinPointer('', 'a/b', '~1', 3))).toEqual(['a/b', '~1', '3']);
  });

  it('reads a pointer written without its leading slash as the same segments, and finds parents', () => {
    expect(splitPointer('tools/a~1b')).toEqual(['tools', 'a/b']);
    expect(splitPointer('/')).toEqual(['']);
    expect(splitPointer('')).toEqual([]);
    expect(parentPointer('/tools/gmail')).toBe('/tools');
    expect(parentPointer('/tools')).toBe('');
    expect(parentPointer('')).toBe('');
    expect(parentPointer('tools')).toBe('');
  });
});
