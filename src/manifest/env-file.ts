import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { readFileBounded } from './read-bounded.js';
import { SourceText } from './source.js';

export interface EnvFileResult {
  /** The variables for interpolation: the file's, overridden by `base` (see `loadEnvFile`). */
  env: Record<string, string | undefined>;
  /** `input/env-file` errors; when there are any, `env` is `base` alone. */
  diagnostics: Diagnostic[];
  /** The variables the file defines, as parsed. */
  fileVariables: Record<string, string>;
}

/** An env file is configuration, not data: anything this large is a mistake. */
const MAX_ENV_FILE_BYTES = 1024 * 1024;
const VALID_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * Reads a dotenv file (`--env-file`) with Node's own parser (`util.parseEnv`, the one behind
 * `node --env-file`), and merges it under `base`: a variable already set in the environment wins
 * over the file, exactly as `node --env-file` and docker compose do, so that CI can override a
 * committed `.env` without editing it.
 *
 * `util.parseEnv` silently glues a line without `=` to the next line's key; such keys are
 * reported here, at their line, instead of becoming variables nobody can reference.
 */
export async function loadEnvFile(path: string, options: { cwd: string; base?: Readonly<Record<string, string | undefined>> | undefined }): Promise<EnvFileResult> {
  const file = resolve(options.cwd, path);
  const base = options.base ?? {};
  const fail = (message: string, range?: Diagnostic['range']): EnvFileResult => {
    const d: Diagnostic = { code: 'input/env-file', severity: 'error', message, file };
    if (range !== undefined) d.range = range;
    return { env: { ...base }, diagnostics: [d], fileVariables: {} };
  };
  // Bounded: `--env-file /dev/zero` (or a huge file) must end in a finding, not eat the memory.
  const read = readFileBounded(file, MAX_ENV_FILE_BYTES);
  const start = { start: { line: 1, col: 1 }, end: { line: 1, col: 1 } };
  if ('error' in read) {
    const code = (read.error as { code?: string } | null)?.code;
    return fail(code === 'ENOENT' ? `the env file ${path} does not exist` : code === 'EISDIR' ? `the env file ${path} is a folder` : `cannot read the env file ${path}: ${code ?? String(read.error)}`);
  }
  if ('tooLarge' in read) return fail(`the env file is larger than 1 MiB`, start);
  const bytes = read.bytes;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return fail('the env file is not valid UTF-8', start);
  }
  if (text.includes('\0')) return fail('the env file contains a NUL byte', start);

  let parsed: Record<string, string | undefined>;
  try {
    parsed = parseEnv(text);
  } catch (err) {
    return fail(`the env file could not be parsed: ${err instanceof Error ? err.message : String(err)}`, start);
  }

  const source = new SourceText(text);
  const diagnostics: Diagnostic[] = [];
  const fileVariables: Record<string, string> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (value === undefined) continue;
    if (!VALID_NAME.test(key)) {
      const firstLine = key.split('\n', 1)[0] ?? key;
      const at = lineStartOffset(text, firstLine);
      diagnostics.push({
        code: 'input/env-file',
        severity: 'error',
        message: `\`${firstLine.trim().slice(0, 40)}\` is not a NAME=value line`,
        file,
        range: source.range(at, at + firstLine.length),
        hint: 'every line is NAME=value, a # comment or blank',
      });
      continue;
    }
    fileVariables[key] = value;
  }
  if (diagnostics.length > 0) return { env: { ...base }, diagnostics, fileVariables: {} };
  const env: Record<string, string | undefined> = { ...fileVariables };
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  return { env, diagnostics, fileVariables };
}

function lineStartOffset(text: string, line: string): number {
  const trimmed = line.trimStart();
  for (let i = 0; i <= text.length; ) {
    const end = text.indexOf('\n', i);
    const current = text.slice(i, end === -1 ? text.length : end);
    const pos = current.indexOf(trimmed);
    if (trimmed !== '' && pos !== -1 && current.slice(0, pos).trim() === '' ) return i + pos;
    if (end === -1) break;
    i = end + 1;
  }
  return 0;
}
