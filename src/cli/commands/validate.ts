import { InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../../diagnostics/errors.js';
import { changedSinceOption, narrowToChanged } from '../changed-since.js';
import { emitReport, formatOption } from '../output.js';
import type { RegisterCommand } from '../command.js';
import { exitCodeForDiagnostics } from '../exit-codes.js';
import { declaredSensitive, sensitiveOption } from '../sensitive-options.js';

interface ValidateOptions {
  format?: string[];
  strict?: boolean;
  envFile?: string;
  maxFileSize?: number;
  jobs?: number;
  changedSince?: string;
  fastPath?: boolean;
  sensitive?: string[];
}

function parseJobs(value: string): number {
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > 64) throw new InvalidArgumentError('expected a whole number of threads from 1 to 64');
  return n;
}

function parseBytes(value: string): number {
  const n = /^[0-9]+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive whole number of bytes, such as 1048576');
  return n;
}

/**
 * `sessionctl validate [paths..]`: parse, schema and rules, every finding at file:line:col.
 * No network. Paths are required (explicit beats a `.` that would lint every YAML file of a repo,
 * CI workflows included); `-` reads standard input.
 */
export const registerValidate: RegisterCommand = (program, env) => {
  program
    .command('validate')
    .description('Check session manifests: YAML, schema and semantic rules, each finding at file:line:col. No network.')
    .argument('<paths...>', 'manifest files, folders (searched for *.yaml and *.yml), globs in quotes, or - for standard input')
    .addOption(formatOption())
    .addOption(changedSinceOption())
    .option('--strict', 'warnings fail the run too (exit code 1)')
    .option('--env-file <file>', 'read ${VAR} values from a dotenv file; variables already set in the environment win')
    .addOption(sensitiveOption())
    .addOption(new Option('--max-file-size <bytes>', 'refuse larger files before parsing them (default: 1048576, 1 MiB)').argParser(parseBytes))
    .addOption(
      new Option('--jobs <n>', 'threads for big runs, the main one included (default: every core, at most 4, from 5,000 files on); results never depend on it').argParser(parseJobs),
    )
    .option('--no-fast-path', 'read every file with positions, as files with findings are; slower on big runs, same results')
    .addHelpText(
      'after',
      [
        '',
        'Examples:',
        '  sessionctl validate manifests/                      # every *.yaml / *.yml below manifests/',
        "  sessionctl validate 'teams/**/session.yaml'         # a glob, matched by sessionctl itself",
        '  cat support.yaml | sessionctl validate -            # standard input',
        '  sessionctl validate manifests/ --env-file .env.ci   # ${VAR} values from a file',
        '  sessionctl validate manifests/ --format sarif=results.sarif --format human',
        '',
        'Exit codes: 0 valid (warnings allowed unless --strict), 1 findings, 2 usage or input error',
        '(a file that cannot be read, a path that matches nothing, a bad --env-file).',
        'Inside GitHub Actions, with no --format: the human report, annotations and a step summary.',
      ].join('\n'),
    )
    .action(async (paths: string[], options: ValidateOptions) => {
      const { io } = env;
      if (paths.filter((p) => p === '-').length > 1) throw new UsageError('standard input (-) can be named only once');
      // Loaded on use, so that other commands do not pay for yaml and the validator at start-up.
      const [{ validatePaths }, { readStreamBounded }] = await Promise.all([import('../../validate/run.js'), import('../../manifest/load.js')]);
      const selected = await narrowToChanged(paths, options.changedSince, { io, ...(options.envFile !== undefined ? { envFile: options.envFile } : {}) });
      const run = await validatePaths(selected, {
        cwd: io.cwd,
        env: io.env,
        ...(options.envFile !== undefined ? { envFile: options.envFile } : {}),
        readStdin: () => readStreamBounded(io.stdin, options.maxFileSize),
        ...(options.maxFileSize !== undefined ? { maxFileBytes: options.maxFileSize } : {}),
        ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
        ...(options.fastPath === false ? { fastPath: false } : {}),
        sensitive: declaredSensitive(options),
      });
      for (const secret of run.secrets) env.redactor.add(secret);
      // The report masks them already; the rest of the run's output (and GitHub's log) must too.
      env.masker.addAll(run.sensitive);
      const report = run.report;
      await emitReport(report, run.sources, options.format, env);
      env.setExitCode(exitCodeForDiagnostics(report.diagnostics, { strict: options.strict === true }));
    });
};
