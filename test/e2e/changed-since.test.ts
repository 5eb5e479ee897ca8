import { execFileSync } from 'node:child_process';
import { mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { InputError, UsageError } from '../../src/diagnostics/errors.js';
import { execGit, selectChangedManifests } from '../../src/git/changed-since.js';
import { loadManifests } from '../../src/manifest/load.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-dir.js';

/** git with a fixed identity and no user or system config, so the test means the same everywhere. */
const gitEnv = {
  PATH: process.env['PATH'],
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  // Never discover a repository above the temporary folders.
  GIT_CEILING_DIRECTORIES: realpathSync(tmpdir()),
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' });
}

function write(root: string, file: string, text: string): void {
  mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
  writeFileSync(path.join(root, file), text);
}

const manifest = (name: string | undefined, user = 'u1'): string => `${name === undefined ? '' : `name: ${name}\n`}user_id: ${user}\ntoolkits: [gmail]\n`;

let repo: string;
let outside: string;

beforeAll(() => {
  repo = realpathSync(tempDir('changed'));
  outside = realpathSync(tempDir('norepo'));
  git(repo, 'init', '-q', '-b', 'main');
  write(repo, 'sessions/a.yaml', manifest('alpha'));
  write(repo, 'sessions/b.yaml', manifest('beta'));
  write(repo, 'sessions/c.yaml', manifest(undefined)); // named by its stem: c
  write(repo, 'sessions/g.yaml', manifest('golf'));
  write(repo, 'sessions/h.yaml', manifest('hotel'));
  write(repo, 'sessions/team/d.yaml', manifest('delta'));
  write(repo, 'sessions/old/c.yaml', manifest(undefined)); // also named c, by stem
  write(repo, 'sessions/gone.yaml', manifest('gone'));
  write(repo, 'sessions/legacy.yaml', 'name: legacy\nuser_id: u1\nworkbnch: {}\n'); // invalid, and never touched
  write(repo, 'README.md', 'docs\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'base');

  git(repo, 'checkout', '-q', '-b', 'feature');
  write(repo, 'sessions/a.yaml', manifest('alpha', 'u2')); // modified
  write(repo, 'sessions/e.yaml', manifest('beta')); // added, and shares the name beta with b.yaml
  git(repo, 'rm', '-q', 'sessions/gone.yaml'); // deleted: nothing left to check
  write(repo, 'README.md', 'more docs\n'); // changed, but not a manifest under the paths
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'feature work');

  // main moves on after the branch point: these changes are not the branch's.
  git(repo, 'checkout', '-q', 'main');
  write(repo, 'sessions/g.yaml', manifest('golf', 'u9'));
  git(repo, 'commit', '-q', '-am', 'main moves on');
  git(repo, 'checkout', '-q', 'feature');

  // Work-tree changes count too (a pre-commit or local run sees what CI will see).
  write(repo, 'sessions/h.yaml', manifest('hotel', 'u3')); // modified, not staged
  write(repo, 'sessions/f.yaml', manifest('foxtrot')); // untracked
  write(repo, 'sessions/ignored.yaml', manifest('india'));
  write(repo, '.gitignore', 'sessions/ignored.yaml\n'); // untracked itself, but not a manifest
});

afterAll(() => {
  rmSync(repo, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

async function select(ref: string, paths: string[], cwd = repo) {
  return selectChangedManifests(ref, {
    cwd,
    git: execGit(gitEnv),
    load: () => loadManifests(paths, { cwd, env: {} }),
  });
}

const rel = (files: readonly string[]): string[] => files.map((f) => path.relative(repo, f).split(path.sep).join('/')).sort();

describe('--changed-since selection', () => {
  test('changed since the merge base, plus manifests sharing a name, in a branch', async () => {
    const s = await select('main', ['sessions']);
    expect(s.base).toBe(git(repo, 'merge-base', 'main', 'HEAD').trim());
    expect(rel(s.selected)).toEqual([
      'sessions/a.yaml', // modified on the branch
      'sessions/b.yaml', // unchanged, but named beta like the new e.yaml
      'sessions/e.yaml', // added on the branch
      'sessions/f.yaml', // untracked
      'sessions/h.yaml', // modified in the work tree
    ]);
    expect(rel(s.byName)).toEqual(['sessions/b.yaml']);
  });

  test('a file-stem name pairs files in different folders', async () => {
    write(repo, 'sessions/c.yaml', `${manifest(undefined)}# touched\n`);
    try {
      const s = await select('main', ['sessions']);
      expect(rel(s.selected)).toContain('sessions/c.yaml');
      expect(rel(s.byName)).toEqual(['sessions/b.yaml', 'sessions/old/c.yaml']);
    } finally {
      git(repo, 'checkout', '-q', '--', 'sessions/c.yaml');
    }
  });

  test('only files under the given paths are considered, and ignored files never', async () => {
    const s = await select('main', ['sessions/team', 'sessions/a.yaml', 'sessions/c.yaml']);
    expect(rel(s.selected)).toEqual(['sessions/a.yaml']);
    const all = await select('main', ['.']);
    expect(rel(all.selected)).not.toContain('sessions/ignored.yaml');
    expect(rel(all.selected)).not.toContain('sessions/gone.yaml');
  });

  test('relative to a commit id and from a subfolder', async () => {
    const base = git(repo, 'rev-parse', 'HEAD').trim();
    const s = await select(base, ['.'], path.join(repo, 'sessions'));
    // Since HEAD: only the work tree's changes, and the names they share.
    expect(rel(s.selected)).toEqual(['sessions/f.yaml', 'sessions/h.yaml']);
  });

  test('file names with spaces and non-ASCII characters come through git unmangled', async () => {
    write(repo, 'sessions/über team.yaml', manifest('uber-team'));
    try {
      const s = await select('main', ['sessions']);
      expect(rel(s.selected)).toContain('sessions/über team.yaml');
    } finally {
      rmSync(path.join(repo, 'sessions/über team.yaml'));
    }
  });

  test('nothing changed gives an empty selection', async () => {
    const s = await select('HEAD', ['sessions/team']);
    expect(s.selected).toEqual([]);
  });

  test('outside a git repository: a clear input error', async () => {
    write(outside, 'm.yaml', manifest('m'));
    const err = await select('main', ['.'], outside).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(/needs a git repository, and .* is not inside one/);
  });

  test('an unknown ref: a clear input error naming it', async () => {
    const err = await select('no-such-branch', ['.']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toContain('unknown git ref "no-such-branch"');
  });

  test('a ref that looks like an option is refused before git sees it', async () => {
    const err = await select('--output=/tmp/x', ['.']).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
  });
});

describe('validate --changed-since', () => {
  const cliEnv = { ...gitEnv, NO_COLOR: '1' };

  test('checks only the selection: the untouched invalid file is skipped, the same-name duplicate is found', async () => {
    const whole = await runCli(['validate', 'sessions', '--format', 'json'], { cwd: repo, env: cliEnv });
    expect(whole.exitCode).toBe(1);
    expect((JSON.parse(whole.stdout) as { diagnostics: Array<{ code: string; file: string }> }).diagnostics.map((d) => `${d.file} ${d.code}`)).toContain(
      'sessions/legacy.yaml schema/unknown-key',
    );

    const run = await runCli(['validate', 'sessions', '--changed-since', 'main', '--format', 'json'], { cwd: repo, env: cliEnv });
    const report = JSON.parse(run.stdout) as { files: string[]; diagnostics: Array<{ code: string; file: string }> };
    expect(report.files.slice().sort()).toEqual(['sessions/a.yaml', 'sessions/b.yaml', 'sessions/e.yaml', 'sessions/f.yaml', 'sessions/h.yaml']);
    expect(report.diagnostics.map((d) => `${d.file} ${d.code}`)).toEqual(['sessions/e.yaml rule/duplicate-name']);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^--changed-since main: 5 manifest file\(s\) since [0-9a-f]{12} \(1 sharing a name: sessions\/b\.yaml\)\n$/);
  });

  test('nothing changed: an empty, passing run that still writes its report', async () => {
    const run = await runCli(['validate', 'sessions/team', '--changed-since', 'HEAD', '--format', 'json'], { cwd: repo, env: cliEnv });
    expect(run.exitCode).toBe(0);
    expect((JSON.parse(run.stdout) as { files: string[] }).files).toEqual([]);
    expect(run.stderr).toMatch(/no manifest changed since/);
  });

  test('outside a repository: exit 2 with a clear message, no report', async () => {
    const run = await runCli(['validate', '.', '--changed-since', 'main'], { cwd: outside, env: cliEnv });
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: --changed-since needs a git repository, and .* is not inside one/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  test('an unknown ref: exit 2 naming it', async () => {
    const run = await runCli(['validate', 'sessions', '--changed-since', 'origin/nope'], { cwd: repo, env: cliEnv });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('unknown git ref "origin/nope"');
  });
});

describe('plan, apply and diff --changed-since', () => {
  let work: string;
  const cliEnv = { ...gitEnv, NO_COLOR: '1' };
  const cli = (...argv: string[]) => runCli(argv, { cwd: work, env: cliEnv });

  beforeAll(() => {
    work = realpathSync(tempDir('changed-apply'));
    git(work, 'init', '-q', '-b', 'main');
    write(work, 's/one.yaml', 'name: one\nuser_id: u1\ntoolkits: [gmail]\n');
    write(work, 's/two.yaml', 'name: two\nuser_id: u2\ntoolkits: [slack]\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'base');
    git(work, 'checkout', '-q', '-b', 'feature');
    write(work, 's/two.yaml', 'name: two\nuser_id: u2\ntoolkits: [slack, gmail]\n');
    git(work, 'commit', '-q', '-am', 'two gains gmail');
  });

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  test('apply creates only the changed manifest; plan and diff see only it; the whole folder still shows the other', async () => {
    const applied = await cli('apply', 's', '--emulator', '--state', 'st/state.json', '--changed-since', 'main', '--format', 'json');
    expect(applied.exitCode).toBe(0);
    const items = (JSON.parse(applied.stdout) as { applied: { items: Array<{ name: string; outcome: string }> } }).applied.items;
    expect(items.map((i) => `${i.name} ${i.outcome}`)).toEqual(['two created']);

    const plan = await cli('plan', 's', '--state', 'st/state.json', '--changed-since', 'main', '--format', 'json');
    expect(plan.exitCode).toBe(0);
    const planned = (JSON.parse(plan.stdout) as { plan: { items: Array<{ name: string; action: string }> } }).plan.items;
    expect(planned.map((i) => `${i.name} ${i.action}`)).toEqual(['two no-op']);

    const diff = await cli('diff', 's', '--emulator', '--state', 'st/state.json', '--changed-since', 'main', '--format', 'json');
    expect(diff.exitCode).toBe(0);
    expect((JSON.parse(diff.stdout) as { files: string[] }).files).toEqual(['s/two.yaml']);

    // Without the option, `one` was never applied: drift exit 1.
    const whole = await cli('diff', 's', '--emulator', '--state', 'st/state.json', '--format', 'json');
    expect(whole.exitCode).toBe(1);
    expect((JSON.parse(whole.stdout) as { diagnostics: Array<{ code: string; file: string }> }).diagnostics.map((d) => `${d.file} ${d.code}`)).toEqual([
      's/one.yaml state/not-applied',
    ]);
  });

  test('a saved plan cannot be narrowed: exit 2', async () => {
    const saved = await cli('plan', 's', '--state', 'st/state.json', '--out', 'plan.json');
    expect(saved.exitCode).toBe(0);
    const run = await cli('apply', 'plan.json', '--emulator', '--changed-since', 'main');
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('--changed-since cannot narrow a saved plan');
  });
});
