import { parse } from 'yaml';
import type { ScalarSource } from './types.js';
import { withoutYamlDebug } from './yaml-quiet.js';

/**
 * Words and shapes a YAML 1.1 parser may read as something other than a string: booleans
 * (`yes`, `on`, `n`, ...), null (`~`), numbers (`0755`, `1_000`, `1:20`, `.5`) and timestamps.
 * A cheap filter, so that yaml is asked only about scalars that could differ.
 */
const CANDIDATE = /^(?:[yn~]|yes|no|on|off|true|false|null|[-+.0-9])/i;

/**
 * How a YAML 1.1 parser (PyYAML, Go yaml.v2, js-yaml 3, Ruby's Psych) reads a plain scalar when
 * that differs from sessionctl's YAML 1.2 reading: e.g. `yes` -> "the boolean true", `0755` ->
 * "the number 493", `1:20` -> "the number 80", `2001-12-14` -> "the timestamp 2001-12-14T00:00:00.000Z".
 * Undefined for quoted and block scalars, and for plain scalars both versions read alike.
 *
 * The loader reports nothing itself: only the validator knows where the schema expects a string,
 * and calls this for the scalars there (`yaml/yaml11-scalar`).
 */
export function yaml11Reading(scalar: ScalarSource): string | undefined {
  if (scalar.style !== 'plain') return undefined;
  const text = scalar.source.trim();
  if (text.length === 0 || text.length > 64 || text.includes('\n') || !CANDIDATE.test(text)) return undefined;
  let v12: unknown;
  let v11: unknown;
  try {
    [v12, v11] = withoutYamlDebug(() => [parse(text, { schema: 'core', version: '1.2', logLevel: 'silent' }), parse(text, { version: '1.1', schema: 'yaml-1.1', logLevel: 'silent' })]);
  } catch {
    return undefined;
  }
  // A 1.1 string is what a string-typed field wants anyway (`0o17` is 15 in 1.2, "0o17" in 1.1).
  if (typeof v11 === 'string' || sameReading(v12, v11)) return undefined;
  return describe(v11);
}

function sameReading(a: unknown, b: unknown): boolean {
  if (a instanceof Date || b instanceof Date) return false;
  if (typeof a === 'number' && typeof b === 'number') return Object.is(a, b) || (Number.isNaN(a) && Number.isNaN(b));
  return typeof a === typeof b && a === b;
}

function describe(v: unknown): string | undefined {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return `the boolean ${v}`;
  if (typeof v === 'number') return `the number ${v}`;
  if (typeof v === 'bigint') return `the number ${v}`;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'a timestamp' : `the timestamp ${v.toISOString()}`;
  return undefined;
}
