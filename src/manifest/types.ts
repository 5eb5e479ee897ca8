import type { Diagnostic, Range } from '../diagnostics/diagnostic.js';
import type { SensitiveScalar } from './sensitive.js';

/** How a scalar was written in the source, for lint rules that care (YAML 1.1 ambiguities). */
export interface ScalarSource {
  /** The scalar's text exactly as written, quotes included. */
  source: string;
  style: 'plain' | 'quoted' | 'block';
  /** True inside a flow collection (`[...]`, `{...}`), where entries are parted by commas, not lines. */
  inFlow?: boolean;
}

/**
 * One YAML document of a manifest file, parsed, interpolated and ready to validate. Positions are
 * resolved through `locate`, never by the consumer.
 */
export interface ManifestDocument {
  /** The path as the loader received it (absolute), or `<stdin>`. */
  file: string;
  /** 0-based position of the document in its file. */
  index: number;
  /**
   * The manifest's identity: `name:` when declared (after interpolation), else the file stem,
   * with `#N` (N = the 1-based document number) for the second and later documents of a file.
   */
  name: string;
  /** True when the document declares `name:` itself. */
  nameDeclared: boolean;
  /** The document as plain JSON-compatible data, after `${VAR}` interpolation. */
  data: unknown;
  /**
   * The source range of the value at a JSON pointer (`/tools/github/disable/0`), or of its key
   * with `{ key: true }`. A pointer that does not exist resolves to its nearest existing ancestor;
   * `''` is the whole document.
   */
  locate(pointer: string, options?: { key?: boolean }): Range;
  /** How the scalar at a pointer was written, or undefined when it is not a scalar. */
  scalar(pointer: string): ScalarSource | undefined;
  /**
   * The sensitive values of `data` (expanded from a secret: see `sensitive.ts`), by the JSON
   * pointer of each place that holds one. Absent when there are none.
   */
  sensitive?: ReadonlyMap<string, SensitiveScalar>;
}

export interface LoadOptions {
  /** Relative paths and globs are resolved against this folder. */
  cwd: string;
  /**
   * Variables for `${VAR}` interpolation (the CLI passes the process environment plus
   * `--env-file`). Default `{}`: nothing is ever read from `process.env` by the library.
   */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Reads standard input when a path is `-`. */
  readStdin?: () => Promise<Buffer>;
  /** Larger files are refused before parsing. Default 1 MiB. */
  maxFileBytes?: number;
  /** Deeper nesting of collections is refused before composing. Default 64. */
  maxDepth?: number;
  /**
   * Variables whose values are sensitive whatever their names (`--sensitive VAR`, the project
   * config's `sensitive:` list). Values from variables named like secrets (`*_TOKEN`, ...) or with
   * a known secret format are sensitive anyway. Sensitive values are masked in every output.
   */
  sensitive?: readonly string[] | undefined;
  /**
   * `placeholder`: a `${VAR}` that is not set is an opaque placeholder (`env/placeholder`, info)
   * instead of an error, and the checks of its value are skipped (linting a pull request that gets
   * none of the pipeline's secrets). Default `error` (`env/unset-variable`).
   */
  unsetVariables?: UnsetVariables;
  /**
   * Texts read instead of the files on disk, by absolute path: an editor's unsaved buffers
   * (`sessionctl lsp`). A file listed here is checked exactly as if the text were saved.
   */
  texts?: ReadonlyMap<string, string> | undefined;
}

/** What a `${VAR}` that is not set is: an error, or a placeholder for a value the run does not have. */
export type UnsetVariables = 'error' | 'placeholder';

export interface LoadResult {
  documents: ManifestDocument[];
  /** Input, YAML and interpolation findings, each located. */
  diagnostics: Diagnostic[];
  /** Every file the run looked at, in the order loaded. */
  files: string[];
  /** Source text per file, for code frames. */
  sources: Map<string, string>;
}
