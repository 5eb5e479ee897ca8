import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { expect } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/server.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { removeTempDir, tempDir } from '../helpers/temp-dir.js';

/**
 * A world for sentinel tests: a temp folder with manifests, a real emulator, and every output a
 * run leaves behind collected (stdout, stderr, and every file in the folder: reports, plan files,
 * the state, `$GITHUB_OUTPUT`, the step summary). A test runs its steps, then asserts that a
 * sentinel appears in none of it. To cover a new command, add a step: its outputs join the rest.
 * `$GITHUB_OUTPUT` is `github-output.txt` in the folder.
 */
export interface SentinelWorld {
  dir: string;
  emulator: RunningEmulator;
  /** Runs sessionctl in the folder against the emulator; its stdout and stderr are kept for the final check. */
  run(label: string, argv: readonly string[], env?: Record<string, string | undefined>): Promise<CliResult>;
  admin(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any>;
  write(file: string, text: string): Promise<void>;
  /** Every output so far: each run's streams and every file in the folder, with where it came from. */
  outputs(): Promise<Array<{ where: string; text: string }>>;
  /** Fails with the place of each occurrence when `needle` is anywhere in the outputs. */
  expectNowhere(needle: string): Promise<void>;
  close(): Promise<void>;
}

export async function sentinelWorld(files: Record<string, string>, baseEnv: Record<string, string>): Promise<SentinelWorld> {
  const dir = tempDir('sentinel');
  const emulator = await startEmulator({ port: 0 });
  const runs: Array<{ where: string; text: string }> = [];
  const write = async (file: string, text: string): Promise<void> => {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  };
  for (const [file, text] of Object.entries(files)) await write(file, text);
  const world: SentinelWorld = {
    dir,
    emulator,
    write,
    async run(label, argv, env = {}) {
      const r = await runCli(argv, { cwd: dir, env: { COMPOSIO_BASE_URL: emulator.url, GITHUB_OUTPUT: join(dir, 'github-output.txt'), ...baseEnv, ...env } });
      runs.push({ where: `${label}: stdout`, text: r.stdout }, { where: `${label}: stderr`, text: r.stderr });
      return r;
    },
    async admin(method, path, body) {
      const res = await fetch(`${emulator.url}/_emulator/${path}`, {
        method,
        ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
      });
      const text = await res.text();
      expect(res.ok, `admin ${method} ${path}: ${text}`).toBe(true);
      return text === '' ? undefined : JSON.parse(text);
    },
    async outputs() {
      const found: Array<{ where: string; text: string }> = [...runs];
      for (const file of await listFiles(dir)) found.push({ where: relative(dir, file), text: await readFile(file, 'utf8') });
      return found;
    },
    async expectNowhere(needle) {
      const hits = (await world.outputs()).filter((o) => o.text.includes(needle)).map((o) => `${o.where}: …${context(o.text, needle)}…`);
      expect(hits, `the sentinel ${needle} leaked`).toEqual([]);
    },
    async close() {
      await emulator.close();
      removeTempDir(dir);
    },
  };
  return world;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}

function context(text: string, needle: string): string {
  const at = text.indexOf(needle);
  return text.slice(Math.max(0, at - 60), at + needle.length + 20).replace(/\n/g, '⏎');
}

/** Every report format: human to stdout, the others to files in `reports/<label>.*`. */
export function everyFormat(label: string): string[] {
  return ['--format', 'human', ...['json', 'sarif', 'junit', 'markdown', 'github'].flatMap((f) => ['--format', `${f}=reports/${label}.${f}`])];
}
