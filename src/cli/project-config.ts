import { Option, type Command } from 'commander';
import { tally, type Diagnostic } from '../diagnostics/diagnostic.js';
import { InputError, UsageError } from '../diagnostics/errors.js';
import { displayPath } from '../report/paths.js';
import type { ProjectConfig } from '../project/types.js';
import { emitReport } from './output.js';
import type { CommandEnv } from './command.js';
import { ExitCode } from './exit-codes.js';
import { registerDeclared } from './sensitive-options.js';

/** The flags every command that reads manifests takes for the project configuration. */
export interface ProjectFlags {
  /** `--config FILE`, or `false` with `--no-config`. */
  config?: string | false;
  format?: string[];
  /** `--no-fast-path` (validate): the file is read with positions, as files with findings are. */
  fastPath?: boolean;
}

/** Adds `--config FILE` and `--no-config` to a command. */
export function addProjectOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--config <file>', 'the project configuration (default: sessionctl.yaml in this folder or the nearest above it, up to the repository root)'))
    .addOption(new Option('--no-config', 'read no project configuration'));
}

/**
 * Loads the project configuration for a command run (`loadProjectConfig`): its secrets go to the
 * redactor and the values of its `sensitive` variables to the masker, and when the file has errors they are
 * reported in the command's formats and the run ends with exit code 2 (`undefined` comes back;
 * the caller returns). Loaded on use, so that commands without manifests do not pay for it.
 */
export async function loadProjectForRun(command: string, flags: ProjectFlags, env: CommandEnv): Promise<LoadedProject | undefined> {
  const { io } = env;
  const { loadProjectConfig } = await import('../project/load.js');
  const loaded = await loadProjectConfig({ cwd: io.cwd, env: io.env, ...(flags.config !== undefined ? { file: flags.config } : {}), ...(flags.fastPath === false ? { fastPath: false } : {}) });
  for (const secret of loaded.secrets) env.redactor.add(secret);
  // Its `sensitive` variables' values (the environment's; a run adds its env files') are masked from here on.
  registerDeclared({ sensitive: loaded.config?.sensitive ?? [] }, env);
  if (loaded.config !== undefined) return { config: loaded.config, warnings: loaded.diagnostics, sources: loaded.sources };
  const diagnostics: Diagnostic[] = loaded.diagnostics;
  const files = loaded.file === undefined ? [] : [loaded.file];
  await emitReport({ command, files, diagnostics, summary: { ...tally(diagnostics), files: files.length, manifests: 0 } }, loaded.sources, flags.format, env);
  env.setExitCode(ExitCode.usage);
  return undefined;
}

/** A usable configuration, and the file's warnings (a `%YAML` directive, say) to report with the run. */
export interface LoadedProject {
  config: ProjectConfig;
  warnings: Diagnostic[];
  /** The file's text (secrets masked), for the code frames of its warnings. */
  sources: Map<string, string>;
}

/** The manifest paths of a run: the arguments, else the configuration's `paths`. */
export function runPaths(args: readonly string[], config: ProjectConfig): string[] {
  if (args.length > 0) return [...args];
  if (config.paths !== undefined) return config.paths;
  throw new UsageError(
    'no manifests to check: give paths, or set `paths:` in sessionctl.yaml',
    config.file === undefined ? 'for example: sessionctl validate sessions/ (or `sessionctl init --config` to write a project file)' : `add paths: [sessions/] to ${config.file}`,
  );
}

/**
 * Checks the catalogue a run will use (`--catalog`, else the file's `catalog`) before any work:
 * an unreadable or malformed catalogue is an input error (exit code 2), as it is for the emulator.
 * Loaded through the run's own cache (`catalogFor`), so the main thread reads the file once.
 */
export async function checkCatalog(path: string | undefined, cwd: string): Promise<void> {
  if (path === undefined) return;
  const shown = displayPath(path, cwd);
  const { catalogFor } = await import('../validate/project-checks.js');
  try {
    await catalogFor(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new InputError(code !== undefined ? `cannot read the catalogue: ${code === 'ENOENT' ? 'no such file' : code}` : (err as Error).message, shown, { cause: err });
  }
}
