import { InvalidArgumentError, Option } from 'commander';
import { UsageError } from '../diagnostics/errors.js';
import { escapeData } from '../report/github.js';
import { declaredValues } from '../manifest/sensitive.js';
import { ValueMasker } from '../util/sensitive.js';
import type { Redactor } from './redact.js';
import type { CommandEnv } from './command.js';
import { API_KEY_ENV } from '../client/api-key.js';

/** The options of the sensitive values, as commander's `opts()` returns them. */
export interface SensitiveFlags {
  /** `--sensitive VAR`, repeatable. */
  sensitive?: string[];
  /** `--show-sensitive` (plan and diff only). */
  showSensitive?: boolean;
}

/**
 * `--sensitive VAR` (repeatable): a variable whose value is masked in every output, whatever its
 * name. Variables named like secrets (`*_TOKEN`, `*_SECRET`, `*_KEY`, `*PASSWORD*`, ...) and values
 * with a known secret format are sensitive without it.
 */
export function sensitiveOption(): Option {
  return new Option('--sensitive <VAR>', 'mask the value of this ${VAR} in every output, report, plan file and the state, whatever its name (repeatable)').argParser(
    (value: string, previous: string[] | undefined): string[] => {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) throw new InvalidArgumentError('expected a variable name such as HOOK_TOKEN (letters, digits and _)');
      return [...(previous ?? []), value];
    },
  );
}

export function showSensitiveOption(): Option {
  return new Option('--show-sensitive', 'show sensitive values as they are, to debug on your own machine (refused when CI is set)');
}

/**
 * The variables declared sensitive for a run. The project config's `sensitive:` list, when there
 * is one, joins the `--sensitive` flags here.
 */
export function declaredSensitive(flags: SensitiveFlags, fromConfig: readonly string[] = []): string[] {
  return [...new Set([...fromConfig, ...(flags.sensitive ?? [])])];
}

/** The values of the variables declared sensitive, into the run's masker (the commands that load no manifest: get, history). */
export function registerDeclared(flags: SensitiveFlags, env: Pick<CommandEnv, 'io' | 'masker'>): void {
  env.masker.addAll(declaredValues(env.io.env, declaredSensitive(flags)));
}

/**
 * Whether `--show-sensitive` reveals values: never when `CI` says the output is a shared log.
 * When it does, the redactor lets the user's sensitive values pass too (never the API key).
 */
export function revealSensitive(flags: SensitiveFlags, env: Pick<CommandEnv, 'io' | 'redactor'>): boolean {
  if (flags.showSensitive !== true) return false;
  const ci = env.io.env['CI'];
  if (ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false') {
    throw new UsageError(
      '--show-sensitive is refused when CI is set: CI logs, report files, plan files and step summaries are kept and read by others, and a secret shown there is leaked',
      'run it on your own machine; in CI the outputs name each sensitive value by its variable instead',
    );
  }
  env.redactor.showSensitive = true;
  return true;
}

/**
 * The run's masker: every sensitive value is masked in what the CLI writes, given to the redactor
 * as a last backstop, and, inside GitHub Actions, registered with `::add-mask::` the moment it is
 * known (before any output can carry it) so the runner masks it in raw logs too. The registration
 * goes to stderr: the runner reads workflow commands there as well, and stdout stays the report
 * (`--format json | jq` works, and a report file never holds a value).
 */
export function runMasker(raw: { write(chunk: string): void }, env: Readonly<Record<string, string | undefined>>, redactor: Redactor): ValueMasker {
  const actions = env['GITHUB_ACTIONS'] === 'true';
  return new ValueMasker({
    onAdd: (value, label) => {
      if (label === API_KEY_ENV) redactor.add(value);
      else redactor.addSensitive(value);
      if (!actions) return;
      // One mask per line: the runner matches masks within a line.
      for (const line of value.split(/\r\n?|\n/)) if (line.trim() !== '') raw.write(`::add-mask::${escapeData(line)}\n`);
    },
  });
}
