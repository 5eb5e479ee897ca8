import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import YAML from 'yaml';
import { tempDir } from '../helpers/temp-dir.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface Hook {
  id: string;
  name: string;
  entry: string;
  language: string;
  files: string;
  types?: string[];
  pass_filenames?: boolean;
  require_serial?: boolean;
}

const hooks = YAML.parse(readFileSync(path.join(root, '.pre-commit-hooks.yaml'), 'utf8')) as Hook[];
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string>; files: string[] };

let repo: string;

beforeAll(() => {
  repo = tempDir('precommit');
  mkdirSync(path.join(repo, 'sessions'));
  writeFileSync(path.join(repo, 'sessions/good.yaml'), 'name: good\nuser_id: u1\ntoolkits: [gmail]\n');
  writeFileSync(path.join(repo, 'sessions/also-good.yml'), 'name: also-good\nuser_id: u2\n');
  writeFileSync(path.join(repo, 'sessions/bad.yaml'), 'name: bad\nuser_id: u3\ntoolkits:\n  enable: [gmail]\n  disable: [slack]\n');
});

afterAll(() => rmSync(repo, { recursive: true, force: true }));

/** Runs the hook's entry as pre-commit does: the entry's words, then the staged file names, in the repository root. */
function runHook(hook: Hook, files: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const [program, ...args] = hook.entry.split(/\s+/);
  // `language: node` installs the package, which puts its bin on PATH; here the built bin stands in.
  const bin = path.join(root, pkg.bin[program!]!);
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args, ...(hook.pass_filenames === false ? [] : files)], { cwd: repo, env: { PATH: process.env['PATH'], NO_COLOR: '1' }, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stdout, stderr }),
    );
  });
}

describe('.pre-commit-hooks.yaml', () => {
  const hook = hooks.find((h) => h.id === 'sessionctl-validate')!;

  test('declares sessionctl-validate as a node hook on YAML files', () => {
    expect(hooks.map((h) => h.id)).toEqual(['sessionctl-validate']);
    expect(hook.language).toBe('node');
    expect(hook.entry).toBe('sessionctl validate');
    expect(hook.types).toEqual(['yaml']);
    // pre-commit uses Python regular expressions; this one means the same in JavaScript.
    const files = new RegExp(hook.files);
    expect(['a.yaml', 'dir/b.yml', 'c.YAML'.toLowerCase()].every((f) => files.test(f))).toBe(true);
    expect(['a.json', 'a.yaml.bak', 'yaml'].some((f) => files.test(f))).toBe(false);
  });

  test('the entry names the package bin, which the package builds when pre-commit installs it (prepare)', () => {
    expect(Object.keys(pkg.bin)).toContain(hook.entry.split(' ')[0]);
    // pre-commit installs node hooks from git, where npm runs only `prepare` (which builds dist/).
    expect(pkg.scripts['prepare']).toBe('node scripts/prepare.mjs');
    expect(readFileSync(path.join(root, 'scripts/prepare.mjs'), 'utf8')).toContain("run(['run', '-s', 'build'])");
    expect(pkg.files).toContain('dist');
    expect(existsSync(path.join(root, pkg.bin['sessionctl']!)), 'build first (npm run build)').toBe(true);
  });

  test('the entry validates the files pre-commit passes: clean files exit 0', async () => {
    const run = await runHook(hook, ['sessions/good.yaml', 'sessions/also-good.yml']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  test('a finding fails the hook with file:line:col and its code', async () => {
    const run = await runHook(hook, ['sessions/good.yaml', 'sessions/bad.yaml']);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/^sessions\/bad\.yaml:5:3 +error .*rule\/allowlist-with-denylist$/m);
  });
});
