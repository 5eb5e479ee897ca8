import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../../src/diagnostics/errors.js';
import { fileBackend } from '../../../src/state/backend.js';
import type { StateEntry } from '../../../src/state/entry.js';
import type { StateLockOptions } from '../../../src/state/lock.js';
import { moveEntries, pickEntries, pickEntry, pullState, pushState, removeEntries } from '../../../src/state/operations.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * What the `state` commands do (rm, mv, push), in-process on a state file in a temp dir: exact
 * entries afterwards, the errors with their hints, and the lock released whatever happened.
 */

const lock: StateLockOptions = { owner: { pid: 4242, hostname: 'host-a' }, isAlive: () => true };

function entry(name: string, over: Partial<StateEntry> = {}): StateEntry {
  return { name, user_id: 'u1', session_id: `trs_${name}`, mcp_url: 'm', tool_router_tools: [], config_version: 2, body_hash: 'h', body: null, applied_at: '2026-03-01T10:00:00.000Z', ...over };
}

async function stateWith(...entries: StateEntry[]) {
  const backend = fileBackend(join(tempDir('operations'), 'state.json'));
  const s = await backend.openLocked(lock);
  for (const e of entries) await s.record(e);
  await s.unlock();
  return backend;
}

const keys = async (backend: ReturnType<typeof fileBackend>) => (await pullState(backend)).sessions.map((e) => `${e.name}/${e.user_id}`);

/** The UsageError a call throws: its message and hint. */
function usage(call: () => unknown): { message: string; hint: string | undefined } {
  let err: unknown;
  try {
    call();
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(UsageError);
  return { message: (err as UsageError).message, hint: (err as UsageError).hint };
}

describe('pickEntries: what the hint lists', () => {
  test('an empty state, a few names (each once), more than twenty, and the users of a name', () => {
    expect(usage(() => pickEntries([], 'x', undefined, 'loc'))).toEqual({ message: 'the state (loc) has no entry named "x"', hint: 'it records no sessions yet' });
    expect(usage(() => pickEntries([entry('a'), entry('a', { user_id: 'u2' }), entry('b')], 'x', undefined, 'loc')).hint).toBe('it records: a, b');
    const many = Array.from({ length: 23 }, (_, i) => entry(`n${String(i).padStart(2, '0')}`));
    expect(usage(() => pickEntries(many, 'x', undefined, 'loc')).hint).toBe(`it records: ${many.slice(0, 20).map((e) => e.name).join(', ')}, and 3 more`);
    const twenty = many.slice(0, 20);
    expect(usage(() => pickEntries(twenty, 'x', undefined, 'loc')).hint).toBe(`it records: ${twenty.map((e) => e.name).join(', ')}`);
    expect(usage(() => pickEntries([entry('a'), entry('a', { user_id: 'u2' })], 'a', 'u3', 'loc'))).toEqual({ message: '"a" is not recorded for the user id given with --user-id', hint: 'it is recorded for: u1, u2' });
    expect(usage(() => pickEntry([entry('a'), entry('a', { user_id: 'u2' })], 'a', undefined, 'loc'))).toEqual({ message: '"a" is recorded for 2 users (u1, u2)', hint: 'pass --user-id to pick one' });
  });
});

describe('state rm, mv and push on a state file', () => {
  test('rm: every user of a name, or one; the others stay; the lock is released', async () => {
    const backend = await stateWith(entry('a'), entry('a', { user_id: 'u2' }), entry('b'));
    expect((await removeEntries(backend, lock, 'a', 'u2')).map((e) => e.user_id)).toEqual(['u2']);
    expect(await keys(backend)).toEqual(['a/u1', 'b/u1']);
    expect(await removeEntries(backend, lock, 'a', undefined)).toEqual([entry('a')]);
    expect(await keys(backend)).toEqual(['b/u1']);
    expect(await backend.lockHolder()).toBeUndefined();
  });

  test('rm of a name the state does not have: refused, nothing changed, the lock released', async () => {
    const backend = await stateWith(entry('a'));
    await expect(removeEntries(backend, lock, 'zz', undefined)).rejects.toBeInstanceOf(UsageError);
    expect(await keys(backend)).toEqual(['a/u1']);
    expect(await backend.lockHolder()).toBeUndefined();
  });

  test('mv: each user of the name, or one, moves with everything it recorded; the old entries go', async () => {
    const backend = await stateWith(entry('a', { config_version: 7 }), entry('a', { user_id: 'u2' }), entry('b'));
    const moved = (to: string, from: StateEntry) => ({ ...from, name: to });
    expect(await moveEntries(backend, lock, 'a', 'c', 'u2')).toEqual([moved('c', entry('a', { user_id: 'u2' }))]);
    expect(await keys(backend)).toEqual(['a/u1', 'b/u1', 'c/u2']);
    expect(await moveEntries(backend, lock, 'a', 'd', undefined)).toEqual([moved('d', entry('a', { config_version: 7 }))]);
    expect((await pullState(backend)).sessions).toEqual([entry('b'), moved('c', entry('a', { user_id: 'u2' })), moved('d', entry('a', { config_version: 7 }))]);
    expect(await backend.lockHolder()).toBeUndefined();
  });

  test('mv onto itself, or onto a name already recorded for the user: refused with the way on, nothing moved', async () => {
    const backend = await stateWith(entry('a'), entry('a', { user_id: 'u2' }), entry('b'), entry('b', { user_id: 'u3' }));
    const onto = await moveEntries(backend, lock, 'a', 'a', undefined).catch((e: unknown) => e);
    expect(onto).toBeInstanceOf(UsageError);
    expect((onto as UsageError).message).toBe('"a" would be moved onto itself');
    const taken = await moveEntries(backend, lock, 'b', 'a', undefined).catch((e: unknown) => e);
    expect(taken).toBeInstanceOf(UsageError);
    expect([(taken as UsageError).message, (taken as UsageError).hint]).toEqual(['"a" is already recorded for user "u1"; nothing was moved', 'remove it first with `sessionctl state rm a`, or pick another name']);
    const one = await moveEntries(backend, lock, 'a', 'b', undefined).catch((e: unknown) => e);
    expect((one as UsageError).message).toBe('"b" is already recorded for user "u1"; nothing was moved');
    const both = await moveEntries(backend, lock, 'b', 'a', undefined).catch((e: unknown) => e);
    expect((both as UsageError).message).toBe('"a" is already recorded for user "u1"; nothing was moved');
    const two = await stateWith(entry('x'), entry('x', { user_id: 'u2' }), entry('y'), entry('y', { user_id: 'u2' }));
    const taken2 = await moveEntries(two, lock, 'x', 'y', undefined).catch((e: unknown) => e);
    expect((taken2 as UsageError).message).toBe('"y" is already recorded for user "u1", "u2"; nothing was moved');
    expect(await keys(backend)).toEqual(['a/u1', 'a/u2', 'b/u1', 'b/u3']);
    expect(await backend.lockHolder()).toBeUndefined();
  });

  test('push: a dry run writes nothing; a conflict refuses all unless forced; unchanged entries are not written again', async () => {
    const backend = await stateWith(entry('a', { config_version: 5 }), entry('keep'));
    const incoming = [entry('a', { config_version: 4 }), entry('new')];
    const dry = await pushState(backend, lock, [entry('new')], { source: 'in.json', dryRun: true });
    expect([dry.written, dry.changes.map((c) => c.action), dry.kept.map((e) => e.name)]).toEqual([false, ['add'], ['a', 'keep']]);
    expect(await keys(backend)).toEqual(['a/u1', 'keep/u1']);
    const refused = await pushState(backend, lock, incoming, { source: 'in.json' });
    expect([refused.written, refused.changes.map((c) => c.action)]).toEqual([false, ['conflict', 'add']]);
    expect(await keys(backend)).toEqual(['a/u1', 'keep/u1']);
    const forced = await pushState(backend, lock, incoming, { source: 'in.json', force: true });
    expect(forced.written).toBe(true);
    expect((await pullState(backend)).sessions).toEqual([entry('a', { config_version: 4 }), entry('keep'), entry('new')]);
    const forcedDry = await pushState(backend, lock, [entry('other')], { source: 'in.json', force: true, dryRun: true });
    expect(forcedDry.written).toBe(false);
    expect(await keys(backend)).toEqual(['a/u1', 'keep/u1', 'new/u1']);
    // The same instant written another way is unchanged: the entry is not written again.
    const again = await pushState(backend, lock, [entry('keep', { applied_at: '2026-03-01T10:00:00Z' })], { source: 'in.json' });
    expect([again.written, again.changes.map((c) => c.action)]).toEqual([true, ['unchanged']]);
    expect((await pullState(backend)).sessions.find((e) => e.name === 'keep')?.applied_at).toBe('2026-03-01T10:00:00.000Z');
    expect(await backend.lockHolder()).toBeUndefined();
  });
});
