import { readFile, readdir, rm, stat, writeFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { parseState, type StateEntry } from '../../../src/state/entry.js';
import { lockOwner } from '../../../src/state/file-lock.js';
import { FileStateStore } from '../../../src/state/file-store.js';
import { InputError } from '../../../src/diagnostics/errors.js';
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
  return { name, user_id: user, session_id: session, mcp_url: `http://x/${session}/mcp`, tool_router_tools: ['COMPOSIO_SEARCH_TOOLS'], body_hash: 'h', applied_at: '2026-01-01T00:00:00.000Z', config_version: null, body: null };
}

describe('FileStateStore', () => {
  test('a missing file is an empty state with an empty hash', async () => {
    const s = await FileStateStore.load(join(dir, 'nested', 'state.json'));
    expect(s.list()).toEqual([]);
    expect(s.hashAtLoad).toBe('');
  });

  test('records are written atomically with mode 0600, sorted, keyed by name and user', async () => {
    const path = join(dir, '.sessionctl', 'state.json');
    const s = await FileStateStore.openLocked(path, { owner, isAlive: alive });
    await Promise.all([s.record(entry('b')), s.record(entry('a', 'u2')), s.record(entry('a', 'u1'))]);
    await s.record(entry('b', 'u1', 'trs_new'));
    await s.unlock();
    const file = JSON.parse(await readFile(path, 'utf8')) as { version: number; sessions: StateEntry[] };
    expect(file.version).toBe(2);
    expect(file.sessions.map((e) => [e.name, e.user_id, e.session_id])).toEqual([
      ['a', 'u1', 'trs_a'],
      ['a', 'u2', 'trs_a'],
      ['b', 'u1', 'trs_new'],
    ]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await readdir(join(dir, '.sessionctl'))).sort()).toEqual(['state.json']); // no temp or lock left
    const again = await FileStateStore.load(path);
    expect(again.get('a', 'u2')?.session_id).toBe('trs_a');
    expect(again.hashAtLoad).toBe(createHash('sha256').update(await readFile(path)).digest('hex'));
  });

  test('each record is on disk when its promise resolves', async () => {
    const path = join(dir, 'state.json');
    const s = await FileStateStore.openLocked(path, { owner, isAlive: alive });
    await s.record(entry('one'));
    expect((await FileStateStore.load(path)).list().map((e) => e.name)).toEqual(['one']);
    await s.record(entry('two'));
    expect((await FileStateStore.load(path)).list().map((e) => e.name)).toEqual(['one', 'two']);
    await s.unlock();
  });

  test('recording after the lock is released is refused', async () => {
    const s = await FileStateStore.openLocked(join(dir, 'state.json'), { owner, isAlive: alive });
    await s.unlock();
    await expect(s.record(entry('a'))).rejects.toThrow(/without the lock/);
  });

  test('a live lock is a clear InputError naming its holder', async () => {
    const path = join(dir, 'state.json');
    const first = await FileStateStore.openLocked(path, { owner: lockOwner(1111), isAlive: alive });
    const err = await FileStateStore.openLocked(path, { owner, isAlive: alive }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/locked by process 1111 on .*another apply is running/);
    await first.unlock();
    const second = await FileStateStore.openLocked(path, { owner, isAlive: alive });
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
    const s = await FileStateStore.openLocked(path, { owner, isAlive });
    await s.record(entry('a'));
    await s.unlock();
    expect((await FileStateStore.load(path)).list()).toHaveLength(1);
  });

  test('a recent lock of another host is not stale', async () => {
    const path = join(dir, 'state.json');
    await writeFile(`${path}.lock`, JSON.stringify({ pid: 1, hostname: 'elsewhere' }));
    await expect(FileStateStore.openLocked(path, { owner, isAlive: dead })).rejects.toThrow(/locked by process 1 on elsewhere/);
  });

  test('a corrupt state file is an error and is left untouched', async () => {
    const path = join(dir, 'state.json');
    await writeFile(path, '{"version": 1, "sessions": [');
    await expect(FileStateStore.load(path)).rejects.toThrow(InputError);
    expect(await readFile(path, 'utf8')).toBe('{"version": 1, "sessions": [');
  });
});

describe('parseState', () => {
  test.each([
    ['not JSON', 'nope', /not JSON: Unexpected token/],
    ['not JSON on a later line', '{\n  "version": 2,\n  "sessions": [1 2]\n}', /not JSON at line 3, column 18\)/],
    ['cut off', '{"version": 2, "sessions": [', /not JSON \(it ends too early: cut off\?\)/],
    ['an array', '[]', /not a JSON object/],
    ['no version', '{"sessions": []}', /no "version"/],
    ['a newer version', '{"version": 4, "sessions": []}', /format version 4.*newer sessionctl/],
    ['sessions not a list', '{"version": 1, "sessions": {}}', /"sessions" is not a list/],
    ['a missing field', '{"version": 1, "sessions": [{"name": "a"}]}', /sessions\[0\]\.user_id is not a string/],
    [
      'bad tools',
      '{"version":1,"sessions":[{"name":"a","user_id":"u","session_id":"trs_s","mcp_url":"m","body_hash":"h","applied_at":"t","tool_router_tools":[1]}]}',
      /tool_router_tools is not a list of strings/,
    ],
  ])('%s', (_name, text, message) => {
    expect(() => parseState(text, '/s.json')).toThrow(message);
  });
});
