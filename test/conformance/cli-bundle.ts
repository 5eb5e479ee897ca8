/**
 * The sessionctl CLI as a real executable built from the current sources, for tests that must spawn
 * `sessionctl emulator` (a separate process, as users run it) without depending on a stale `dist/`.
 * esbuild bundles `src/cli/main.ts` (dependencies stay external) into a temp directory that holds a
 * copy of package.json (read for the version) and a link to this repo's node_modules.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { copyFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { tempDir } from '../helpers/temp-dir.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
let built: Promise<string> | undefined;

/** Path of a `main.js` that behaves as `bin/sessionctl`. Built once per test file. */
export function cliBundle(): Promise<string> {
  built ??= (async () => {
    const dir = tempDir('cli');
    copyFileSync(join(repo, 'package.json'), join(dir, 'package.json'));
    symlinkSync(join(repo, 'node_modules'), join(dir, 'node_modules'), 'dir');
    const outfile = join(dir, 'cli', 'main.js');
    await build({
      entryPoints: [join(repo, 'src/cli/main.ts')],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'silent',
    });
    return outfile;
  })();
  return built;
}

export interface SpawnedEmulator {
  url: string;
  child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Sends SIGINT and resolves with the exit code once the process ended. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Spawns `sessionctl emulator <args>` and resolves once it printed its URL. */
export async function spawnEmulator(args: readonly string[], env: Record<string, string> = {}): Promise<SpawnedEmulator> {
  const main = await cliBundle();
  const child = spawn(process.execPath, [main, 'emulator', ...args], {
    env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (): void => {
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) {
        child.stdout.off('data', onData);
        resolve(line.trim());
      }
    };
    child.stdout.on('data', onData);
    void exited.then((code) => reject(new Error(`emulator exited (${code}) before printing its URL: ${err}`)));
  });
  return {
    url,
    child,
    stdout: () => out,
    stderr: () => err,
    async stop(signal = 'SIGINT') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export { repo };
