import type { Code } from '../diagnostics/codes.js';

/**
 * The shapes shared by schema cleanup (cleanup.ts) and the messages of each finding
 * (ajv-findings.ts).
 */

/**
 * The fields of an ajv error this module reads. ajv runs with `verbose: true`, so every error
 * carries its `schema` and `parentSchema`; `data` is never read here, so secrets in the input
 * cannot reach a message through this path.
 */
export interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
  /** Set on errors raised inside `propertyNames`: the key that failed. */
  propertyName?: string;
  schema?: unknown;
  parentSchema?: unknown;
}

/** Where a finding points: the value at `pointer`, or its key. */
export interface Target {
  pointer: string;
  key: boolean;
  /** Only the start: for a whole mapping (a missing key), whose full range is many lines. */
  point?: boolean;
}

/** A finding before positions are resolved. */
export interface SchemaFinding {
  code: Code;
  message: string;
  hint?: string;
  /** The text the hint suggests for the target (a did-you-mean): the finding's fix. */
  replacement?: string;
  target: Target;
  related?: Target & { message: string };
}

/** What cleanup needs from the document: its data and how a scalar was written (for hints). */
export interface CleanupSource {
  data: unknown;
  scalar?(pointer: string): { source: string; style: 'plain' | 'quoted' | 'block' } | undefined;
}

export type SchemaObject = Record<string, unknown>;
