import { resolve } from 'node:path';
import { Option } from 'commander';
import { integerOption } from '../integer-option.js';
import { UsageError } from '../../diagnostics/errors.js';
import { changedSinceOption, narrowToChanged } from '../changed-since.js';
import { emitReport, formatOption } from '../output.js';
import type { RegisterCommand } from '../command.js';
import { exitCodeForDiagnostics } from '../exit-codes.js';
import { addProjectOptions, checkCatalog, loadProjectForRun, runPaths, type ProjectFlags } from '../project-config.js';
import { envFilesOf } from '../../project/run-options.js';
import { declaredSensitive, sensitiveOption } from '../sensitive-options.js';

interface ValidateOptions extends ProjectFlags {
  strict?: boolean;
  envFile?: string;
  maxFileSize?: number;
  jobs?: number;
  changedSince?: string;
  fastPath?: boolean;
  catalog?: string;
  sensitive?: string[];
  unsetVariables?: 'error' | 'placeholder';
}

const parseJobs = integerOption(1, 64, 'a whole number of threads from 1 to 64');

const parseBytes = integerOption(1, Number.MAX_SAFE_INTEGER, 'a positive whole number of bytes, such as 1048576');

/** `validate --help`'s examples and notes. */
const VALIDATE_HELP = [
  '',
  'Examples:',
  '  sessionctl validate sessions/                       # every *.yaml / *.yml below sessions/',
  "  sessionctl validate 'teams/**/session.yaml'         # a glob, matched by sessionctl itself",
  '  cat support.yaml | sessionctl validate -            # standard input',
  '  sessionctl validate sessions/ --env-file .env.ci    # ${VAR} values from a file',
  '  sessionctl validate sessions/ --unset-variables placeholder   # a pull request without the secrets',
  '  sessionctl validate sessions/ --format sarif=results.sarif --format human',
  '  sessionctl validate                                 # the paths of sessionctl.yaml',
  '',
  'sessionctl.yaml (found here or above, or --config FILE) sets default paths, formats and env files,',
  'rule severities per path, ignored files and policies; `sessionctl init --config` writes one.',
  'A finding is silenced by `# sessionctl-ignore CODE: reason` on its line or the line before.',
  '',
  'Exit codes: 0 valid (warnings allowed unless --strict), 1 findings, 2 usage or input error',
  '(a file that cannot be read, a path that matches nothing, a bad --env-file or sessionctl.yaml).',
  'Inside GitHub Actions, with no --format: the human report, annotations and a step summary.',
].join('\n');

/** Pull requests from forks get no secrets: their unset `${VAR}`s can be placeholders. */
function unsetVariablesOption(): Option {
  const help = 'a ${VAR} that is not set: an error, or a placeholder whose value goes unchecked while every other check runs (pull requests from forks get no secrets)';
  // No default here: absent, the project's `unset_variables` decides, else `error`.
  return new Option('--unset-variables <mode>', `${help} (default: unset_variables of sessionctl.yaml, else error)`).choices(['error', 'placeholder']);
}

/**
 * `sessionctl validate [paths..]`: parse, schema and rules, every finding at file:line:col.
 * No network. Paths are required unless the project configuration names them (explicit beats a
 * `.` that would lint every YAML file of a repo, CI workflows included); `-` reads standard input.
 */
export const registerValidate: RegisterCommand = (program, env) => {
  const cmd = program
    .command('validate')
    .description('Check session manifests: YAML, schema, semantic rules, the catalogue and the project\'s policies, each finding at file:line:col. No network.')
    .argument('[paths...]', 'manifest files, folders (searched for *.yaml and *.yml), globs in quotes, or - for standard input (default: `paths` of sessionctl.yaml)')
    .addOption(formatOption())
    .addOption(changedSinceOption())
    .option('--strict', 'warnings fail the run too (exit code 1)')
    .option('--env-file <file>', 'read ${VAR} values from a dotenv file; variables already set in the environment win')
    .addOption(sensitiveOption())
    .addOption(new Option('--max-file-size <bytes>', 'refuse larger files before parsing them (default: 1048576, 1 MiB)').argParser(parseBytes))
    .addOption(
      new Option('--jobs <n>', 'threads for big runs, the main one included (default: every core, at most 4, from 5,000 files on); results never depend on it').argParser(parseJobs),
    )
    .addOption(unsetVariablesOption())
    .option('--no-fast-path', 'read every file with positions, as files with findings are; slower on big runs, same results')
    .addOption(new Option('--catalog <file>', 'check toolkit and tool slugs against this catalogue (JSON, as `emulator --catalog` takes) instead of the bundled one'));
  addProjectOptions(cmd)
    .addHelpText('after', VALIDATE_HELP)
    .action(async (args: string[], options: ValidateOptions) => {
      const { io } = env;
      if (args.filter((p) => p === '-').length > 1) throw new UsageError('standard input (-) can be named only once');
      const project = await loadProjectForRun('validate', options, env);
      if (project === undefined) return;
      const { config } = project;
      const paths = runPaths(args, config);
      const formats = options.format ?? config.formats;
      const catalog = options.catalog !== undefined ? resolve(io.cwd, options.catalog) : config.catalog;
      await checkCatalog(catalog, io.cwd);
      // Loaded on use, so that other commands do not pay for yaml and the validator at start-up.
      const [{ runValidate }, { readStreamBounded }] = await Promise.all([import('../../runner/run-validate.js'), import('../../manifest/load.js')]);
      const envFiles = envFilesOf(options.envFile, config, io.cwd);
      const selected = await narrowToChanged(paths, options.changedSince, { io, ...(envFiles !== undefined ? { envFiles } : {}) });
      const run = await runValidate(selected, {
        cwd: io.cwd,
        env: io.env,
        project,
        ...(options.envFile !== undefined ? { envFile: options.envFile } : {}),
        ...(catalog !== undefined ? { catalog } : {}),
        readStdin: () => readStreamBounded(io.stdin, options.maxFileSize),
        ...(options.maxFileSize !== undefined ? { maxFileBytes: options.maxFileSize } : {}),
        ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
        ...(options.fastPath === false ? { fastPath: false } : {}),
        sensitive: declaredSensitive(options),
        ...(options.unsetVariables !== undefined ? { unsetVariables: options.unsetVariables } : {}),
      });
      for (const secret of run.secrets) env.redactor.add(secret);
      // The report masks them already; the rest of the run's output (and GitHub's log) must too.
      env.masker.addAll(run.sensitive);
      const report = run.report;
      await emitReport(report, new Map([...project.sources, ...run.sources]), formats, env);
      env.setExitCode(exitCodeForDiagnostics(report.diagnostics, { strict: options.strict === true }));
    });
};
