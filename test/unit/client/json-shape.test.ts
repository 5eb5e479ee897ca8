import { describe, expect, it } from 'vitest';
import { jsonShapeProblem } from '../../../src/util/json-shape.js';

const nested = (n: number): unknown => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`);

describe('jsonShapeProblem', () => {
  it.each([
    ['a session-sized object', { a: [1, { b: 'c' }], d: null }, undefined],
    ['63 levels below the root', { x: nested(63) }, undefined],
    ['64 levels below the root', { x: nested(64) }, 'JSON nested deeper than 64 levels at /x/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0'],
    ['100,000 levels (checked without recursion)', nested(100_000), 'JSON nested deeper than 64 levels at /0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0'],
    ['an object of 50,001 keys', { config: Object.fromEntries(Array.from({ length: 50_001 }, (_, i) => [`k${i}`, i])) }, 'more than 50000 entries in one object at /config'],
    ['an array of 50,001 items under a key with / and ~', { 'a/b~c': Array.from({ length: 50_001 }, () => 0) }, 'more than 50000 entries in one array at /a~1b~0c'],
  ])('%s', (_name, value, problem) => {
    expect(jsonShapeProblem(value)).toBe(problem);
  });
});
