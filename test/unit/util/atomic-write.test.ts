import { spawn, spawnSync } from 'node:child_process';
import { lstatSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpecialFileError, writeFileAtomic } from '../../../src/util/atomic-write.js';
import { tempDir } from '../../helpers/temp-dir.js';

let dir: string;
beforeEach(async () => {
  dir = tempDir('atomic');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function mkfifo(path: string): void {
  const r = spawnSync('mkfifo', [path]);
  if (r.status !== 0) throw new Error(`mkfifo failed: ${String(r.stderr)}`);
}

/** A reader on the FIFO (cat), and what it read once the writer closed. */
function readerOf(fifo: string): Promise<string> {
  const cat = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  cat.stdout.on('data', (b: Buffer) => (out += b.toString()));
  return new Promise((resolve) => cat.on('close', () => resolve(out)));
}

/** Waits until `cat` has the FIFO open for reading (a non-blocking open would fail before). */
async function untilRead(fifo: string, data: string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      await writeFileAtomic(fifo, data);
      return;
    } catch (err) {
      if (!(err instanceof SpecialFileError) || i > 200) throw err;
      await new Promise((r) => setTimeout(r, 10));
    }
  }
}

describe('writeFileAtomic on what is already at the path', () => {
  it('a regular file is replaced whole, and no temporary file is left', async () => {
    const file = join(dir, 'r.json');
    writeFileSync(file, 'old');
    await writeFileAtomic(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(spawnSync('ls', ['-A', dir], { encoding: 'utf8' }).stdout).toBe('r.json\n');
  });

  it('a symlink to a regular file stays a link; its target gets the content', async () => {
    const target = join(dir, 'real.sarif');
    const link = join(dir, 'link.sarif');
    writeFileSync(target, 'old');
    symlinkSync('real.sarif', link);
    await writeFileAtomic(link, 'new');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe('real.sarif');
    expect(readFileSync(target, 'utf8')).toBe('new');
  });

  it('a dangling symlink is refused and left as it was', async () => {
    const link = join(dir, 'dangling');
    symlinkSync(join(dir, 'nowhere', 'x'), link);
    await expect(writeFileAtomic(link, 'x')).rejects.toThrow(SpecialFileError);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
  });

  it.each([
    ['the device itself', () => '/dev/null'],
    ['a symlink to it', () => {
      symlinkSync('/dev/null', join(dir, 'null-link'));
      return join(dir, 'null-link');
    }],
  ])('/dev/null, %s: written through; the device stays a device', async (_name, path) => {
    const p = path();
    await writeFileAtomic(p, 'report\n');
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    expect(lstatSync(p).isFile()).toBe(false);
  });

  it.each([['the FIFO itself', false], ['a symlink to it', true]])('a FIFO with a reader, %s: the reader gets every byte; the FIFO stays', async (_name, viaLink) => {
    const fifo = join(dir, 'out.fifo');
    mkfifo(fifo);
    const path = viaLink ? join(dir, 'fifo-link') : fifo;
    if (viaLink) symlinkSync(fifo, path);
    const read = readerOf(fifo);
    const big = 'x'.repeat(300_000) + '\n'; // more than a pipe holds: the writer must wait for the reader
    await untilRead(path, big);
    expect(await read).toBe(big);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('a FIFO that no process reads is refused at once, not waited on', async () => {
    const fifo = join(dir, 'lonely.fifo');
    mkfifo(fifo);
    await expect(writeFileAtomic(fifo, 'x')).rejects.toThrow(/FIFO \(named pipe\) that no process reads/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it('a folder is an EISDIR error', async () => {
    await expect(writeFileAtomic(dir, 'x')).rejects.toMatchObject({ code: 'EISDIR' });
  });
});
