import { readFile, readdir, rm, stat, writeFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StateStore, lockOwner, parseState, stateFileHash, type StateEntry } from '../../../src/apply/state.js';
import { InputError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/temp-dir.js';

let dir: string;
beforeEach(async () => {
  dir = tempDir('state');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const owner = lockOwner(4242);
const alive = (): boolean => true;
const dead = (): boolean => false;

function entry(name: string, user = 'u1', session = `trs_${name}`): StateEntry {
  return { name, user_id: user, session_id: session, mcp_url: `http://x/${session}/mcp`, tool_router_tools: ['COMPOSIO_SEARCH_TOOLS'], body_hash: 'h', applied_at: '2026-01-01T00:00:00.000Z' };
}

describe('StateStore', () => {
  test('a missing file is an empty state with an empty hash', async () => {
    const s = await StateStore.load(join(dir, 'nested', 'state.json'));
    expect(s.list()).toEqual([]);
    expect(s.hashAtLoad).toBe('');
  });

  test('records are written atomically with mode 0600, sorted, keyed by name and user', async () => {
    const path = join(dir, '.sessionctl', 'state.json');
    const s = await StateStore.load(path);
    await s.lock({ owner, isAlive: alive });
    await Promise.all([s.record(entry('b')), s.record(entry('a', 'u2')), s.record(entry('a', 'u1'))]);
    await s.record(entry('b', 'u1', 'trs_new'));
    await s.unlock();
    const file = JSON.parse(await readFile(path, 'utf8')) as { version: number; sessions: StateEntry[] };
    expect(file.version).toBe(1);
    expect(file.sessions.map((e) => [e.name, e.user_id, e.session_id])).toEqual([
      ['a', 'u1', 'trs_a'],
      ['a', 'u2', 'trs_a'],
      ['b', 'u1', 'trs_new'],
    ]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readdir(join(dir, '.sessionctl'))).sort()).toEqual(['state.json']); // no temp or lock left
    const again = await StateStore.load(path);
    expect(again.get('a', 'u2')?.session_id).toBe('trs_a');
    expect(again.hashAtLoad).toBe(await stateFileHash(path));
  });

  test('each record is on disk when its promise resolves', async () => {
    const path = join(dir, 'state.json');
    const s = await StateStore.load(path);
    await s.lock({ owner, isAlive: alive });
    await s.record(entry('one'));
    expect((await StateStore.load(path)).list().map((e) => e.name)).toEqual(['one']);
    await s.record(entry('two'));
    expect((await StateStore.load(path)).list().map((e) => e.name)).toEqual(['one', 'two']);
    await s.unlock();
  });

  test('recording without the lock is refused', async () => {
    const s = await StateStore.load(join(dir, 'state.json'));
    await expect(s.record(entry('a'))).rejects.toThrow(/without the lock/);
  });

  test('a live lock is a clear InputError naming its holder', async () => {
    const path = join(dir, 'state.json');
    const first = await StateStore.load(path);
    await first.lock({ owner: lockOwner(1111), isAlive: alive });
    const second = await StateStore.load(path);
    const err = await second.lock({ owner, isAlive: alive }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/locked by process 1111 on .*another apply is running/);
    await first.unlock();
    await second.lock({ owner, isAlive: alive });
    await second.unlock();
  });

  test.each([
    ['a dead process on this host', async (lock: string) => writeFile(lock, JSON.stringify({ pid: 1111, hostname: owner.hostname, since: 'x' })), dead],
    [
      'an old lock of another host',
      async (lock: string) => {
        await writeFile(lock, JSON.stringify({ pid: 1, hostname: 'elsewhere' }));
        await utimes(lock, new Date(0), new Date(0));
      },
      alive,
    ],
    [
      'an old unreadable lock',
      async (lock: string) => {
        await writeFile(lock, '');
        await utimes(lock, new Date(0), new Date(0));
      },
      alive,
    ],
  ])('a stale lock is taken over: %s', async (_name, plant, isAlive) => {
    const path = join(dir, 'state.json');
    await plant(`${path}.lock`);
    const s = await StateStore.load(path);
    await s.lock({ owner, isAlive });
    await s.record(entry('a'));
    await s.unlock();
    expect((await StateStore.load(path)).list()).toHaveLength(1);
  });

  test('a recent lock of another host is not stale', async () => {
    const path = join(dir, 'state.json');
    await writeFile(`${path}.lock`, JSON.stringify({ pid: 1, hostname: 'elsewhere' }));
    const s = await StateStore.load(path);
    await expect(s.lock({ owner, isAlive: dead })).rejects.toThrow(/locked by process 1 on elsewhere/);
  });

  test('a corrupt state file is an error and is left untouched', async () => {
    const path = join(dir, 'state.json');
    await writeFile(path, '{"version": 1, "sessions": [');
    await expect(StateStore.load(path)).rejects.toThrow(InputError);
    expect(await readFile(path, 'utf8')).toBe('{"version": 1, "sessions": [');
  });
});

describe('parseState', () => {
  test.each([
    ['not JSON', 'nope', /not JSON/],
    ['an array', '[]', /not a JSON object/],
    ['no version', '{"sessions": []}', /no "version"/],
    ['a newer version', '{"version": 2, "sessions": []}', /format version 2.*newer sessionctl/],
    ['sessions not a list', '{"version": 1, "sessions": {}}', /"sessions" is not a list/],
    ['a missing field', '{"version": 1, "sessions": [{"name": "a"}]}', /sessions\[0\]\.user_id is not a string/],
    [
      'bad tools',
      '{"version":1,"sessions":[{"name":"a","user_id":"u","session_id":"s","mcp_url":"m","body_hash":"h","applied_at":"t","tool_router_tools":[1]}]}',
      /tool_router_tools is not a list of strings/,
    ],
  ])('%s', (_name, text, message) => {
    expect(() => parseState(text, '/s.json')).toThrow(message);
  });
});
