import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { bindOnRecord } from '../../../src/state/bind-on-record.js';
import type { StateBinding } from '../../../src/state/binding.js';
import type { StateEntry } from '../../../src/state/entry.js';
import { lockOwner } from '../../../src/state/file-lock.js';
import { FileStateStore } from '../../../src/state/file-store.js';
import type { LockedState } from '../../../src/state/store.js';
import { tempDir } from '../../helpers/temp-dir.js';

let dir: string;
beforeEach(() => {
  dir = tempDir('bind-on-record');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const BOUND: StateBinding = { service: 'https://backend.composio.dev', bound_at: '2026-11-28T10:00:00.000Z' };

function entry(name: string, session: string): StateEntry {
  return { name, user_id: 'u1', session_id: session, mcp_url: session === '' ? '' : `http://x/${session}/mcp`, tool_router_tools: [], body_hash: 'h', applied_at: '2026-01-01T00:00:00.000Z', config_version: null, body: null };
}

/** The file store, counting the binds that reach it. */
async function counted(path: string): Promise<{ state: LockedState; binds: StateBinding[] }> {
  const state = await FileStateStore.openLocked(path, { owner: lockOwner(4242), isAlive: () => true });
  const binds: StateBinding[] = [];
  const bind = state.bind.bind(state);
  state.bind = (b) => {
    binds.push(b);
    return bind(b);
  };
  return { state, binds };
}

const onDisk = async (path: string): Promise<{ binding?: StateBinding; sessions: StateEntry[] }> => JSON.parse(await readFile(path, 'utf8'));

describe('bindOnRecord', () => {
  test('an intent (no session yet) and a forget do not bind; the first session binds once, before it is recorded', async () => {
    const path = join(dir, 'state.json');
    const { state, binds } = await counted(path);
    let made = 0;
    const s = bindOnRecord(state, () => {
      made++;
      return BOUND;
    });
    await s.record(entry('a', ''));
    await s.forget('a', 'u1');
    expect([binds, made, (await onDisk(path)).binding]).toEqual([[], 0, undefined]);
    await Promise.all([s.record(entry('a', 'trs_a')), s.record(entry('b', 'trs_b')), s.record(entry('c', 'trs_c'))]);
    expect([binds, made]).toEqual([[BOUND], 1]);
    expect(await onDisk(path)).toEqual({ version: 2, binding: BOUND, sessions: [entry('a', 'trs_a'), entry('b', 'trs_b'), entry('c', 'trs_c')] });
    await s.bindNow();
    expect(binds).toEqual([BOUND]);
    await s.unlock();
  });

  test('bindNow binds at once; reads, the location and an explicit bind pass through', async () => {
    const path = join(dir, 'state.json');
    const { state, binds } = await counted(path);
    const s = bindOnRecord(state, () => BOUND);
    expect([s.location, s.hashAtLoad, s.binding, s.list(), s.get('a', 'u1')]).toEqual([path, '', undefined, [], undefined]);
    await s.bindNow();
    expect([binds, s.binding]).toEqual([[BOUND], BOUND]);
    await s.record(entry('a', 'trs_a'));
    expect([binds.length, s.get('a', 'u1'), s.list()]).toEqual([1, entry('a', 'trs_a'), [entry('a', 'trs_a')]]);
    await s.forget('a', 'u1');
    expect([s.get('a', 'u1'), (await onDisk(path)).sessions]).toEqual([undefined, []]);
    const other = { ...BOUND, service: 'https://gw.example.com' };
    await s.bind(other);
    expect(s.binding).toEqual(other);
    await s.unlock();
    expect((await onDisk(path)).binding).toEqual(other);
    // Unlocked through the wrapper: the lock is free for the next run.
    const next = await FileStateStore.openLocked(path, { owner: lockOwner(4243), isAlive: () => true });
    expect(next.binding).toEqual(other);
    await next.unlock();
  });
});
