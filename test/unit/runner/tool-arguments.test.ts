import { Readable } from 'node:stream';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InputError, UsageError } from '../../../src/diagnostics/errors.js';
import {
  buildToolArguments,
  jsonErrorOffset,
  lineCol,
  parseArgPairs,
  parseArgValue,
  parseJsonText,
  parseKnownFields,
  parseProxyParam,
} from '../../../src/runner/tool-arguments.js';
import { tempDir } from '../../helpers/temp-dir.js';

describe('--arg values', () => {
  test.each([
    ['3', 3],
    ['-1.5', -1.5],
    ['true', true],
    ['null', null],
    ['{"a":1}', { a: 1 }],
    ['["x","y"]', ['x', 'y']],
    ['"007"', '007'],
    ['007', '007'],
    ['octocat', 'octocat'],
    ['', ''],
    ['hello world', 'hello world'],
    ['{not json', '{not json'],
  ])('%j -> %j', (raw, value) => {
    expect(parseArgValue(raw)).toEqual(value);
  });

  test('key=value pairs; only the first = splits', () => {
    expect(parseArgPairs(['owner=octocat', 'q=a=b', 'n=2'])).toEqual({ owner: 'octocat', q: 'a=b', n: 2 });
  });

  test.each([
    [['novalue'], /--arg #1 \("novalue"\): expected key=value/],
    [['a=1', '=2'], /--arg #2 \("=2"\): the key before "=" is empty/],
    [['a=1', 'a=2'], /--arg #2 \("a=2"\): "a" is given twice/],
  ])('%j is a usage error naming the --arg', (pairs, message) => {
    expect(() => parseArgPairs(pairs)).toThrow(UsageError);
    expect(() => parseArgPairs(pairs)).toThrow(message);
  });
});

describe('JSON errors are located without echoing the text', () => {
  test.each([
    ['{\n  "owner": "octocat",\n  "repo": hello\n}\n', '3:11', "unexpected token 'h'"],
    ['{"a": 1,}', '1:9', 'expected double-quoted property name'],
    ['{\n"a": 1\n', '3:1', "expected ',' or '}' after property value"],
    ['', '1:1', 'unexpected end of input'],
    ['[1, 2 3]', '1:7', "expected ',' or ']' after array element"],
  ])('%j at %s', (text, at, reason) => {
    let err: unknown;
    try {
      parseJsonText(text, 'args.json');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).file).toBe('args.json');
    expect((err as InputError).message).toBe(`${at}: not valid JSON: ${reason}`);
  });

  test('offsets and line:col', () => {
    expect(jsonErrorOffset('abc')).toBe(0);
    expect(lineCol('a\nbc', 3)).toEqual({ line: 2, col: 2 });
  });

  test('a BOM is skipped', () => {
    expect(parseJsonText('\uFEFF{"a":1}', 'x')).toEqual({ a: 1 });
  });
});

describe('buildToolArguments', () => {
  let dir: string;
  beforeAll(async () => {
    dir = tempDir('args');
    await writeFile(join(dir, 'a.json'), '{"owner": "octocat", "repo": "x", "n": 1}');
    await writeFile(join(dir, 'list.json'), '[1]');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const io = (stdin = '') => ({ cwd: dir, stdin: Readable.from([Buffer.from(stdin)]) });

  test('file first, then each --arg replaces a top-level key', async () => {
    expect(await buildToolArguments(['repo=y', 'extra=true'], 'a.json', io())).toEqual({ owner: 'octocat', repo: 'y', n: 1, extra: true });
  });

  test('- reads standard input', async () => {
    expect(await buildToolArguments([], '-', io('{"q": "from stdin"}'))).toEqual({ q: 'from stdin' });
  });

  test('not an object, a missing file: input errors naming the file', async () => {
    await expect(buildToolArguments([], 'list.json', io())).rejects.toThrow(/must hold a JSON object .* not an array/);
    await expect(buildToolArguments([], 'missing.json', io())).rejects.toThrow(/cannot read the file \(no such file\)/);
    await expect(buildToolArguments([], '.', io())).rejects.toThrow(/it is a folder/);
  });
});

describe('search and proxy flags', () => {
  test('known fields become the service spelling', () => {
    expect(parseKnownFields('channel:general, user:alice,')).toBe('channel:general, user:alice');
    expect(() => parseKnownFields('general')).toThrow(/"general" is not key:value/);
    expect(() => parseKnownFields(':x')).toThrow(UsageError);
    expect(() => parseKnownFields(' , ')).toThrow(/empty/);
  });

  test('--param header:NAME=VALUE and query:NAME=VALUE', () => {
    expect(parseProxyParam('header:Accept=application/json', 0)).toEqual({ type: 'header', name: 'Accept', value: 'application/json' });
    expect(parseProxyParam('query:q=a=b', 0)).toEqual({ type: 'query', name: 'q', value: 'a=b' });
    expect(parseProxyParam('query:empty=', 0)).toEqual({ type: 'query', name: 'empty', value: '' });
    expect(() => parseProxyParam('cookie:a=b', 2)).toThrow(/--param #3/);
    expect(() => parseProxyParam('query:novalue', 0)).toThrow(UsageError);
  });
});
