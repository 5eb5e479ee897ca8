import { describe, expect, test } from 'vitest';
import { keepLease } from '../../../src/state/postgres-lease.js';

/**
 * The keeping of a lease, with renewals the test answers itself (each one a promise it settles):
 * one renewal at a time, a lost lock reported once and no renewal after it, a failed renewal
 * tried again, and `stop` waiting for the renewal in flight. The turns are 1 ms apart; nothing
 * depends on when a timer fires, only on the order of the calls.
 */

/** A renewal function whose calls the test answers in turn. */
function renewals() {
  const calls: Array<{ answer(held: boolean): void; fail(err: Error): void }> = [];
  let waiting: ((n: number) => void) | undefined;
  let wanted = 0;
  let inFlight = 0;
  let overlapped = false;
  const renew = () =>
    new Promise<boolean>((resolve, reject) => {
      if (inFlight > 0) overlapped = true;
      inFlight++;
      const settle = () => inFlight--;
      calls.push({ answer: (held) => (settle(), resolve(held)), fail: (err) => (settle(), reject(err)) });
      if (waiting !== undefined && calls.length >= wanted) waiting(calls.length);
    });
  /** Resolves once the `n`-th renewal has been asked for. */
  const asked = (n: number) => (calls.length >= n ? Promise.resolve(calls.length) : new Promise<number>((done) => ((wanted = n), (waiting = done))));
  return { renew, calls, asked, overlapped: () => overlapped };
}

describe('keepLease', () => {
  test('renews turn after turn, one renewal at a time; stop waits for the one in flight, and none starts after it', async () => {
    const r = renewals();
    let lost = 0;
    const keeper = keepLease(r.renew, 1, () => lost++);
    await r.asked(1);
    r.calls[0]!.answer(true);
    await r.asked(2);
    r.calls[1]!.answer(true);
    await r.asked(3);
    let stopped = false;
    const stopping = keeper.stop().then(() => (stopped = true));
    await new Promise((done) => setTimeout(done, 20));
    expect(stopped).toBe(false);
    r.calls[2]!.answer(true);
    await stopping;
    await new Promise((done) => setTimeout(done, 20));
    expect([r.calls.length, r.overlapped(), lost]).toEqual([3, false, 0]);
  });

  test('a renewal that finds the lock gone: `lost` once, and no renewal after it', async () => {
    const r = renewals();
    let lost = 0;
    const keeper = keepLease(r.renew, 1, () => lost++);
    await r.asked(1);
    r.calls[0]!.answer(false);
    await new Promise((done) => setTimeout(done, 20));
    expect([r.calls.length, lost]).toEqual([1, 1]);
    await keeper.stop();
    expect(lost).toBe(1);
  });

  test('a renewal that fails (the database out of reach) is tried again at the next turn, and is not a lost lock', async () => {
    const r = renewals();
    let lost = 0;
    const keeper = keepLease(r.renew, 1, () => lost++);
    await r.asked(1);
    r.calls[0]!.fail(new Error('Connection terminated unexpectedly'));
    await r.asked(2);
    r.calls[1]!.answer(true);
    await r.asked(3);
    const stopping = keeper.stop();
    r.calls[2]!.answer(false);
    await stopping;
    // The last answer came after stop: the run is releasing its lock anyway, nothing is reported lost.
    expect([r.calls.length, lost]).toEqual([3, 0]);
  });

  test('stop before the first turn: no renewal at all', async () => {
    const r = renewals();
    await keepLease(r.renew, 1, () => undefined).stop();
    await new Promise((done) => setTimeout(done, 20));
    expect(r.calls).toEqual([]);
  });
});
