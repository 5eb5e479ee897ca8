import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { InputError, UsageError } from '../diagnostics/errors.js';

/** The outcome of one git invocation. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs git with `args` in `cwd`. Injected so that library code never reaches for `process`; the
 * default spawns the `git` binary directly (no shell, so a ref can never be interpreted as shell text).
 */
export type GitRunner = (args: readonly string[], cwd: string) => Promise<GitResult>;

/** Spawns `git` without a shell. `env` is passed explicitly when given (children inherit it otherwise). */
export function execGit(env?: Readonly<Record<string, string | undefined>>): GitRunner {
  return (args, cwd) =>
    new Promise((resolve, reject) => {
      execFile(
        'git',
        [...args],
        { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...(env === undefined ? {} : { env: { ...env } }) },
        (err, stdout, stderr) => {
          if (err !== null && typeof err.code !== 'number') {
            // Not an exit status: git itself could not be started.
            reject(
              new InputError(
                err.code === 'ENOENT' ? '--changed-since needs git, and no `git` executable was found on PATH' : `could not run git: ${err.message}`,
                undefined,
                { cause: err },
              ),
            );
            return;
          }
          resolve({ code: err === null ? 0 : (err.code as number), stdout, stderr });
        },
      );
    });
}

export interface ChangedFilesOptions {
  /** Where git runs: any folder inside the work tree. */
  cwd: string;
  git?: GitRunner;
}

export interface ChangedFiles {
  /** The work tree's root (real path). */
  root: string;
  /** The commit the comparison starts from: `git merge-base REF HEAD`. */
  base: string;
  /** Absolute real paths of files added, copied, modified or renamed since `base`, and untracked files. */
  files: Set<string>;
}

/**
 * The files changed since the merge base of `ref` and HEAD, as a pull-request check sees them:
 * committed changes on the branch, plus whatever is staged, modified or untracked in the work
 * tree (so a pre-commit run and a local run agree with CI). Deleted files are not included:
 * there is nothing left to check. Renamed files count under their new name.
 */
export async function changedFiles(ref: string, options: ChangedFilesOptions): Promise<ChangedFiles> {
  const git = options.git ?? execGit();
  const cwd = options.cwd;
  // A ref that starts with `-` would be read by git as an option.
  if (ref === '' || ref.startsWith('-')) {
    throw new UsageError(`--changed-since needs a git ref (a branch, tag or commit), got ${JSON.stringify(ref)}`, 'example: --changed-since origin/main');
  }

  const top = await git(['rev-parse', '--show-toplevel'], cwd);
  if (top.code !== 0) {
    throw new InputError(`--changed-since needs a git repository, and ${cwd} is not inside one (${firstLine(top.stderr)})`);
  }
  const root = await realpath(top.stdout.trim());

  const commit = await git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], cwd);
  if (commit.code !== 0) {
    throw new InputError(
      `--changed-since: unknown git ref ${JSON.stringify(ref)}; in CI, fetch it first (actions/checkout with fetch-depth: 0, or git fetch origin <branch>)`,
    );
  }
  const mergeBase = await git(['merge-base', commit.stdout.trim(), 'HEAD'], cwd);
  if (mergeBase.code !== 0) {
    throw new InputError(
      `--changed-since: ${JSON.stringify(ref)} and HEAD have no common ancestor${mergeBase.stderr.trim() === '' ? '' : ` (${firstLine(mergeBase.stderr)})`}; a shallow clone needs more history (fetch-depth: 0)`,
    );
  }
  const base = mergeBase.stdout.trim();

  // `git diff <base>` compares the commit with the work tree: committed, staged and unstaged changes.
  const diff = await git(['-c', 'core.quotepath=off', 'diff', '--name-only', '-z', '--no-renames', '--diff-filter=ACMR', base, '--'], root);
  if (diff.code !== 0) throw new InputError(`--changed-since: git diff failed (${firstLine(diff.stderr)})`);
  const untracked = await git(['ls-files', '-z', '--others', '--exclude-standard', '--'], root);
  if (untracked.code !== 0) throw new InputError(`--changed-since: git ls-files failed (${firstLine(untracked.stderr)})`);

  const files = new Set<string>();
  for (const name of [...splitZ(diff.stdout), ...splitZ(untracked.stdout)]) files.add(path.join(root, name));
  return { root, base, files };
}

/** A manifest document as far as this module needs it: where it is and what it is called. */
export interface NamedDocument {
  file: string;
  name: string;
}

export interface SelectChangedOptions extends ChangedFilesOptions {
  /**
   * Loads the manifests under the user's paths and returns every file looked at and every
   * document's name (the manifest loader does this; it is injected to keep this module small).
   */
  load(): Promise<{ files: readonly string[]; documents: readonly NamedDocument[]; diagnostics?: readonly { code: string; file?: string }[] }>;
}

export interface ChangedSelection extends ChangedFiles {
  /** The manifest files to check, in the loader's order: changed ones and those sharing a name with them. */
  selected: string[];
  /** Files selected only because they share a name with a changed manifest. */
  byName: string[];
}

/**
 * Narrows the manifests under the user's paths to those changed since the merge base with `ref`,
 * plus every manifest that shares a name with one of them. The second part matters because a name
 * identifies a session: renaming `a.yaml` to the name `b.yaml` already uses is a duplicate that
 * only shows when both files are checked together.
 */
export async function selectChangedManifests(ref: string, options: SelectChangedOptions): Promise<ChangedSelection> {
  const changed = await changedFiles(ref, options);
  const loaded = await options.load();
  const real = new Map<string, string>();
  for (const file of loaded.files) real.set(file, await realpathOr(file));

  const isChanged = (file: string): boolean => changed.files.has(real.get(file) ?? file);
  const changedNames = new Set<string>();
  for (const doc of loaded.documents) if (isChanged(doc.file)) changedNames.add(doc.name);

  const byNameFiles = new Set<string>();
  for (const doc of loaded.documents) if (!isChanged(doc.file) && changedNames.has(doc.name)) byNameFiles.add(doc.file);

  const selected = loaded.files.filter((file) => isChanged(file) || byNameFiles.has(file));
  // A path that matched nothing stays in, so the command still reports it instead of passing quietly.
  for (const d of loaded.diagnostics ?? []) if (d.code === 'input/not-found' && d.file !== undefined && !selected.includes(d.file)) selected.push(d.file);
  return { ...changed, selected, byName: loaded.files.filter((file) => byNameFiles.has(file)) };
}

async function realpathOr(file: string): Promise<string> {
  try {
    return await realpath(file);
  } catch {
    // `<stdin>` or a file that vanished: compare as given.
    return file;
  }
}

function splitZ(text: string): string[] {
  return text.split('\0').filter((s) => s !== '');
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
