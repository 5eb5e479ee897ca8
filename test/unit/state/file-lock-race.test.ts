import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { tempDir } from '../../helpers/temp-dir.js';

/**
 * Two real processes race for one stale file lock, 200 times: exactly one holds it every time, and
 * the lock file names that one. (Unlinking a stale lock and creating a new one let both take it
 * over in 26 of 200 tries.) Stale locks of three kinds: a dead process of this host, an old lock
 * of another host, an old unreadable lock.
 */

const ROUNDS = 200;
const racer = fileURLToPath(new URL('./lock-racer.mjs', import.meta.url));

interface Racer {
  child: ChildProcess;
  answers: Map<string, (line: string) => void>;
}

function startRacer(): Promise<Racer> {
  if (!existsSync(fileURLToPath(new URL('../../../dist/state/file-lock.js', import.meta.url)))) throw new Error('dist/ is missing: run `npm run build` (npm test does)');
  const child = spawn(process.execPath, [racer], { stdio: ['pipe', 'pipe', 'inherit'] });
  const r: Racer = { child, answers: new Map() };
  return new Promise((ready, fail) => {
    child.once('exit', (code) => fail(new Error(`a racer exited early (${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line === 'ready') return ready(r);
      const path = line.split(' ')[1]!;
      r.answers.get(path)?.(line);
    });
  });
}

function ask(r: Racer, path: string): Promise<string> {
  return new Promise((done) => {
    r.answers.set(path, done);
    r.child.stdin!.write(`go ${path}\n`);
  });
}

let dir: string;
let racers: Racer[] = [];
let deadPid: number;

beforeAll(async () => {
  dir = tempDir('lock-race');
  racers = await Promise.all([startRacer(), startRacer()]);
  // A pid of this host that no longer runs: a child that has exited (and been reaped).
  const gone = spawn(process.execPath, ['-e', '']);
  deadPid = gone.pid!;
  await new Promise((done) => gone.once('exit', done));
});

afterAll(async () => {
  for (const r of racers) {
    r.child.removeAllListeners('exit');
    r.child.kill('SIGKILL');
  }
  await rm(dir, { recursive: true, force: true });
});

const stale = [
  ['a dead process of this host', async (lock: string) => writeFile(lock, JSON.stringify({ id: 'dead-1', pid: deadPid, hostname: hostname(), since: '2026-01-01T00:00:00.000Z' }))],
  [
    'an old lock of another host',
    async (lock: string) => {
      await writeFile(lock, JSON.stringify({ id: 'old-1', pid: 1, hostname: 'elsewhere', since: '2020-01-01T00:00:00.000Z' }));
      await utimes(lock, new Date(0), new Date(0));
    },
  ],
  [
    'an old unreadable lock',
    async (lock: string) => {
      await writeFile(lock, '{"pid": 1, "hostn');
      await utimes(lock, new Date(0), new Date(0));
    },
  ],
] as const;

describe('the file lock under a race', () => {
  test(`${ROUNDS} races of two processes for one stale lock: exactly one holds it every time`, async () => {
    const outcomes: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const [, plant] = stale[i % stale.length]!;
      const state = join(dir, `r${i}`, 'state.json');
      await mkdir(join(dir, `r${i}`));
      await plant(`${state}.lock`);
      const answers = await Promise.all(racers.map((r) => ask(r, state)));
      const held = answers.filter((a) => a.startsWith('held '));
      const onDisk = JSON.parse(await readFile(`${state}.lock`, 'utf8')) as { id: string; pid: number };
      const holderId = held[0]?.split(' ')[2];
      outcomes.push(`${held.length}${held.length === 1 && onDisk.id === holderId ? '' : ' MISMATCH'}${answers.some((a) => a.startsWith('error')) ? ` ${answers.join(' | ')}` : ''}`);
    }
    expect(outcomes.filter((o) => o !== '1')).toEqual([]);
    // No breaker or temporary file is left behind.
    const left = (await Promise.all(Array.from({ length: ROUNDS }, (_, i) => readdir(join(dir, `r${i}`))))).flat();
    expect(left.filter((f) => f !== 'state.json.lock')).toEqual([]);
  });
});
