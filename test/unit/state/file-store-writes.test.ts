import { execFileSync } from 'node:child_process';
import { skipBecause } from '../../helpers/skip.js';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, test } from 'vitest';
import type { StateEntry } from '../../../src/state/entry.js';
import { forceUnlockFile, lockOwner, readFileLock, takeFileLock } from '../../../src/state/file-lock.js';
import { DEFAULT_STATE_PATH, FileStateStore, stateFileHash } from '../../../src/state/file-store.js';
import type { StateLockOptions } from '../../../src/state/lock.js';
import { inputFailure, stateFailure } from '../../helpers/rejection.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The file backend held to exact values: the state file's bytes, what a failed read does to the
 * lock, writes in flight and the lock's release, a run whose lock was released by `state unlock`,
 * and every error's class, text and file.
 */

let dir: string;
let path: string;
beforeEach(() => {
  dir = tempDir('file-store');
  path = join(dir, 'state.json');
});

const lock: StateLockOptions = { owner: lockOwner(4242), isAlive: () => true };

function entry(name: string): StateEntry {
  return { name, user_id: 'u1', session_id: `trs_${name}`, mcp_url: `https://mcp.example/${name}`, tool_router_tools: ['COMPOSIO_SEARCH_TOOLS'], body_hash: `h-${name}`, applied_at: '2026-03-01T10:00:00.000Z', config_version: 1, body: null };
}

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

test('the default state path', () => {
  expect(DEFAULT_STATE_PATH).toBe('.sessionctl/state.json');
});

describe('the state file as written', () => {
  test('is the state as JSON, indented by two, ending in one newline; its hash is that of its bytes', async () => {
    const s = await FileStateStore.openLocked(path, lock);
    await s.record(entry('b'));
    await s.record(entry('a'));
    await s.unlock();
    const text = await readFile(path, 'utf8');
    expect(text).toBe(`${JSON.stringify({ version: 2, sessions: [entry('a'), entry('b')] }, null, 2)}\n`);
    expect(await stateFileHash(path)).toBe(sha256(text));
    expect((await FileStateStore.load(path)).hashAtLoad).toBe(sha256(text));
  });

  test('records made in one turn share one write', async () => {
    const s = await FileStateStore.openLocked(path, lock);
    const first = s.record(entry('a'));
    const second = s.record(entry('b'));
    expect(second).toBe(first);
    await first;
    expect((await FileStateStore.load(path)).list().map((e) => e.name)).toEqual(['a', 'b']);
    await s.unlock();
  });

  test('unlock waits for a write in flight: the file holds it when unlock resolves', async () => {
    const s = await FileStateStore.openLocked(path, lock);
    const recorded = s.record(entry('a'));
    await s.unlock();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ version: 2, sessions: [entry('a')] });
    expect(await readdir(dir)).toEqual(['state.json']);
    await recorded;
  });

  test('unlock a second time does nothing, even with the folder gone', async () => {
    const s = await FileStateStore.openLocked(path, lock);
    await s.unlock();
    await rm(dir, { recursive: true });
    await s.unlock();
    await mkdir(dir);
  });
});

describe('a run whose lock is no longer its own writes nothing', () => {
  const message = (id: string): string => `the state lock ${id} is no longer held (it was released with \`sessionctl state unlock\`, or its folder was moved); the state file was not written`;

  test('released by state unlock: no lock at all', async () => {
    const s = await FileStateStore.openLocked(path, lock);
    const id = (await readFileLock(path))!.id;
    await forceUnlockFile(path, id);
    const err = await stateFailure(s.record(entry('a')));
    expect(err.message).toBe(message(id));
    expect(err.file).toBe(path);
    expect(await readdir(dir)).toEqual([]);
  });

  test('released, and taken by another run meanwhile', async () => {
    const s = await FileStateStore.openLocked(path, lock);
    const id = (await readFileLock(path))!.id;
    await forceUnlockFile(path, id);
    const other = await takeFileLock(path, { ...lock, owner: lockOwner(5151) });
    const err = await stateFailure(s.forget('a', 'u1'));
    expect(err.message).toBe(message(id));
    expect((await readFileLock(path))!.id).toBe(other);
    expect(await readdir(dir)).toEqual(['state.json.lock']);
  });
});

describe('a state whose folder is replaced by a file while it is held (the state lost mid-run)', () => {
  test('a record: a StateError that says the file was not written and why; nothing is written anywhere', async () => {
    const s = await FileStateStore.openLocked(path, lock);
    await s.record(entry('a'));
    await rm(dir, { recursive: true });
    await writeFile(dir, 'not a folder');
    const err = await stateFailure(s.record(entry('b')));
    expect(err.message).toBe(`the state lock cannot be read (ENOTDIR: not a directory, open '${path}.lock'); nothing was written`);
    expect(err.file).toBe(path);
    expect(readFileSync(dir, 'utf8')).toBe('not a folder');
  });

  test('unlock: a StateError that names the lock and how to release it', async () => {
    const s = await FileStateStore.openLocked(path, lock);
    const id = (await readFileLock(path))!.id;
    await rm(dir, { recursive: true });
    await writeFile(dir, 'not a folder');
    const err = await stateFailure(s.unlock());
    expect(err.message).toBe(`the state lock ${id} could not be released (ENOTDIR: not a directory, open '${path}.lock.break'); if the next run finds it held, release it with \`sessionctl state unlock ${id}\``);
    expect(err.file).toBe(path);
    // Once is enough: a second unlock has nothing left to release.
    await s.unlock();
    await rm(dir);
    await mkdir(dir);
  });
});

describe('a state file that cannot be read', () => {
  const corrupt = '{\n  "version": 2,\n  "sessions": [1 2]\n}';

  test('a corrupt one: openLocked fails and releases the lock it took; the file is left as it was', async () => {
    await writeFile(path, corrupt);
    const err = await inputFailure(FileStateStore.openLocked(path, lock));
    expect(err.message).toBe(
      'the state is not valid (not JSON at line 3, column 18); it was left untouched. Restore it from a backup, or move it aside to start over (sessions it recorded are then unknown to sessionctl).',
    );
    expect(err.file).toBe(path);
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(await readFile(path, 'utf8')).toBe(corrupt);
  });

  test('a folder: an InputError with the reason, from load, openLocked (which releases its lock) and stateFileHash', async () => {
    await mkdir(path);
    for (const read of [() => FileStateStore.load(path), () => FileStateStore.openLocked(path, lock), () => stateFileHash(path)]) {
      const err = await inputFailure(read());
      expect(err.message).toBe('cannot read the state file: it is a folder');
      expect(err.file).toBe(path);
    }
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  test('a path through a file (ENOTDIR): an InputError with the reason and its cause, never taken for a missing state', async () => {
    await writeFile(join(dir, 'plain'), 'x');
    const through = join(dir, 'plain', 'state.json');
    for (const read of [() => FileStateStore.load(through), () => stateFileHash(through)]) {
      const err = await inputFailure(read());
      expect(err.message).toBe(`cannot read the state file: ENOTDIR: not a directory, open '${through}'`);
      expect(err.file).toBe(through);
      expect((err.cause as NodeJS.ErrnoException).code).toBe('ENOTDIR');
    }
  });

  test('a refusal by name has no cause: nothing failed below it', async () => {
    await mkdir(path);
    const err = await inputFailure(FileStateStore.load(path));
    expect(err.message).toBe('cannot read the state file: it is a folder');
    expect('cause' in err).toBe(false);
  });

  test.skipIf(skipBecause(process.platform !== 'linux', 'counts open descriptors through /proc/self/fd (Linux only)'))('reading the state leaves no descriptor open on it', async () => {
    await writeFile(path, '{"version": 2, "sessions": []}\n');
    for (let i = 0; i < 3; i++) await FileStateStore.load(path);
    await stateFileHash(path);
    const fds = await readdir('/proc/self/fd');
    const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
    expect(targets.filter((t) => t === path)).toStrictEqual([]);
  });

  test.skipIf(skipBecause(process.platform === 'win32', 'makes a FIFO with mkfifo'))('a FIFO: refused at once by load, openLocked (which releases its lock) and stateFileHash, never waited on', async () => {
    // A FIFO nobody writes to: a blocking open or read would hang the test until its timeout.
    execFileSync('mkfifo', [path]);
    for (const read of [() => FileStateStore.load(path), () => FileStateStore.openLocked(path, lock), () => stateFileHash(path)]) {
      const err = await inputFailure(read());
      expect(err.message).toBe('cannot read the state file: it is not a regular file (a FIFO, a socket or a device); give --state a JSON file');
      expect(err.file).toBe(path);
    }
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  test('stateFileHash agrees with the hash at load, even for bytes that are not UTF-8 (a saved plan compares the two)', async () => {
    const bytes = Buffer.concat([Buffer.from('{"version": 2, "sessions": [], "note": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n')]);
    await writeFile(path, bytes);
    const loaded = await FileStateStore.load(path);
    expect(loaded.list()).toEqual([]);
    expect(await stateFileHash(path)).toBe(loaded.hashAtLoad);
    expect(loaded.hashAtLoad).toBe(sha256(bytes.toString('utf8')));
  });

  test('stateFileHash of a missing file is empty', async () => {
    expect(await stateFileHash(path)).toBe('');
    await writeFile(path, 'x\n');
    expect(await stateFileHash(path)).toBe(sha256('x\n'));
  });
});
