import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain JS module shared with the benchmark
import { generate } from '../../bench/validate/generate.js';
import { tempDir } from '../helpers/temp-dir.js';

/**
 * Smoke tests of the built single-file bin (npm test builds first): packaging mistakes, and the
 * worker threads, which exist only in the build, give exactly the sequential results.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'dist/sessionctl.js');

function run(args: string[], cwd = root): { status: number | null; stdout: string; stderr: string } {
  if (!existsSync(bin)) throw new Error('dist/sessionctl.js is missing: run `npm run build`');
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', NO_COLOR: '1' }, maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('the built bin', () => {
  it('validates the examples clean', () => {
    const r = run(['validate', 'examples']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('No problems');
    expect(r.status).toBe(0);
  });

  it('serves validate from its own bundle with the same command as the whole CLI', () => {
    const lane = run(['validate', '--help']);
    const whole = spawnSync(process.execPath, [join(root, 'dist/sessionctl-main.js'), 'validate', '--help'], { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '' } });
    expect(lane.stdout).toBe(whole.stdout);
    expect(lane.stdout).toContain('Usage: sessionctl validate');
    const bad = run(['validate', 'examples', '--bogus']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("unknown option '--bogus'");
    // Every other command loads the whole CLI.
    const version = run(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(run(['schema']).stdout).toContain('"$id": "https://sessionctl.dev/schemas/session-manifest.schema.json"');
  });

  // Two processes of the built bin over 500 files: up to 17 s beside a CPU hog on two cores.
  it('gives the same report with worker threads as without', { timeout: 40_000 }, () => {
    const dir = tempDir('smoke');
    // Three batches of 250 (src/validate/parallel.ts), so both workers take some. Without --jobs,
    // fewer than 2,000 files run on one thread: the same path as --jobs 1.
    generate(dir, 501);
    writeFileSync(join(dir, 'x-dup.yaml'), 'name: bench-7\nuser_id: u\n');
    writeFileSync(join(dir, 'x-secret.yaml'), 'user_id: ghp_abcdefghijklmnopqrstuvwxyz0123456789\n');
    writeFileSync(join(dir, 'x-yaml11.yaml'), 'user_id: no\n');
    const sequential = run(['validate', dir, '--format', 'json', '--jobs', '1']);
    const parallel = run(['validate', dir, '--format', 'json', '--jobs', '2']);
    expect(sequential.status).toBe(1);
    expect(parallel.stdout).toBe(sequential.stdout);
    const report = JSON.parse(sequential.stdout) as { summary: { files: number; errors: number; warnings: number } };
    expect(report.summary).toMatchObject({ files: 504, errors: 10 + 2, warnings: 1 });
  });
});
