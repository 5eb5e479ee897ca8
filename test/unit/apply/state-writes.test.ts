import { describe, expect, test } from 'vitest';
import { guardWrites } from '../../../src/apply/state-writes.js';
import { StateError } from '../../../src/diagnostics/errors.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { LockedState } from '../../../src/state/store.js';
import { stateFailure } from '../../helpers/rejection.js';

const entry: StateEntry = { name: 'a', user_id: 'u1', session_id: 'trs_a', mcp_url: 'https://mcp.example/a', tool_router_tools: [], config_version: 1, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z' };

/** A state whose writes fail with `failure`; reads answer `entry`. */
function failingWith(failure: unknown): LockedState {
  return {
    location: '/w/st/state.json',
    hashAtLoad: 'h1',
    get: (name) => (name === 'a' ? entry : undefined),
    list: () => [entry],
    binding: undefined,
    record: () => Promise.reject(failure),
    forget: () => Promise.reject(failure),
    bind: () => Promise.reject(failure),
    publish: () => Promise.reject(failure),
    unlock: async () => undefined,
  };
}

describe('guardWrites: every write apply makes fails as a StateError', () => {
  test('a file system error: its message, the state as the location, the error as the cause', async () => {
    const eio = Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
    const state = guardWrites(failingWith(eio));
    for (const write of [state.record(entry), state.forget('a', 'u1'), state.bind({ service: 'emulator', bound_at: '2026-03-01T10:00:00.000Z' })]) {
      const err = await stateFailure(write);
      expect([err.message, err.file, err.cause]).toStrictEqual(['EIO: i/o error, write', '/w/st/state.json', eio]);
    }
  });

  test('something thrown that is not an Error: its text', async () => {
    const err = await stateFailure(guardWrites(failingWith('the disk is full')).record(entry));
    expect([err.message, err.cause]).toStrictEqual(['the disk is full', 'the disk is full']);
  });

  test('a StateError (a lock gone, the database): passed on as it is', async () => {
    const gone = new StateError('the state lock L1 is no longer held', '/w/st/state.json');
    expect(await stateFailure(guardWrites(failingWith(gone)).forget('a', 'u1'))).toBe(gone);
  });

  test('reads, the location and unlock pass through', async () => {
    let unlocked = 0;
    const state = guardWrites({ ...failingWith(new Error('x')), unlock: async () => void unlocked++ });
    expect([state.location, state.hashAtLoad, state.get('a', 'u1'), state.get('b', 'u1'), state.list()]).toStrictEqual(['/w/st/state.json', 'h1', entry, undefined, [entry]]);
    await state.unlock();
    expect(unlocked).toBe(1);
  });
});
