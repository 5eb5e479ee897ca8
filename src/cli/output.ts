import { repositoryRoot } from './repository-root.js';
import { randomBytes } from 'node:crypto';
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import { InputError, UsageError } from '../diagnostics/errors.js';
import { displayPath } from '../report/paths.js';
import { formatNames, isFormatName, reporters } from '../report/registry.js';
import type { FormatName, Report, ReportContext } from '../report/types.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { version } from '../version.js';
import type { CommandEnv } from './command.js';

/** Where one rendered report goes. */
export type OutputTarget =
  | { format: FormatName; to: 'stdout' }
  | { format: FormatName; to: 'file'; path: string }
  /** The GitHub step summary is shared by every step of a job: it is appended to, never replaced. */
  | { format: FormatName; to: 'append'; path: string };

/**
 * Parses one `--format` value: `NAME`, `NAME=FILE`, or `NAME=-` for standard output.
 * Throws a UsageError naming the choices for an unknown format.
 */
export function parseFormatSpec(spec: string): { format: FormatName; file?: string } {
  const eq = spec.indexOf('=');
  const name = eq === -1 ? spec : spec.slice(0, eq);
  const file = eq === -1 ? undefined : spec.slice(eq + 1);
  if (!isFormatName(name)) {
    throw new UsageError(`unknown report format "${name}"`, `choose one of: ${formatNames.join(', ')} (or NAME=FILE to write a file)`);
  }
  if (file === '') throw new UsageError(`--format ${name}= needs a file name after "="`, `write --format ${name}=FILE, or --format ${name} for standard output`);
  return file === undefined || file === '-' ? { format: name } : { format: name, file };
}

/**
 * The `--format <name[=file]>` option shared by every command that prints a report. Repeatable;
 * the value is the list of specs as given (`string[] | undefined`), checked as it is parsed so a
 * bad name fails before any work is done. Pass it on to `emitReport`.
 */
export function formatOption(): Option {
  return new Option(
    '--format <name[=file]>',
    `report format, repeatable: NAME prints to stdout, NAME=FILE writes FILE (choices: ${formatNames.join(', ')}; ` +
      'default: human, and inside GitHub Actions also github annotations and a markdown step summary)',
  ).argParser((value: string, previous: string[] | undefined): string[] => {
    try {
      parseFormatSpec(value);
    } catch (err) {
      if (err instanceof UsageError) throw new InvalidArgumentError(`${err.message}; ${err.hint ?? ''}`.trim());
      throw err;
    }
    return [...(previous ?? []), value];
  });
}

/**
 * Whether a stream gets ANSI colour: a TTY without `NO_COLOR` (https://no-color.org: set and not
 * empty), unless `FORCE_COLOR` decides (`0` or `false` turn colour off, any other value on).
 */
export function colorEnabled(env: Readonly<Record<string, string | undefined>>, isTTY: boolean | undefined): boolean {
  const force = env['FORCE_COLOR'];
  if (force !== undefined) return force !== '0' && force !== 'false';
  const noColor = env['NO_COLOR'];
  return isTTY === true && (noColor === undefined || noColor === '');
}

/**
 * Turns the `--format` specs into output targets. With no specs: `human` to stdout, and inside
 * GitHub Actions (`GITHUB_ACTIONS=true`) also `github` annotations to stdout (the step's log; the
 * runner reads workflow commands from stderr too) and `markdown` appended to `$GITHUB_STEP_SUMMARY`
 * when it is set.
 * Every spec is checked before anything is written.
 */
export function resolveTargets(formats: readonly string[] | undefined, env: Readonly<Record<string, string | undefined>>, cwd: string): OutputTarget[] {
  if (formats === undefined || formats.length === 0) {
    const targets: OutputTarget[] = [{ format: 'human', to: 'stdout' }];
    if (env['GITHUB_ACTIONS'] === 'true') {
      targets.push({ format: 'github', to: 'stdout' });
      const summary = env['GITHUB_STEP_SUMMARY'];
      if (summary !== undefined && summary !== '') {
        targets.push({ format: 'markdown', to: 'append', path: resolve(cwd, summary) });
      }
    }
    return targets;
  }
  const targets: OutputTarget[] = [];
  const seen = new Map<string, string>();
  let stdoutSpec: string | undefined;
  for (const spec of formats) {
    const { format, file } = parseFormatSpec(spec);
    if (file === undefined) {
      if (stdoutSpec !== undefined) {
        throw new UsageError(
          `only one report can go to standard output, but both --format ${stdoutSpec} and --format ${spec} do`,
          `write the others to files: --format ${format}=FILE`,
        );
      }
      stdoutSpec = spec;
      targets.push({ format, to: 'stdout' });
      continue;
    }
    const path = resolve(cwd, file);
    const earlier = seen.get(path);
    if (earlier !== undefined) {
      throw new UsageError(`--format ${earlier} and --format ${spec} write the same file`, 'give each report its own file');
    }
    seen.set(path, spec);
    targets.push({ format, to: 'file', path });
  }
  return targets;
}

function describeWriteError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT') return 'the folder does not exist';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'a part of the path is not a folder';
  return err instanceof Error ? err.message : String(err);
}

/**
 * Renders `report` in every requested format and writes each where it belongs: files atomically
 * (never half-written; missing folders are created), the step summary appended, then stdout in
 * order. Text bound for files
 * passes through the same secret redaction as the streams. Colour only on stdout, per
 * `colorEnabled`; files never get colour.
 *
 * Throws UsageError for bad specs (before anything is written) and InputError when a report file
 * cannot be written. A step summary that cannot be appended is a warning on stderr, not a failure.
 */
export async function emitReport(
  report: Report,
  sources: ReadonlyMap<string, string>,
  formats: readonly string[] | undefined,
  env: CommandEnv,
): Promise<void> {
  const { io } = env;
  const targets = resolveTargets(formats, io.env, io.cwd);
  const root = targets.some((t) => t.format === 'github' || t.format === 'sarif') ? repositoryRoot(io.cwd, io.env) : undefined;
  const base: ReportContext = { cwd: io.cwd, color: false, toolVersion: version, sources, ...(root !== undefined ? { root } : {}) };
  const stdoutColor = colorEnabled(io.env, io.stdout.isTTY);
  // Rendered as each is written (reporters are pure: the text does not depend on when), and in
  // pieces where the format has them, so that a big report is never held whole beside its copies.
  const render = (t: OutputTarget): Iterable<string> => {
    const reporter = reporters[t.format];
    const ctx = { ...base, color: t.to === 'stdout' && stdoutColor };
    return reporter.pieces?.(report, ctx) ?? [reporter.render(report, ctx)];
  };

  for (const target of targets) {
    if (target.to !== 'file') continue;
    try {
      // Like eslint's --output-file: `--format sarif=reports/x.sarif` works in a fresh checkout.
      await mkdir(dirname(target.path), { recursive: true });
      await writeFileAtomic(target.path, redacted(render(target), env.redactor));
    } catch (err) {
      throw new InputError(`cannot write the ${target.format} report: ${describeWriteError(err)}`, displayPath(target.path, io.cwd), {
        cause: err,
      });
    }
  }
  for (const target of targets) {
    if (target.to !== 'append') continue;
    try {
      await appendFile(target.path, env.redactor.redact([...render(target)].join('')));
    } catch (err) {
      io.stderr.write(`warning: cannot append the step summary to $GITHUB_STEP_SUMMARY (${target.path}): ${describeWriteError(err)}\n`);
    }
  }
  // In a GitHub Actions log the runner treats any line that starts with `::` (after blanks) as a
  // workflow command. The human report quotes manifest text, so a crafted key or value could
  // forge an annotation or mask; the default log output therefore pauses command processing
  // around it with an unguessable token (`stop-commands`, GitHub's documented way to echo
  // untrusted text). Explicitly requested formats are left byte-exact for pipes and files.
  const guard = (formats === undefined || formats.length === 0) && io.env['GITHUB_ACTIONS'] === 'true';
  for (const target of targets) {
    if (target.to !== 'stdout') continue;
    if (guard && target.format !== 'github') {
      const text = [...render(target)].join('');
      if (text === '') continue;
      const token = randomBytes(16).toString('hex');
      io.stdout.write(`::stop-commands::${token}\n${text}::${token}::\n`);
    } else {
      for (const piece of render(target)) io.stdout.write(piece);
    }
  }
}

/** Each piece through the redaction (pieces end at line ends: see `Reporter.pieces`). */
function* redacted(pieces: Iterable<string>, redactor: { redact(text: string): string }): Generator<string> {
  for (const piece of pieces) yield redactor.redact(piece);
}
