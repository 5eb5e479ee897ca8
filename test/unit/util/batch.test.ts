import { describe, expect, test } from 'vitest';
import { batcher } from '../../../src/util/batch.js';

/** A batch function whose batches the test releases one at a time. */
function gated<I>() {
  const batches: I[][] = [];
  const gates: Array<() => void> = [];
  const run = async (items: readonly I[]): Promise<string[]> => {
    batches.push([...items]);
    await new Promise<void>((resolve) => gates.push(resolve));
    return items.map((i) => `done ${String(i)}`);
  };
  const release = async () => {
    gates.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { batches, run, release };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('batcher', () => {
  test('a lone call leaves at once; calls that arrive while a batch runs share the next one', async () => {
    const g = gated<number>();
    const call = batcher(g.run, { maxRunning: 1, maxBatch: 100 });
    const first = call(1);
    await tick();
    expect(g.batches).toEqual([[1]]);
    const later = [call(2), call(3), call(4)];
    await tick();
    expect(g.batches).toEqual([[1]]);
    await g.release();
    expect(g.batches).toEqual([[1], [2, 3, 4]]);
    await g.release();
    expect(await first).toBe('done 1');
    expect(await Promise.all(later)).toEqual(['done 2', 'done 3', 'done 4']);
  });

  test('calls made in one turn go together; maxRunning batches run at once, each of at most maxBatch', async () => {
    const g = gated<number>();
    const call = batcher(g.run, { maxRunning: 2, maxBatch: 3 });
    const all = Array.from({ length: 10 }, (_, i) => call(i));
    await tick();
    expect(g.batches).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    await g.release();
    expect(g.batches.slice(2)).toEqual([[6, 7, 8]]);
    await g.release();
    expect(g.batches.slice(3)).toEqual([[9]]);
    await g.release();
    await g.release();
    expect(await Promise.all(all)).toEqual(all.map((_, i) => `done ${i}`));
  });

  test('a failed batch rejects each of its calls and no other; the next batch runs', async () => {
    let n = 0;
    const call = batcher(async (items: readonly string[]) => {
      n++;
      if (n === 1) throw new Error('the database went away');
      return items.map((i) => i.toUpperCase());
    }, { maxRunning: 1, maxBatch: 10 });
    const a = call('a');
    const b = call('b');
    await expect(a).rejects.toThrow('the database went away');
    await expect(b).rejects.toThrow('the database went away');
    expect(await call('c')).toBe('C');
  });

  test('a batch that answers another number of results than it was given rejects its calls', async () => {
    const call = batcher(async (items: readonly number[]) => items.slice(1), { maxRunning: 1, maxBatch: 10 });
    const calls = [call(1), call(2)];
    for (const c of calls) await expect(c).rejects.toThrow('a batch of 2 answered 1 results');
  });

  test('a batch function that throws before its promise is a rejection too', async () => {
    const call = batcher((): Promise<number[]> => {
      throw new Error('bad statement');
    }, { maxRunning: 1, maxBatch: 10 });
    await expect(call(1)).rejects.toThrow('bad statement');
    await expect(call(2)).rejects.toThrow('bad statement');
  });
});
