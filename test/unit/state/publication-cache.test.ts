import { describe, expect, test } from 'vitest';
import type { Publication } from '../../../src/state/fleet.js';
import { publicationCache } from '../../../src/state/publication-cache.js';

const publication = (version: number, hash = `h${version}`): Publication => ({
  name: 'agent',
  version,
  body: { toolkits: { enable: [`v${version}`] } },
  templates: [],
  body_hash: hash,
  api_version: '3.1',
  file: 'agent.yaml',
  published_at: '2026-11-28T00:00:00.000Z',
});

describe('publicationCache', () => {
  test('a version is read once; a new version or another body hash is read again', async () => {
    let current: Publication | undefined = publication(1);
    const reads: number[] = [];
    const of = publicationCache(async () => {
      reads.push(current?.version ?? 0);
      return current;
    });
    expect((await of('agent', 1, 'h1'))?.version).toBe(1);
    expect((await of('agent', 1, 'h1'))?.version).toBe(1);
    expect(reads).toEqual([1]);
    current = publication(2);
    expect((await of('agent', 2, 'h2'))?.version).toBe(2);
    // The same version number with another body (a state made again from nothing) is another body.
    current = publication(2, 'other');
    expect((await of('agent', 2, 'other'))?.body_hash).toBe('other');
    expect(reads).toEqual([1, 2, 2]);
    current = undefined;
    expect(await of('agent', 3, 'h3')).toBeUndefined();
  });

  test('a body published again under a later version (a revert) is that later version, and a read that ended is never shared again', async () => {
    let current = publication(1, 'body-a');
    let reads = 0;
    const of = publicationCache(async () => {
      reads++;
      return current;
    });
    expect((await of('agent', 1, 'body-a'))?.version).toBe(1);
    current = publication(3, 'body-a');
    expect((await of('agent', 3, 'body-a'))?.version).toBe(3);
    current = publication(3, 'body-c');
    expect((await of('agent', 3, 'body-c'))?.body_hash).toBe('body-c');
    current = publication(3, 'body-d');
    expect((await of('agent', 3, 'body-d'))?.body_hash).toBe('body-d');
    expect(reads).toBe(4);
  });

  test('a read that has ended is not shared with a later miss', async () => {
    let current = publication(2, 'x');
    const of = publicationCache(async () => current);
    expect((await of('agent', 2, 'x'))?.body_hash).toBe('x');
    current = publication(2, 'y');
    expect((await of('agent', 2, 'y'))?.body_hash).toBe('y');
  });

  test('callers that miss together share one read', async () => {
    let reads = 0;
    const of = publicationCache(async () => {
      reads++;
      await new Promise((r) => setTimeout(r, 5));
      return publication(1);
    });
    const all = await Promise.all(Array.from({ length: 10 }, () => of('agent', 1, 'h1')));
    expect(all.every((p) => p?.version === 1)).toBe(true);
    expect(reads).toBe(1);
  });

  test('a shared read that answers a version older than the claim saw is read again', async () => {
    // The first caller's read starts before a publish and answers version 1 after it; the second
    // caller claimed under version 2 and must not create from version 1.
    let answer = publication(1);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let reads = 0;
    const of = publicationCache(async () => {
      reads++;
      const mine = answer;
      if (reads === 1) await gate;
      return mine;
    });
    const first = of('agent', 1, 'h1');
    answer = publication(2);
    const second = of('agent', 2, 'h2');
    release();
    expect((await first)?.version).toBe(1);
    expect((await second)?.version).toBe(2);
    expect(reads).toBe(2);
  });
});
