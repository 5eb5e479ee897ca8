/**
 * `--env-file` reaches sessionctl alone. Node reads `--env-file` anywhere on its own command line,
 * script arguments included, before any JavaScript runs (nodejs/node#54232): a `#!/usr/bin/env
 * node` bin let an env file's NODE_OPTIONS load code, a missing file end in node's own error (exit
 * 9) and `/dev/zero` be read without end. Only a child process running the BUILT bin can see this:
 * it is executed as npm links it on POSIX (the file itself, and through a symlink on PATH), never
 * as `node dist/sessionctl.js`, which is the user's own choice of node command line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'dist/sessionctl.js');
let dir: string;

beforeAll(() => {
  if (!existsSync(bin)) throw new Error('dist/sessionctl.js is missing: run `npm run build`');
  dir = tempDir('envfile');
  writeFileSync(join(dir, 'evil.cjs'), `require('node:fs').writeFileSync(${JSON.stringify(join(dir, 'ran'))}, 'x'); console.log('EVIL RAN');\n`);
  writeFileSync(join(dir, 'evil.env'), `NODE_OPTIONS="--require ./evil.cjs"\nUSER_FROM_FILE=alice\n`);
  writeFileSync(join(dir, 'm.yaml'), 'name: m\nuser_id: ${USER_FROM_FILE}\n');
  symlinkSync(bin, join(dir, 'sessionctl'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the bin as a program (its shebang decides the interpreter), bounded by a child timeout. */
function run(command: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(command, args, { cwd: dir, encoding: 'utf8', timeout: 20_000, env: { PATH: `${dir}:${process.env['PATH'] ?? ''}`, NO_COLOR: '1' } });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe.each([
  ['the bin file', () => bin],
  ['the bin through a symlink on PATH (npm link)', () => 'sessionctl'],
])('%s', (_name, command) => {
  it.each([
    ['validate', ['--env-file', 'evil.env']],
    ['validate', ['--env-file=evil.env']],
    ['plan', ['--env-file', 'evil.env']],
  ] as const)('%s %j: the file fills ${VAR}; its NODE_OPTIONS never runs code', (cmd, flag) => {
    const r = run(command(), [cmd, 'm.yaml', ...flag, ...(cmd === 'plan' ? ['--state', join(dir, 'state.json')] : [])]);
    expect(existsSync(join(dir, 'ran'))).toBe(false);
    expect(r.stdout + r.stderr).not.toContain('EVIL RAN');
    // plan starts the state, and says only that.
    expect(r.stderr).toBe(cmd === 'plan' ? `note: new state at ${join(dir, 'state.json')} (nothing is recorded there yet)\n` : '');
    expect(r.status).toBe(0);
    if (cmd === 'plan') expect(r.stdout).toContain('user alice');
  });

  it('a missing env file is our located error, exit 2, not node\'s exit 9', () => {
    const r = run(command(), ['validate', 'm.yaml', '--env-file', 'missing.env']);
    expect(r.stdout).toMatch(/^missing\.env {2}error {2}the env file missing\.env does not exist {2}input\/env-file$/m);
    expect(r.stderr).not.toContain('node:');
    expect(r.status).toBe(2);
  });

  it('--env-file /dev/zero stops at the size limit, exit 2', () => {
    const r = run(command(), ['validate', 'm.yaml', '--env-file', '/dev/zero']);
    expect(r.stdout).toContain('the env file is larger than 1 MiB  input/env-file');
    expect(r.status).toBe(2);
  });
});
