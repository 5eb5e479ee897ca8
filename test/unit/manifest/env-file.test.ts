import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEnvFile } from '../../../src/manifest/env-file.js';
import { tempDir } from '../../helpers/temp-dir.js';

let dir: string;
beforeAll(async () => {
  dir = tempDir('env');
  await writeFile(join(dir, 'ok.env'), '# comment\nUSER_ID=from-file\nexport STAGE=prod\nQUOTED="a b"\nFROM_ENV=file\n\n');
  await writeFile(join(dir, 'garbage.env'), 'A=1\nthis is not a pair\nB=2\n');
  await writeFile(join(dir, 'bad-utf8.env'), Buffer.from([0x41, 0x3d, 0xff, 0x0a]));
  await mkdir(join(dir, 'folder.env'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loadEnvFile', () => {
  it('reads NAME=value lines; the process environment wins over the file (node --env-file)', async () => {
    const r = await loadEnvFile('ok.env', { cwd: dir, base: { FROM_ENV: 'process', PATH: '/bin' } });
    expect(r.diagnostics).toEqual([]);
    expect(r.fileVariables).toEqual({ USER_ID: 'from-file', STAGE: 'prod', QUOTED: 'a b', FROM_ENV: 'file' });
    expect(r.env).toEqual({ USER_ID: 'from-file', STAGE: 'prod', QUOTED: 'a b', FROM_ENV: 'process', PATH: '/bin' });
  });

  it('a line that is not NAME=value is located', async () => {
    const r = await loadEnvFile('garbage.env', { cwd: dir, base: {} });
    expect(r.diagnostics.map((d) => [d.code, d.range?.start.line, d.range?.start.col])).toEqual([['input/env-file', 2, 1]]);
  });

  it.each([
    ['a missing file', 'missing.env'],
    ['a folder', 'folder.env'],
    ['invalid UTF-8', 'bad-utf8.env'],
  ])('%s is input/env-file and leaves the environment as it was', async (_name, path) => {
    const r = await loadEnvFile(path, { cwd: dir, base: { KEEP: '1' } });
    expect(r.diagnostics.map((d) => d.code)).toEqual(['input/env-file']);
    expect(r.env).toEqual({ KEEP: '1' });
  });
});
