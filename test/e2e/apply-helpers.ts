import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/server.js';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

export const KEY = 'sk-e2e-apply-key-0001';

export interface ApplyWorld {
  dir: string;
  emulator: RunningEmulator;
  /** Runs sessionctl in the world's folder against its emulator. */
  run(argv: readonly string[], env?: Record<string, string>): Promise<CliResult>;
  /** Calls the emulator's admin surface. */
  admin(method: string, path: string, body?: unknown): Promise<any>;
  write(file: string, text: string): Promise<void>;
  state(): Promise<{ version: number; sessions: Array<{ name: string; user_id: string; session_id: string; body_hash: string; mcp_url: string }> }>;
  creates(): Promise<number>;
  close(): Promise<void>;
}

/** A temporary folder with manifests and a real emulator on a free loopback port. */
export async function applyWorld(files: Record<string, string>, emulatorOptions: EmulatorOptions = {}): Promise<ApplyWorld> {
  const dir = tempDir('apply');
  const emulator = await startEmulator({ port: 0, ...emulatorOptions });
  const write = async (file: string, text: string): Promise<void> => {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await writeFile(join(dir, file), text);
  };
  for (const [file, text] of Object.entries(files)) await write(file, text);
  const admin = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${emulator.url}/_emulator/${path}`, {
      method,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
    const answer = await res.json();
    if (!res.ok) throw new Error(`emulator admin ${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  return {
    dir,
    emulator,
    write,
    admin,
    run: (argv, env = {}) => runCli(argv, { cwd: dir, env: { COMPOSIO_BASE_URL: emulator.url, COMPOSIO_API_KEY: KEY, ...env } }),
    state: async () => JSON.parse(await readFile(join(dir, '.sessionctl', 'state.json'), 'utf8')),
    creates: async () => ((await admin('GET', 'stats')) as { routes: { create?: { handled: number } } }).routes.create?.handled ?? 0,
    close: async () => {
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Session ids, URLs with ports and times vary per run; golden output replaces them. */
export function normalise(text: string, world: { dir: string; emulator: { url: string } }): string {
  return text
    .split(world.dir)
    .join('<dir>')
    .split(world.emulator.url)
    .join('<emulator>')
    .replace(/trs_[A-Za-z0-9_-]{6,}/g, 'trs_<id>')
    .replace(/req_[A-Za-z0-9]+/g, 'req_<id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>');
}
