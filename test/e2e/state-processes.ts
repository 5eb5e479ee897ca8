import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { db, dropSchema, uniqueSchema } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The built CLI, run as a user runs it (npm test builds it before the suite). */
export const bin = fileURLToPath(new URL('../../dist/sessionctl.js', import.meta.url));

function requireBuild(): void {
  if (!existsSync(bin)) throw new Error('dist/sessionctl.js is missing: run `npm run build` (npm test does)');
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** `sessionctl ARGS` in a child process; `started` resolves with the child at once. */
export function sessionctl(args: readonly string[], options: { cwd: string; env: Record<string, string> }): { child: ChildProcess; done: Promise<Finished> } {
  requireBuild();
  const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd, env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<Finished>((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

/** `sessionctl emulator --port 0` in a child process: its URL, and a way to stop it. */
export async function emulatorProcess(args: readonly string[] = []): Promise<{ url: string; stop(): Promise<void> }> {
  requireBuild();
  const child = spawn(process.execPath, [bin, 'emulator', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
    });
    child.once('exit', (code) => reject(new Error(`the emulator exited with ${code}`)));
  });
  return {
    url,
    stop: async () => {
      child.removeAllListeners('exit');
      const gone = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      await gone;
    },
  };
}

/** `count` one-document manifests `svc-NN` for users `user-NN`, in `dir/m`. */
export async function writeManifests(dir: string, count: number): Promise<void> {
  await mkdir(join(dir, 'm'), { recursive: true });
  for (let i = 0; i < count; i++) {
    const n = String(i).padStart(2, '0');
    await writeFile(join(dir, 'm', `svc-${n}.yaml`), `name: svc-${n}\nuser_id: user-${n}\ntoolkits: [gmail, slack]\nworkbench:\n  enable: false\n`);
  }
}

/** What a test of sessionctl processes on a PostgreSQL state works in. */
export interface ProcessWorld {
  /** A temporary folder with one working copy of the manifests per name given. */
  dir: string;
  emulator: Awaited<ReturnType<typeof emulatorProcess>>;
  /** The test's own schema, dropped at the end. */
  schema: string;
}

/**
 * Sets up (before the file's tests) and tears down a world: `copies` working copies of `manifests`
 * manifests and `sessionctl emulator` in a child process; the schema is dropped when there is a
 * PostgreSQL server.
 */
export function processWorld(name: string, copies: readonly string[], manifests: number): ProcessWorld {
  const world = { dir: '', schema: uniqueSchema(name) } as ProcessWorld;
  beforeAll(async () => {
    world.dir = tempDir(name);
    for (const copy of copies) await writeManifests(join(world.dir, copy), manifests);
    world.emulator = await emulatorProcess();
  });
  afterAll(async () => {
    await world.emulator?.stop();
    await rm(world.dir, { recursive: true, force: true });
    if (db !== null) await dropSchema(db, world.schema);
  });
  return world;
}
