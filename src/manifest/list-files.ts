import { opendir, realpath, stat } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { compileGlob, GlobError, hasGlobMagic, splitGlob, type Glob } from './glob.js';
import { excerpt } from '../diagnostics/excerpt.js';
import { STDIN_FILE } from './parse.js';

/** Folder search: these names are manifests. */
const MANIFEST_FILE = /\.ya?ml$/i;
/** Folder and `**` search skip these (dependencies and tool folders such as `.git`, `.sessionctl`). */
const SKIPPED_DIR = (name: string): boolean => name === 'node_modules' || name.startsWith('.');

/** One path of the command line, classified before anything is walked. */
type Planned =
  | { kind: 'stdin' }
  | { kind: 'file'; file: string }
  | { kind: 'walk'; root: string; match: (relativePath: string) => boolean; empty: Diagnostic }
  | { kind: 'problem'; problem: Diagnostic };

/**
 * The files `paths` name, as `loadManifests` loads them: in the order given, a folder's or glob's
 * files sorted, each file once, `-` as `<stdin>`; plus a finding for each path that names nothing
 * and each pattern that is not valid (`input/bad-pattern`).
 *
 * Folder and glob search follow a symbolic link only when it stays inside the folders the run
 * searches (every folder path and glob base given): a link committed next to the manifests
 * (`x.yaml -> /etc/shadow`, `all -> /`) would otherwise put other files into code frames and CI
 * logs, or walk the whole file system. Such a link, and a link that loops, is an
 * `input/symlink-outside` or `input/symlink-loop` finding at the link. A file named explicitly
 * is read wherever it is: the user chose it.
 */
export async function expandManifestPaths(paths: readonly string[], cwd: string, texts?: ReadonlyMap<string, string>): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const diagnostics: Diagnostic[] = [];
  const files: string[] = [];
  const seen = new Set<string>();
  const add = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    files.push(file);
  };
  const planned: Planned[] = [];
  for (const path of paths) planned.push(path === '-' ? { kind: 'stdin' } : await plan(path, cwd, texts));
  const roots = await Promise.all(planned.map((p) => (p.kind === 'walk' ? realpath(p.root).catch(() => p.root) : undefined)));
  const searched = roots.filter((r): r is string => r !== undefined);
  for (const p of planned) {
    if (p.kind === 'stdin') add(STDIN_FILE);
    else if (p.kind === 'file') add(p.file);
    else if (p.kind === 'problem') diagnostics.push(p.problem);
    else {
      const walked = await walk(p.root, p.match, searched);
      diagnostics.push(...walked.diagnostics);
      if (walked.files.length === 0 && walked.diagnostics.length === 0) diagnostics.push(p.empty);
      walked.files.forEach(add);
    }
  }
  return { files, diagnostics };
}

async function plan(path: string, cwd: string, texts: ReadonlyMap<string, string> | undefined): Promise<Planned> {
  const absolute = resolve(cwd, path);
  let kind: 'file' | 'dir' | 'missing';
  try {
    kind = (await stat(absolute)).isDirectory() ? 'dir' : 'file';
  } catch (err) {
    if (!isMissing(err)) return { kind: 'problem', problem: unreadable(absolute, err) };
    kind = 'missing';
  }
  // A new file an editor has not saved yet exists as its buffer (`LoadOptions.texts`).
  if (kind === 'file' || (kind === 'missing' && texts?.has(absolute) === true)) return { kind: 'file', file: absolute };
  if (kind === 'dir') {
    return { kind: 'walk', root: absolute, match: (rel) => MANIFEST_FILE.test(rel), empty: notFound(absolute, `the folder ${path} holds no *.yaml or *.yml file`) };
  }
  if (!hasGlobMagic(path)) return { kind: 'problem', problem: notFound(absolute, `${path} does not exist`) };
  const posix = path.split(sep).join('/');
  const { base, rest } = splitGlob(posix);
  let glob: Glob;
  try {
    glob = compileGlob(rest);
  } catch (err) {
    if (!(err instanceof GlobError)) throw err;
    const problem: Diagnostic = { code: 'input/bad-pattern', severity: 'error', message: `the pattern ${excerpt(path)} is not valid: ${err.reason}` };
    problem.hint = 'patterns know *, **, ?, [abc], [a-z], [!abc] and {a,b}; quote the pattern so that the shell leaves it alone';
    return { kind: 'problem', problem };
  }
  const root = resolve(cwd, base === '' ? '.' : base);
  const empty = notFound(isAbsolute(path) ? path : absolute, `the pattern ${path} matched no file`);
  try {
    if ((await stat(root)).isDirectory()) return { kind: 'walk', root, match: (rel) => glob.match(rel), empty };
  } catch (err) {
    if (!isMissing(err)) return { kind: 'problem', problem: unreadable(root, err) };
  }
  return { kind: 'problem', problem: empty };
}

/** Whether a real path is one of `roots` or below one. */
function inside(real: string, roots: readonly string[]): boolean {
  return roots.some((r) => real === r || real.startsWith(r.endsWith(sep) ? r : r + sep));
}

/**
 * Files below `root` whose relative path passes `match`, sorted, and the links it did not follow.
 * Entry by entry, with paths built by concatenation: a folder of 100,000 files read whole by
 * `readdir` held ~60 MB of entries at once, and `join`/`relative` per entry ~45 MB of garbage.
 * (`dir` is absolute and normalised and an entry name holds no separator, so `prefix + name` is
 * what `join` returns, and the part after the root's prefix is what `relative` returns.) Each real
 * folder is read once, so links between folders of the tree cannot loop.
 */
async function walk(root: string, match: (relativePath: string) => boolean, roots: readonly string[]): Promise<{ files: string[]; diagnostics: Diagnostic[] }> {
  const found: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const visited = new Set<string>();
  const pending = [root];
  const rootPrefix = root.endsWith(sep) ? root : root + sep;
  while (pending.length > 0) {
    const dir = pending.pop() as string;
    let real: string;
    try {
      real = await realpath(dir);
    } catch {
      continue;
    }
    if (visited.has(real)) continue;
    visited.add(real);
    let handle;
    try {
      handle = await opendir(dir, { bufferSize: 256 });
    } catch {
      // An unreadable sub-folder holds nothing we can load; named explicitly, it is reported.
      continue;
    }
    const prefix = dir.endsWith(sep) ? dir : dir + sep;
    const relPrefix = dir === root ? '' : prefix.slice(rootPrefix.length).split(sep).join('/');
    try {
      for await (const entry of handle) {
        const full = prefix + entry.name;
        let isDir = entry.isDirectory();
        let isFile = entry.isFile();
        if (entry.isSymbolicLink()) {
          const followed = await followLink(full, roots);
          if ('problem' in followed) {
            // Reported only where the link would have been used: a folder the search enters, or a file whose name matches.
            const wanted = followed.dir ? !SKIPPED_DIR(entry.name) : match(relPrefix + entry.name);
            if (followed.problem !== undefined && wanted) diagnostics.push(followed.problem);
            continue;
          }
          isDir = followed.isDir;
          isFile = followed.isFile;
        }
        if (isDir) {
          if (!SKIPPED_DIR(entry.name)) pending.push(full);
        } else if (isFile && match(relPrefix + entry.name)) {
          found.push(full);
        }
      }
    } catch {
      // A folder that fails while it is read: what was read so far is kept, as with any unreadable sub-folder.
    }
  }
  return { files: found.sort(compareCodeUnits), diagnostics };
}

/** What a link in a searched folder leads to, or why it is not followed (no finding for a dangling link). */
async function followLink(link: string, roots: readonly string[]): Promise<{ isDir: boolean; isFile: boolean } | { problem: Diagnostic | undefined; dir: boolean }> {
  let real: string;
  try {
    real = await realpath(link);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      return { problem: { code: 'input/symlink-loop', severity: 'error', message: 'this symbolic link leads back to itself; it is not followed', file: link, range: START }, dir: false };
    }
    return { problem: undefined, dir: false };
  }
  let s;
  try {
    s = await stat(real);
  } catch {
    return { problem: undefined, dir: false };
  }
  if (!inside(real, roots)) {
    return {
      problem: {
        code: 'input/symlink-outside',
        severity: 'error',
        message: `this symbolic link leads out of the folders being searched (to ${s.isDirectory() ? 'a folder' : 'a file'} elsewhere); it is not followed`,
        file: link,
        range: START,
        hint: 'name the target as a path of its own if it is a manifest, or remove the link',
      },
      dir: s.isDirectory(),
    };
  }
  return { isDir: s.isDirectory(), isFile: s.isFile() };
}

const START = { start: { line: 1, col: 1 }, end: { line: 1, col: 1 } };

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isMissing(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function notFound(file: string, message: string): Diagnostic {
  return { code: 'input/not-found', severity: 'error', message, file };
}

/** A file that cannot be read: one finding at its first line. */
export function unreadable(file: string, err: unknown): Diagnostic {
  const code = (err as { code?: string } | null)?.code;
  const reason = code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'is a folder' : err instanceof Error ? err.message : String(err);
  return { code: 'input/unreadable', severity: 'error', message: `cannot read the file: ${reason}`, file, range: START };
}
