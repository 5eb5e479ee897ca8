import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { processLock } from '../../../src/cli/process-lock.js';
import { FileStateStore } from '../../../src/state/file-store.js';
import { skipBecause } from '../../helpers/skip.js';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * The real liveness check of a lock holder (`processLock().isAlive`, `kill(pid, 0)`), on real
 * processes: one that runs, one that has exited, and one of another user (EPERM means it runs).
 * And what the file lock does with each: a live holder's lock stands, a dead one's is taken over.
 */

const processLockJs = fileURLToPath(new URL('../../../dist/cli/process-lock.js', import.meta.url));
/** Starting a process as another user needs root. */
const asRoot = process.getuid?.() === 0;
const NOBODY = { uid: 65534, gid: 65534 };

let dir: string;
const children: ChildProcess[] = [];

function sleeper(options: { uid?: number; gid?: number } = {}): ChildProcess {
  const child = spawn('sleep', ['60'], { stdio: 'ignore', ...options });
  children.push(child);
  return child;
}

async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((done) => child.once('exit', done));
  return child.pid!;
}

/** `processLock().isAlive(pid)` asked from a process of user nobody (so kill(pid, 0) can answer EPERM). */
function isAliveAsNobody(pid: number): Promise<string> {
  const code = `import(${JSON.stringify(processLockJs)}).then((m) => process.stdout.write(String(m.processLock().isAlive(${pid}))))`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { ...NOBODY, cwd: '/', stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  return new Promise((done) => child.once('exit', () => done(out)));
}

async function plantLock(statePath: string, pid: number): Promise<void> {
  await writeFile(`${statePath}.lock`, JSON.stringify({ id: `lock-of-${pid}`, pid, hostname: hostname(), since: '2026-01-01T00:00:00.000Z' }));
}

beforeAll(async () => {
  dir = tempDir('liveness');
});
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('processLock().isAlive', () => {
  test('a process that runs is alive; one that has exited is not', async () => {
    const live = sleeper();
    const lock = processLock();
    expect(lock.isAlive(live.pid!)).toBe(true);
    expect(lock.isAlive(await exitedPid())).toBe(false);
  });

  test.skipIf(skipBecause(!asRoot, 'needs root to run a process as another user'))(`a process of another user is alive (EPERM), asked as that other user (needs root to switch users; running as ${userInfo().username})`, async () => {
    const rootsLive = sleeper();
    expect(await isAliveAsNobody(rootsLive.pid!)).toBe('true');
    expect(await isAliveAsNobody(await exitedPid())).toBe('false');
    const nobodysLive = sleeper(NOBODY);
    expect(processLock().isAlive(nobodysLive.pid!)).toBe(true);
  });
});

describe('the file lock of a real holder', () => {
  test('a live holder keeps its lock; once it has exited, the lock is taken over', async () => {
    const state = join(dir, 'a', 'state.json');
    const holder = sleeper();
    await mkdir(join(dir, 'a'));
    await plantLock(state, holder.pid!);
    await expect(FileStateStore.openLocked(state, processLock())).rejects.toThrow(`locked by process ${holder.pid} on ${hostname()}`);
    holder.kill('SIGKILL');
    await new Promise((done) => holder.once('exit', done));
    const store = await FileStateStore.openLocked(state, processLock());
    expect(JSON.parse(await readFile(`${state}.lock`, 'utf8')).pid).toBe(process.pid);
    await store.unlock();
  });

  test.skipIf(skipBecause(!asRoot, 'needs root to run a process as another user'))('the lock of a live process of another user stands (needs root to start one)', async () => {
    const state = join(dir, 'b', 'state.json');
    await mkdir(join(dir, 'b'));
    const holder = sleeper(NOBODY);
    await plantLock(state, holder.pid!);
    await expect(FileStateStore.openLocked(state, processLock())).rejects.toThrow(`locked by process ${holder.pid}`);
  });
});
