import { describe, expect, test } from 'vitest';
import { RateLimiter, mapConcurrent, parseRateLimit, type Clock } from '../../../src/util/throttle.js';

/** A clock that only moves when someone sleeps. */
function fakeClock(): Clock {
  let t = 0;
  return {
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
  };
}

describe('RateLimiter', () => {
  test('spaces requests evenly: no 60 s span holds more than the limit', async () => {
    const clock = fakeClock();
    const limiter = new RateLimiter(120, clock);
    const times: number[] = [];
    for (let i = 0; i < 300; i++) {
      await limiter.acquire();
      times.push(clock.now());
    }
    expect(times.slice(0, 4)).toEqual([0, 505, 1010, 1515]);
    // 1 % slack: the 121st request is 600 ms past the first one's minute.
    for (let i = 0; i + 120 < times.length; i++) expect(times[i + 120]! - times[i]!).toBeGreaterThanOrEqual(60_600);
  });

  test('callers arriving at the same moment get distinct slots', async () => {
    const waits: number[] = [];
    const limiter = new RateLimiter(600, { now: () => 0, sleep: async (ms) => void waits.push(ms) });
    await Promise.all([limiter.acquire(), limiter.acquire(), limiter.acquire()]);
    expect(waits).toEqual([101, 202]);
  });
});

describe('parseRateLimit', () => {
  test.each<[string, number | undefined]>([
    ['2000/min', 2000],
    ['2000/m', 2000],
    ['10/s', 600],
    ['120/h', 2],
    ['500', 500],
    ['0/min', undefined],
    ['-1/min', undefined],
    ['fast', undefined],
    ['10/day', undefined],
  ])('%s', (text, perMinute) => {
    expect(parseRateLimit(text)).toBe(perMinute);
  });
});

describe('mapConcurrent', () => {
  test('keeps order and never exceeds the bound', async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapConcurrent([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, n));
      inFlight--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60]);
    expect(peak).toBe(3);
  });

  test('an error rejects after the calls in flight settle, and starts no new ones', async () => {
    const started: number[] = [];
    const run = mapConcurrent([1, 2, 3, 4], 2, async (n) => {
      started.push(n);
      if (n === 1) throw new Error('boom');
      await new Promise((r) => setTimeout(r, 5));
      return n;
    });
    await expect(run).rejects.toThrow('boom');
    expect(started).toEqual([1, 2]);
  });
});
