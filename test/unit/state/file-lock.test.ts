import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { link, mkdir, readFile, readdir, readlink, rename, stat, symlink, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { beforeEach, describe, expect, test } from 'vitest';
import type { InputError } from '../../../src/diagnostics/errors.js';
import { forceUnlockFile, lockPathOf, readFileLock, releaseFileLock, takeFileLock, type FileLockIo } from '../../../src/state/file-lock.js';
import type { LockOwner, StateLockOptions } from '../../../src/state/lock.js';
import { skipBecause } from '../../helpers/skip.js';
import { inputFailure, stateFailure } from '../../helpers/rejection.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The file lock in one process, held to exact values: the lock file's bytes and mode, what is
 * stale and what is not (at the boundary, with an injected clock), a takeover that finds the lock
 * changed under its breaker (the liveness callback changes it, between the look and the takeover),
 * the breaker of another process, every error's class, text and file, and file systems without
 * hard links (an injected `link`). The race of two real processes is file-lock-race.test.ts.
 */

let dir: string;
let state: string;
let lock: string;
beforeEach(() => {
  dir = tempDir('file-lock');
  state = join(dir, 'state.json');
  lock = `${state}.lock`;
});

const me: LockOwner = { pid: 4242, hostname: 'ci-7' };
const T0 = new Date('2026-03-01T10:00:00.000Z');
const alive = (): boolean => true;
const dead = (): boolean => false;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TAIL = 'another apply is running (or a state command). Wait for it with --lock-timeout (such as 5m); if its holder died, release the lock with';

function options(over: Partial<StateLockOptions> = {}): StateLockOptions {
  return { owner: me, isAlive: alive, now: () => T0, ...over };
}

function lineOf(id: string, owner: LockOwner = me, since = T0.toISOString()): string {
  return `${JSON.stringify({ id, pid: owner.pid, hostname: owner.hostname, since })}\n`;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** Plants a lock file written `ageMs` before T0 (whole seconds, so that mtimeMs is exact). */
async function plant(text: string, mtime: Date = new Date(T0.getTime() - 1000)): Promise<void> {
  await writeFile(lock, text);
  await utimes(lock, mtime, mtime);
}

const errno = (code: string, message = `${code}: simulated`): NodeJS.ErrnoException => Object.assign(new Error(message), { code });

describe('takeFileLock: a free lock', () => {
  test('is one JSON line {id, pid, hostname, since}, mode 0600, in folders it creates; nothing else is left', async () => {
    const nested = join(dir, 'a', 'b', 'state.json');
    const id = await takeFileLock(nested, options());
    expect(id).toMatch(UUID);
    expect(await readFile(lockPathOf(nested), 'utf8')).toBe(lineOf(id));
    expect((await stat(lockPathOf(nested))).mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'a', 'b'))).toEqual(['state.json.lock']);
    expect(await readFileLock(nested)).toStrictEqual({ id, pid: 4242, hostname: 'ci-7', since: '2026-03-01T10:00:00.000Z' });
  });

  test('lockPathOf: the state path and ".lock"', () => {
    expect(lockPathOf(join('x', 'state.json'))).toBe(join('x', 'state.json.lock'));
  });

  test('a folder that cannot be made is a StateError on the lock path', async () => {
    await writeFile(join(dir, 'file'), '');
    const err = await stateFailure(takeFileLock(join(dir, 'file', 'sub', 'state.json'), options()));
    expect(err.message).toBe(`cannot take the state lock: ENOTDIR: not a directory, mkdir '${join(dir, 'file', 'sub')}'`);
    expect(err.file).toBe(join(dir, 'file', 'sub', 'state.json.lock'));
    expect((err.cause as NodeJS.ErrnoException).code).toBe('ENOTDIR');
  });
});

describe('takeFileLock: a lock that another run holds', () => {
  test('fails at once by default, naming the holder, with the state file as location', async () => {
    await plant(lineOf('L1', { pid: 1111, hostname: 'elsewhere' }));
    const err = await stateFailure(takeFileLock(state, options()));
    expect(err.message).toBe(`the state is locked by process 1111 on elsewhere since 2026-03-01T10:00:00.000Z (lock L1): ${TAIL} \`sessionctl state unlock L1\`.`);
    expect(err.file).toBe(state);
    expect(await readFile(lock, 'utf8')).toBe(lineOf('L1', { pid: 1111, hostname: 'elsewhere' }));
  });

  test('is waited for up to the timeout, in polls of 250 ms at most, then named with the wait', async () => {
    await plant(lineOf('L1', { pid: 1111, hostname: 'elsewhere' }));
    let t = T0.getTime();
    const slept: number[] = [];
    const sleep = async (ms: number): Promise<void> => {
      slept.push(ms);
      if (slept.length > 10) throw new Error('polled for ever');
      t += ms;
    };
    const err = await stateFailure(takeFileLock(state, options({ now: () => new Date(t), timeoutMs: 600, sleep })));
    expect(slept).toEqual([250, 250, 100]);
    expect(err.message).toBe(`waited 0.6s, and the state is locked by process 1111 on elsewhere since 2026-03-01T10:00:00.000Z (lock L1): ${TAIL} \`sessionctl state unlock L1\`.`);
  });

  test('is taken once its holder releases it during the wait', async () => {
    await plant(lineOf('L1', { pid: 1111, hostname: 'elsewhere' }));
    let t = T0.getTime();
    const sleep = async (ms: number): Promise<void> => {
      t += ms;
      await releaseFileLock(state, 'L1');
    };
    const id = await takeFileLock(state, options({ now: () => new Date(t), timeoutMs: 1000, sleep }));
    expect(await readFile(lock, 'utf8')).toBe(lineOf(id, me, new Date(T0.getTime() + 250).toISOString()));
  });

  test('a lock of this very process is live whatever the liveness check says', async () => {
    await plant(lineOf('L0', me));
    const err = await stateFailure(takeFileLock(state, options({ isAlive: dead })));
    expect(err.message).toBe(`the state is locked by process 4242 on ci-7 since 2026-03-01T10:00:00.000Z (lock L0): ${TAIL} \`sessionctl state unlock L0\`.`);
  });

  test('a live process of this host keeps its lock; the liveness check is asked about that pid', async () => {
    await plant(lineOf('L1', { pid: 1111, hostname: 'ci-7' }));
    const asked: number[] = [];
    await inputFailure(takeFileLock(state, options({ isAlive: (pid) => (asked.push(pid), true) })));
    expect(asked).toEqual([1111]);
  });

  test('a dead process of another host keeps its lock until it is old', async () => {
    await plant(lineOf('L1', { pid: 1111, hostname: 'elsewhere' }));
    const err = await inputFailure(takeFileLock(state, options({ isAlive: dead })));
    expect(err.message).toContain('locked by process 1111 on elsewhere');
  });
});

describe('takeFileLock: a stale lock is taken over', () => {
  async function takenOver(opts: StateLockOptions): Promise<void> {
    const id = await takeFileLock(state, opts);
    expect(await readFile(lock, 'utf8')).toBe(lineOf(id));
    expect((await stat(lock)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['state.json.lock']); // no breaker, no temporary file
  }

  test('a dead process of this host', async () => {
    await plant(lineOf('L1', { pid: 1111, hostname: 'ci-7' }));
    await takenOver(options({ isAlive: dead }));
  });

  test.each([
    ['the given age', 60_000, { staleAfterMs: 60_000 }],
    ['one hour by default', 3_600_000, {}],
  ])('a lock of another host older than %s, not one exactly that old', async (_name, age, over) => {
    const mtime = new Date(T0.getTime() - 10_000);
    await plant(lineOf('L1', { pid: 1, hostname: 'elsewhere' }), mtime);
    const at = (ms: number): StateLockOptions => options({ ...over, now: () => new Date(mtime.getTime() + ms) });
    const err = await inputFailure(takeFileLock(state, at(age)));
    expect(err.message).toContain('(lock L1)');
    const id = await takeFileLock(state, at(age + 1));
    expect(await readFile(lock, 'utf8')).toBe(lineOf(id, me, new Date(mtime.getTime() + age + 1).toISOString()));
  });

  test('an old lock that is not a lock line at all', async () => {
    await plant('garbage', new Date(0));
    await takenOver(options());
  });
});

describe('takeFileLock: the stale lock changes before the takeover', () => {
  // The liveness check runs between the look that judged the lock stale and the takeover's
  // second look under the breaker: changing the lock there is what another process could do.
  // The lock is then a live one (the check says alive from its second call on).
  const before = lineOf('L1', { pid: 1111, hostname: 'ci-7' });
  const mtime = new Date(T0.getTime() - 1000);

  async function changedUnder(change: () => void): Promise<InputError> {
    await plant(before, mtime);
    let calls = 0;
    const isAlive = (): boolean => {
      if (++calls > 1) return true;
      change();
      return false;
    };
    const slept: number[] = [];
    const err = await inputFailure(takeFileLock(state, options({ isAlive, sleep: async (ms) => void slept.push(ms) })));
    expect(slept).toEqual([]); // a changed lock is looked at again at once
    return err;
  }

  test('rewritten in place with another holder (same file, same time)', async () => {
    const after = lineOf('L2', { pid: 2222, hostname: 'ci-7' });
    const err = await changedUnder(() => {
      writeFileSync(lock, after);
      utimesSync(lock, mtime, mtime);
    });
    expect(err.message).toContain('locked by process 2222 on ci-7 since 2026-03-01T10:00:00.000Z (lock L2)');
    expect(readFileSync(lock, 'utf8')).toBe(after);
  });

  test('replaced by another file with the same text and time', async () => {
    const err = await changedUnder(() => {
      writeFileSync(`${lock}.other`, before);
      utimesSync(`${lock}.other`, mtime, mtime);
      renameSync(`${lock}.other`, lock);
    });
    expect(err.message).toContain('(lock L1)');
    expect(readFileSync(lock, 'utf8')).toBe(before);
  });

  test('touched (same file, same text, another time)', async () => {
    const err = await changedUnder(() => utimesSync(lock, new Date(mtime.getTime() - 5000), new Date(mtime.getTime() - 5000)));
    expect(err.message).toContain('(lock L1)');
    expect(readFileSync(lock, 'utf8')).toBe(before);
  });

  test('removed: the lock is then taken as a free one', async () => {
    await plant(before, mtime);
    let calls = 0;
    const id = await takeFileLock(
      state,
      options({
        isAlive: () => {
          calls++;
          rmSync(lock);
          return false;
        },
      }),
    );
    expect(calls).toBe(1);
    expect(await readFile(lock, 'utf8')).toBe(lineOf(id));
  });
});

describe('the breaker of a takeover in progress', () => {
  const breaker = (): string => `${lock}.break`;

  test('a takeover waits while another process holds the breaker, then takes the lock', async () => {
    const stale = lineOf('L1', { pid: 1111, hostname: 'ci-7' });
    await plant(stale);
    await writeFile(breaker(), '');
    let looks = 0;
    let thirdLook!: () => void;
    const spun = new Promise<'spun'>((done) => (thirdLook = () => done('spun')));
    const isAlive = (): boolean => {
      if (++looks === 3) thirdLook();
      return false;
    };
    const slept: number[] = [];
    const sleep = async (ms: number): Promise<void> => {
      slept.push(ms);
      await delay(ms);
    };
    const taking = takeFileLock(state, options({ isAlive, sleep }));
    expect(await Promise.race([spun, taking.then(() => 'taken')])).toBe('spun');
    expect(slept.slice(0, 2)).toEqual([5, 5]); // a pause of 5 ms between tries
    expect(new Set(slept)).toEqual(new Set([5]));
    expect(await readFile(lock, 'utf8')).toBe(stale);
    expect(existsSync(breaker())).toBe(true);
    await unlink(breaker());
    const id = await taking;
    expect(await readFile(lock, 'utf8')).toBe(lineOf(id));
    expect(await readdir(dir)).toEqual(['state.json.lock']);
  });

  test('releasing waits while another process holds the breaker', async () => {
    const id = await takeFileLock(state, options());
    await writeFile(breaker(), '');
    let settled = false;
    const releasing = releaseFileLock(state, id).finally(() => (settled = true));
    // Nothing may happen while the breaker is held; the wait only gives a wrong release the time to show.
    await delay(50);
    expect(settled).toBe(false);
    expect(await readFile(lock, 'utf8')).toBe(lineOf(id));
    await unlink(breaker());
    await releasing;
    expect(await readdir(dir)).toEqual([]);
  });

  test('a breaker older than 10 s was left by a process that died in a takeover: removed', async () => {
    const id = await takeFileLock(state, options());
    await writeFile(breaker(), '');
    const old = new Date(Date.now() - 60_000);
    await utimes(breaker(), old, old);
    await releaseFileLock(state, id);
    expect(await readdir(dir)).toEqual([]);
  });

  test('a breaker that cannot be made is a StateError on the breaker path', async () => {
    const missing = join(dir, 'missing', 'state.json');
    const err = await stateFailure(releaseFileLock(missing, 'L1'));
    expect(err.message).toBe(`cannot take the state lock: ENOENT: no such file or directory, open '${missing}.lock.break'`);
    expect(err.file).toBe(`${missing}.lock.break`);
  });
});

describe('releaseFileLock and forceUnlockFile', () => {
  test('release removes this run\'s lock only', async () => {
    await plant(lineOf('L1'));
    await releaseFileLock(state, 'L2');
    expect(await readFile(lock, 'utf8')).toBe(lineOf('L1'));
    await releaseFileLock(state, 'L1');
    expect(await readdir(dir)).toEqual([]);
    await releaseFileLock(state, 'L1'); // nothing to release: harmless
    expect(await readdir(dir)).toEqual([]);
  });

  test('state unlock: the lock named is removed and its holder returned', async () => {
    await plant(lineOf('L1', { pid: 1111, hostname: 'elsewhere' }));
    expect(await forceUnlockFile(state, 'L1')).toStrictEqual({ id: 'L1', pid: 1111, hostname: 'elsewhere', since: '2026-03-01T10:00:00.000Z' });
    expect(await readdir(dir)).toEqual([]);
  });

  test('state unlock: a lock without an id is named by the digest of its text', async () => {
    const text = JSON.stringify({ pid: 1111, hostname: 'elsewhere' });
    await plant(text);
    expect(await forceUnlockFile(state, digest(text))).toStrictEqual({ id: digest(text), pid: 1111, hostname: 'elsewhere' });
    expect(await readdir(dir)).toEqual([]);
  });

  test('state unlock: another id, or no lock, is an InputError and changes nothing', async () => {
    await plant(lineOf('L1'));
    const other = await inputFailure(forceUnlockFile(state, 'L2'));
    expect(other.message).toBe('the state is locked by lock L1, not L2; nothing was changed');
    expect(other.file).toBe(state);
    expect(await readFile(lock, 'utf8')).toBe(lineOf('L1'));
    await unlink(lock);
    const none = await inputFailure(forceUnlockFile(state, 'L1'));
    expect(none.message).toBe(`the state is not locked (there is no ${lock}); nothing to unlock`);
    expect(none.file).toBe(state);
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('readFileLock: what a lock file says', () => {
  test('no lock file: undefined', async () => {
    expect(await readFileLock(state)).toBeUndefined();
  });

  test.each([
    ['a whole line', lineOf('L1'), { id: 'L1', pid: 4242, hostname: 'ci-7', since: '2026-03-01T10:00:00.000Z' }],
    ['no id', '{"pid":7,"hostname":"h"}', { id: digest('{"pid":7,"hostname":"h"}'), pid: 7, hostname: 'h' }],
    ['an empty id', '{"id":"","pid":7,"hostname":"h"}', { id: digest('{"id":"","pid":7,"hostname":"h"}'), pid: 7, hostname: 'h' }],
    ['an id not a string', '{"id":5,"pid":7,"hostname":"h"}', { id: digest('{"id":5,"pid":7,"hostname":"h"}'), pid: 7, hostname: 'h' }],
    ['since not a string', '{"id":"L","pid":7,"hostname":"h","since":5}', { id: 'L', pid: 7, hostname: 'h' }],
    ['pid not a number', '{"id":"L","pid":"7","hostname":"h"}', { id: digest('{"id":"L","pid":"7","hostname":"h"}') }],
    ['no hostname', '{"id":"L","pid":7}', { id: digest('{"id":"L","pid":7}') }],
    ['hostname not a string', '{"id":"L","pid":7,"hostname":1}', { id: digest('{"id":"L","pid":7,"hostname":1}') }],
    ['null', 'null', { id: digest('null') }],
    ['not JSON', 'half a li', { id: digest('half a li') }],
    ['empty', '', { id: digest('') }],
  ])('%s', async (_name, text, holder) => {
    await writeFile(lock, text);
    expect(await readFileLock(state)).toStrictEqual(holder);
  });

  test('a digest is the first 12 hex digits of the text\'s SHA-256', async () => {
    await writeFile(lock, 'x');
    expect(await readFileLock(state)).toStrictEqual({ id: '2d711642b726' });
  });

  test('a lock that cannot be opened (not ENOENT) is an InputError on the lock path', async () => {
    await writeFile(join(dir, 'file'), '');
    const inFile = join(dir, 'file', 'state.json');
    const err = await inputFailure(readFileLock(inFile));
    expect(err.message).toBe(`cannot take the state lock: ENOTDIR: not a directory, open '${inFile}.lock'`);
    expect(err.file).toBe(`${inFile}.lock`);
  });
});

/** The descriptors this process has open on `path` (Linux: /proc/self/fd). */
async function descriptorsOn(path: string): Promise<number> {
  const fds = await readdir('/proc/self/fd');
  const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
  return targets.filter((t) => t === path).length;
}

describe.skipIf(skipBecause(process.platform !== 'linux', 'counts open descriptors through /proc/self/fd (Linux only)'))('descriptors', () => {
  test('reading a lock, or creating one without hard links, leaves no descriptor open on it', async () => {
    const id = await takeFileLock(state, options(), { rename, link: async () => Promise.reject(errno('EXDEV')) });
    expect(await descriptorsOn(lock)).toBe(0);
    expect(await readFileLock(state)).toStrictEqual({ id, pid: 4242, hostname: 'ci-7', since: '2026-03-01T10:00:00.000Z' });
    expect(await descriptorsOn(lock)).toBe(0);
  });
});

describe('hostile lock paths', () => {
  const notAFile = 'cannot take the state lock: it is not a regular file (sessionctl never makes one: remove it)';

  test('a folder where the lock belongs is an InputError on the lock path, never a raw error', async () => {
    await mkdir(lock);
    const err = await inputFailure(takeFileLock(state, options()));
    expect(err.message).toBe(notAFile);
    expect(err.file).toBe(lock);
    expect(await readdir(dir)).toEqual(['state.json.lock']);
  });

  test.skipIf(skipBecause(process.platform === 'win32', 'makes a FIFO with mkfifo'))('a FIFO where the lock belongs is an InputError, never a wait for a writer', async () => {
    expect(spawnSync('mkfifo', [lock]).status).toBe(0);
    const err = await inputFailure(takeFileLock(state, options()));
    expect(err.message).toBe(notAFile);
    expect(err.file).toBe(lock);
    expect((await inputFailure(releaseFileLock(state, 'L1'))).message).toBe(notAFile);
    expect((await stat(lock)).isFIFO()).toBe(true);
  });

  test('a symbolic link to nothing where the lock belongs is an InputError, never an endless loop', async () => {
    await symlink(join(dir, 'nowhere'), lock);
    const err = await inputFailure(takeFileLock(state, options()));
    expect(err.message).toBe('cannot take the state lock: it is a symbolic link to a missing file (sessionctl never makes one: remove it)');
    expect(err.file).toBe(lock);
    expect(await readlink(lock)).toBe(join(dir, 'nowhere'));
    expect((await inputFailure(readFileLock(state))).message).toBe(err.message);
  });
});

describe('file systems without hard links', () => {
  /** A `link` that fails `times` times with `err` (doing `also` first), then links. */
  function failingLink(err: Error, times = Infinity, also: () => void = () => undefined): FileLockIo & { calls: number } {
    const io = {
      calls: 0,
      rename,
      async link(a: string, b: string): Promise<void> {
        if (++io.calls <= times) {
          also();
          throw err;
        }
        await link(a, b);
      },
    };
    return io;
  }

  test.each(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EXDEV'])('link failing with %s: the lock is created directly, whole, mode 0600', async (code) => {
    const id = await takeFileLock(state, options(), failingLink(errno(code)));
    expect(await readFile(lock, 'utf8')).toBe(lineOf(id));
    expect((await stat(lock)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['state.json.lock']);
  });

  test('created directly, a live lock is still a live lock', async () => {
    await plant(lineOf('L1', { pid: 1111, hostname: 'elsewhere' }));
    const err = await inputFailure(takeFileLock(state, options(), failingLink(errno('EXDEV'))));
    expect(err.message).toContain('locked by process 1111 on elsewhere since 2026-03-01T10:00:00.000Z (lock L1)');
    expect(await readFile(lock, 'utf8')).toBe(lineOf('L1', { pid: 1111, hostname: 'elsewhere' }));
  });

  test('a folder that goes away meanwhile: an InputError naming the lock (never an unhandled rejection)', async () => {
    const sub = join(dir, 'sub');
    await mkdir(sub);
    const subState = join(sub, 'state.json');
    const err = await inputFailure(takeFileLock(subState, options(), failingLink(errno('EXDEV'), 1, () => rmSync(sub, { recursive: true }))));
    expect(err.message).toBe(`cannot take the state lock: ENOENT: no such file or directory, open '${subState}.lock'`);
    expect(err.file).toBe(`${subState}.lock`);
  });

  test('any other failure of link is an InputError, and its temporary file is removed', async () => {
    const io = failingLink(errno('EIO', 'EIO: i/o error, link'), 1);
    const err = await inputFailure(takeFileLock(state, options(), io));
    expect(err.message).toBe('cannot take the state lock: EIO: i/o error, link');
    expect(err.file).toBe(lock);
    expect(io.calls).toBe(1);
    expect(await readdir(dir)).toEqual([]);
  });

  test('a takeover whose rename fails: an InputError; the stale lock stays, and no temporary file or breaker is left', async () => {
    const stale = lineOf('L1', { pid: 1111, hostname: 'ci-7' });
    await plant(stale);
    const io: FileLockIo = { link, rename: async () => Promise.reject(errno('EIO', 'EIO: i/o error, rename')) };
    const err = await inputFailure(takeFileLock(state, options({ isAlive: dead }), io));
    expect(err.message).toBe('cannot take the state lock: EIO: i/o error, rename');
    expect(err.file).toBe(lock);
    expect(await readFile(lock, 'utf8')).toBe(stale);
    expect(await readdir(dir)).toEqual(['state.json.lock']);
  });

  test('an error without a code too', async () => {
    const err = await inputFailure(takeFileLock(state, options(), failingLink(new Error('boom'), 1)));
    expect(err.message).toBe('cannot take the state lock: boom');
  });

  test('a lock that exists for link but is gone when read was released meanwhile: try again', async () => {
    const io = failingLink(errno('EEXIST'), 1);
    const id = await takeFileLock(state, options({ isAlive: () => expect.unreachable('no lock to judge') }), io);
    expect(io.calls).toBe(2);
    expect(await readFile(lock, 'utf8')).toBe(lineOf(id));
  });
});
