/**
 * The hostile-filesystem family of the bad-input suite: symbolic links in and out of the searched
 * folders, link loops, FIFOs and devices as inputs, and FIFOs, devices and links as report and
 * plan outputs. Every case runs `sessionctl` in-process and must end within the per-test timeout
 * of 5 s with exit 1, 2 or 3, no stack trace, and nothing of a file outside the tree in the output.
 * (A FIFO named as an input is not a case: reading one blocks like `cat fifo`, by design.)
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, fstatSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

let dir: string;
const SECRET = 'root:$6$not-for-any-log$:19000:0:99999:7:::';
const bad = 'name: bad\nuser_id: u\nworkbnch: {}\n';

function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${String(r.stderr)}`);
}

beforeAll(() => {
  dir = tempDir('hostile-fs');
  const at = (...p: string[]): string => join(dir, ...p);
  for (const d of ['outside', 'out-link', 'to-root', 'loops', 'dirloop/a', 'fifo-only', 'outputs']) mkdirSync(at(d), { recursive: true });
  writeFileSync(at('outside/shadow.yaml'), `${SECRET}\n`);
  writeFileSync(at('bad.yaml'), bad);
  symlinkSync(at('outside/shadow.yaml'), at('out-link/x.yaml'));
  writeFileSync(at('out-link/ok.yaml'), 'name: ok\nuser_id: u\n');
  symlinkSync('/', at('to-root/all'));
  writeFileSync(at('to-root/ok.yaml'), 'name: ok2\nuser_id: u\n');
  symlinkSync('self.yaml', at('loops/self.yaml'));
  symlinkSync('b.yaml', at('loops/a.yaml'));
  symlinkSync('a.yaml', at('loops/b.yaml'));
  symlinkSync('..', at('dirloop/a/up'));
  symlinkSync('loop2', at('loop1'));
  symlinkSync('loop1', at('loop2'));
  mkfifo(at('fifo-only/x.yaml'));
  mkfifo(at('outputs/lonely.fifo'));
  symlinkSync('/dev/null', at('outputs/null-link'));
  symlinkSync(at('outputs/nowhere/x.sarif'), at('outputs/dangling.sarif'));
  writeFileSync(at('outputs/real.json'), 'old\n');
  symlinkSync('real.json', at('outputs/link.json'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function expectClean(r: CliResult, exit: number): void {
  expect(r.stdout + r.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  expect(r.stderr).not.toContain('unexpected error');
  expect(r.stdout + r.stderr).not.toContain('not-for-any-log');
  expect(r.exitCode).toBe(exit);
}

const run = (args: string[]): Promise<CliResult> => runCli(args, { cwd: dir });

describe('hostile file system: inputs', () => {
  it.each([
    ['a link out of the searched folder', ['validate', 'out-link'], 2, 'input/symlink-outside'],
    ['a link out of the folder, found by a glob', ['validate', 'out-link/*.yaml'], 2, 'input/symlink-outside'],
    ['the link itself named by a ** glob', ['validate', 'out-link/**/x.yaml'], 2, 'input/symlink-outside'],
    ['a link to /', ['validate', 'to-root'], 2, 'input/symlink-outside'],
    ['a link to / under a ** glob', ['validate', 'to-root/**/*.yaml'], 2, 'input/symlink-outside'],
    ['links that loop, and a link to itself', ['validate', 'loops'], 2, 'input/symlink-loop'],
    ['a folder link to its parent', ['validate', 'dirloop'], 2, 'holds no *.yaml'],
    ['a path that is a link loop', ['validate', 'loop1'], 2, 'input/unreadable'],
    ['a folder whose only *.yaml is a FIFO', ['validate', 'fifo-only'], 2, 'holds no *.yaml'],
    ['/dev/zero as a manifest', ['validate', '/dev/zero'], 2, 'input/too-large'],
    ['/dev/urandom as a manifest', ['validate', '/dev/urandom'], 2, 'input/'],
    ['/dev/zero as the env file', ['validate', 'bad.yaml', '--env-file', '/dev/zero'], 2, 'input/env-file'],
    ['a bad glob', ['validate', 'out-link/[z-a].yaml'], 2, 'input/bad-pattern'],
  ])('%s', async (_name, args, exit, said) => {
    const r = await run(args);
    expect(r.stdout + r.stderr).toContain(said);
    expectClean(r, exit);
  }, 5_000);
});

describe('hostile file system: report and plan outputs', () => {
  it.each([
    ['a FIFO nobody reads (report)', ['validate', 'bad.yaml', '--format', 'sarif=outputs/lonely.fifo'], 2, 'FIFO (named pipe) that no process reads'],
    ['a FIFO nobody reads (plan --out)', ['plan', 'bad.yaml', '--out', 'outputs/lonely.fifo', '--state', 'outputs/state.json'], 1, ''],
    ['a dangling link', ['validate', 'bad.yaml', '--format', 'sarif=outputs/dangling.sarif'], 2, 'symbolic link to a file that does not exist'],
    ['a full device', ['validate', 'bad.yaml', '--format', 'json=/dev/full'], 2, 'cannot write the json report'],
    ['a folder', ['validate', 'bad.yaml', '--format', 'json=outputs'], 2, 'it is a folder'],
  ])('%s', async (_name, args, exit, said) => {
    const r = await run(args);
    expect(r.stdout + r.stderr).toContain(said);
    expectClean(r, exit);
    expect(lstatSync(join(dir, 'outputs/lonely.fifo')).isFIFO()).toBe(true);
    expect(lstatSync(join(dir, 'outputs/dangling.sarif')).isSymbolicLink()).toBe(true);
  }, 5_000);

  it('a plan that would be saved into a FIFO nobody reads is refused (a clean manifest)', async () => {
    writeFileSync(join(dir, 'clean.yaml'), 'name: clean\nuser_id: u\n');
    const r = await run(['plan', 'clean.yaml', '--out', 'outputs/lonely.fifo', '--state', 'outputs/state.json']);
    expect(r.stderr).toContain('FIFO (named pipe) that no process reads');
    expectClean(r, 2);
  }, 5_000);

  it('a link to /dev/null: written through; the link and the device stay', async () => {
    const r = await run(['validate', 'bad.yaml', '--format', 'sarif=outputs/null-link', '--format', 'human']);
    expectClean(r, 1);
    expect(readlinkSync(join(dir, 'outputs/null-link'))).toBe('/dev/null');
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  }, 5_000);

  it('a link to a regular file: the link stays, its target gets the report', async () => {
    const r = await run(['validate', 'bad.yaml', '--format', 'json=outputs/link.json']);
    expectClean(r, 1);
    expect(readlinkSync(join(dir, 'outputs/link.json'))).toBe('real.json');
    expect(JSON.parse(readFileSync(join(dir, 'outputs/real.json'), 'utf8'))).toMatchObject({ reportVersion: 1 });
  }, 5_000);

  it('a link to /proc/self/fd/1 with stdout redirected into a file (the built bin): the report lands in that file, which stays the one the shell holds', () => {
    const bin = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist/sessionctl.js');
    const out = join(dir, 'outputs/stdout.txt');
    symlinkSync('/proc/self/fd/1', join(dir, 'outputs/stdout-link'));
    const fd = openSync(out, 'w');
    const inode = fstatSync(fd).ino;
    try {
      const r = spawnSync(bin, ['validate', 'bad.yaml', '--format', 'json=outputs/stdout-link'], { cwd: dir, stdio: ['ignore', fd, 'pipe'], timeout: 5_000, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(1);
    } finally {
      closeSync(fd);
    }
    expect(statSync(out).ino).toBe(inode);
    expect(JSON.parse(readFileSync(out, 'utf8'))).toMatchObject({ reportVersion: 1, command: 'validate' });
    expect(lstatSync(join(dir, 'outputs/stdout-link')).isSymbolicLink()).toBe(true);
  });

  it('a FIFO with a reader gets the whole report; the FIFO stays', async () => {
    const fifo = join(dir, 'outputs/read.fifo');
    mkfifo(fifo);
    const cat = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let got = '';
    cat.stdout.on('data', (b: Buffer) => (got += b.toString()));
    const closed = new Promise((resolve) => cat.on('close', resolve));
    // The reader opens the FIFO asynchronously; until it has, the write is refused (exit 2).
    let r: CliResult;
    for (let i = 0; ; i++) {
      r = await run(['validate', 'bad.yaml', '--format', `json=${fifo}`]);
      if (r.exitCode !== 2 || i > 100) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await closed;
    expectClean(r, 1);
    expect(JSON.parse(got)).toMatchObject({ reportVersion: 1, command: 'validate' });
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  }, 5_000);
});
