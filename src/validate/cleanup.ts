import type { Code } from '../diagnostics/codes.js';
import type { Diagnostic, RelatedLocation } from '../diagnostics/diagnostic.js';
import { excerpt } from '../util/excerpt.js';
import { didYouMean } from './did-you-mean.js';
import { displayPath, joinPointer, valueAt } from './pointer.js';

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
interface Target {
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
  target: Target;
  related?: Target & { message: string };
}

/** What cleanup needs from the document: its data and how a scalar was written (for hints). */
export interface CleanupSource {
  data: unknown;
  scalar?(pointer: string): { source: string; style: 'plain' | 'quoted' | 'block' } | undefined;
}

type SchemaObject = Record<string, unknown>;

function asSchema(value: unknown): SchemaObject | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as SchemaObject) : undefined;
}

/**
 * Errors that a semantic rule reports better: the schema keeps the constraint (editors using the
 * schema see it), and the schema says so with a `$comment` naming the rule, so the CLI shows the
 * rule's single finding instead of ajv's generic one.
 */
function ownedByRule(err: AjvError): boolean {
  if (err.keyword !== 'not' && err.keyword !== 'minProperties' && err.keyword !== 'maxProperties') return false;
  const comment = err.keyword === 'not' ? asSchema(err.schema)?.['$comment'] : asSchema(err.parentSchema)?.['$comment'];
  return typeof comment === 'string' && comment.includes('rule/') && (err.keyword === 'not' || comment.includes(err.keyword));
}

/** What a value is, with its article, as a message says it ("not a string"). */
function jsonType(value: unknown): string {
  if (value === null) return 'empty (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'number') {
    // YAML's .nan and .inf are numbers to JavaScript, but never valid ones: say what they are.
    if (!Number.isFinite(value)) return `\`${yamlSpecialNumber(value)}\` (${Number.isNaN(value) ? 'not a number' : 'infinity'})`;
    return Number.isInteger(value) ? 'an integer' : 'a number';
  }
  if (typeof value === 'boolean') return 'a boolean';
  return 'a string';
}

const typeWords: Record<string, string> = {
  string: 'a string',
  boolean: 'true or false',
  number: 'a number',
  integer: 'an integer',
  array: 'a list',
  object: 'a mapping',
  null: 'empty (null)',
};

function expectedTypes(params: Record<string, unknown>): string[] {
  const t = params['type'];
  if (Array.isArray(t)) return t.map(String);
  return typeof t === 'string' ? t.split(',') : [];
}

function expectedWords(types: string[]): string {
  // `boolean | null` is how the contract spells "a switch, or empty for the default".
  if (types.length === 2 && types.includes('boolean') && types.includes('null')) return 'true or false (or empty for the default)';
  return listWords(types.map((t) => typeWords[t] ?? t));
}

function listWords(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

/** How YAML writes a number that JSON cannot: `.nan`, `.inf`, `-.inf`. */
function yamlSpecialNumber(value: number): string {
  return Number.isNaN(value) ? '.nan' : value > 0 ? '.inf' : '-.inf';
}

function quoteValue(value: unknown): string {
  const text = typeof value === 'string' ? value : typeof value === 'number' && !Number.isFinite(value) ? yamlSpecialNumber(value) : (JSON.stringify(value) ?? String(value));
  return `\`${excerpt(text, 60)}\``;
}

function typeFinding(err: AjvError, src: CleanupSource): SchemaFinding {
  const pointer = err.instancePath;
  const value = valueAt(src.data, pointer);
  const types = expectedTypes(err.params);
  const where = displayPath(pointer, src.data);
  const finding: SchemaFinding = {
    code: 'schema/type',
    message: `\`${where}\` must be ${expectedWords(types)}, not ${jsonType(value)}`,
    target: { pointer, key: false },
  };
  const scalar = src.scalar?.(pointer);
  if (types.includes('string') && (typeof value === 'number' || typeof value === 'boolean') && scalar?.style === 'plain') {
    finding.hint = `Quote it: "${scalar.source}" (a plain ${scalar.source} is read as a ${typeof value}).`;
  } else if (types.includes('string') && value === null) {
    finding.hint = 'The value is empty; write the value after the colon, quoted if it contains special characters.';
  } else if (types.includes('boolean') && typeof value === 'string') {
    finding.hint = scalar?.style === 'quoted' ? 'Remove the quotes: write true or false.' : 'Write true or false.';
  } else if (types.includes('array') && types.includes('object') && typeof value === 'string') {
    finding.hint = `Write a list, such as [${value}].`;
  } else if (types.includes('number') || types.includes('integer')) {
    if (typeof value === 'string' && scalar?.style === 'quoted') finding.hint = 'Remove the quotes to write a number.';
    else if (typeof value === 'number') finding.hint = 'YAML reads .nan and .inf as special numbers that no JSON value can hold; write a finite number.';
  }
  return finding;
}

function limitMessage(err: AjvError, where: string): string {
  const limit = err.params['limit'];
  switch (err.keyword) {
    case 'minLength':
      return limit === 1 ? `\`${where}\` must not be empty` : `\`${where}\` must be at least ${String(limit)} characters long`;
    case 'maxLength':
      return `\`${where}\` must be at most ${String(limit)} characters long`;
    case 'minItems':
      return `\`${where}\` must have at least ${String(limit)} item${limit === 1 ? '' : 's'}`;
    case 'maxItems':
      return `\`${where}\` must have at most ${String(limit)} items`;
    case 'minProperties': {
      const props = Object.keys(asSchema(asSchema(err.parentSchema)?.['properties']) ?? {});
      return limit === 1 && props.length > 0
        ? `\`${where}\` is empty; set ${listWords(props.map((p) => `\`${p}\``))}`
        : `\`${where}\` must have at least ${String(limit)} keys`;
    }
    case 'maxProperties':
      return `\`${where}\` must have at most ${String(limit)} keys`;
    case 'minimum':
      return `\`${where}\` must be at least ${String(limit)}`;
    case 'maximum':
      return `\`${where}\` must be at most ${String(limit)}`;
    case 'exclusiveMinimum':
      return `\`${where}\` must be greater than ${String(limit)}`;
    case 'exclusiveMaximum':
      return `\`${where}\` must be less than ${String(limit)}`;
    default:
      return `\`${where}\` ${err.message ?? 'is out of bounds'}`;
  }
}

const limitKeywords = new Set(['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf']);

/** The schema's own description of a value, used as the hint for pattern and format errors. */
function describeHint(schema: unknown): string | undefined {
  const d = asSchema(schema)?.['description'];
  return typeof d === 'string' ? d : undefined;
}

function keyFinding(err: AjvError, src: CleanupSource): SchemaFinding | undefined {
  const key = err.propertyName ?? (err.params['propertyName'] as string | undefined);
  if (key === undefined) return undefined;
  const target = { pointer: joinPointer(err.instancePath, key), key: true };
  const where = displayPath(err.instancePath, src.data);
  if (err.keyword === 'not' || ['__proto__', 'constructor', 'prototype'].includes(key)) {
    return {
      code: 'schema/forbidden-key',
      message: `key \`${key}\` is not allowed${err.instancePath === '' ? '' : ` in \`${where}\``}`,
      hint: '`__proto__`, `constructor` and `prototype` are refused everywhere: they can change how JavaScript tools read the data.',
      target,
    };
  }
  const hint = describeHint(err.parentSchema);
  return {
    code: err.keyword === 'pattern' || err.keyword === 'propertyNames' ? 'schema/pattern' : 'schema/limit',
    message: `key \`${key}\`${err.instancePath === '' ? '' : ` in \`${where}\``} is not valid: ${err.keyword === 'pattern' ? `it must match ${String(err.params['pattern'])}` : err.keyword === 'propertyNames' ? 'it is not an allowed name' : (err.message ?? 'out of bounds')}`,
    ...(hint !== undefined ? { hint } : {}),
    target,
  };
}

/** One finding for one (non-variant) ajv error, or undefined to drop it. */
function findingFor(err: AjvError, src: CleanupSource): SchemaFinding | undefined {
  // Its inner errors (which come first and win the de-duplication) say why; this one only
  // matters when there are none.
  if (err.keyword === 'propertyNames') return keyFinding(err, src);
  if (err.propertyName !== undefined) return keyFinding(err, src);
  const pointer = err.instancePath;
  const where = displayPath(pointer, src.data);
  switch (err.keyword) {
    case 'additionalProperties': {
      const key = String(err.params['additionalProperty']);
      const allowed = Object.keys(asSchema(asSchema(err.parentSchema)?.['properties']) ?? {});
      if (['__proto__', 'constructor', 'prototype'].includes(key)) {
        return keyFinding({ ...err, keyword: 'not', propertyName: key }, src);
      }
      const suggestion = didYouMean(key, allowed);
      return {
        code: 'schema/unknown-key',
        message: `unknown key \`${key}\`${pointer === '' ? '' : ` in \`${where}\``}`,
        ...(suggestion !== undefined
          ? { hint: `Did you mean \`${suggestion}\`?` }
          : allowed.length > 0
            ? { hint: `Allowed keys: ${allowed.join(', ')}.` }
            : {}),
        target: { pointer: joinPointer(pointer, key), key: true },
      };
    }
    case 'required': {
      const missing = String(err.params['missingProperty']);
      return {
        code: 'schema/required',
        message: pointer === '' ? `missing required key \`${missing}\`` : `\`${where}\` is missing required key \`${missing}\``,
        ...(describeHint(asSchema(asSchema(err.parentSchema)?.['properties'])?.[missing]) !== undefined
          ? { hint: `\`${missing}\`: ${describeHint(asSchema(asSchema(err.parentSchema)?.['properties'])?.[missing])}` }
          : {}),
        // At the parent's key when it has one (`workbench:`), else at the start of the mapping.
        target: pointer !== '' && !Array.isArray(valueAt(src.data, pointer.replace(/\/[^/]*$/, ''))) ? { pointer, key: true } : { pointer, key: false, point: true },
      };
    }
    case 'type':
      return typeFinding(err, src);
    case 'enum':
    case 'const': {
      const allowed = (err.keyword === 'enum' ? (err.params['allowedValues'] as unknown[]) : [err.params['allowedValue']]).map((v) => String(v));
      const value = valueAt(src.data, pointer);
      const suggestion = typeof value === 'string' ? didYouMean(value, allowed) : undefined;
      return {
        code: 'schema/enum',
        message: `\`${where}\` must be one of ${allowed.join(', ')}; got ${quoteValue(value)}`,
        ...(suggestion !== undefined ? { hint: `Did you mean \`${suggestion}\`?` } : {}),
        target: { pointer, key: false },
      };
    }
    case 'pattern': {
      const hint = describeHint(err.parentSchema);
      return {
        code: 'schema/pattern',
        message: `\`${where}\` does not match the pattern ${String(err.params['pattern'])}`,
        ...(hint !== undefined ? { hint } : {}),
        target: { pointer, key: false },
      };
    }
    case 'format':
      return {
        code: 'schema/format',
        message: `\`${where}\` is not a valid ${String(err.params['format'])}`,
        ...(err.params['format'] === 'uri' ? { hint: 'Write an absolute URL, such as https://example.com/done.' } : {}),
        target: { pointer, key: false },
      };
    case 'uniqueItems': {
      const first = Number(err.params['j']);
      const second = Number(err.params['i']);
      const value = valueAt(src.data, joinPointer(pointer, second));
      return {
        code: 'schema/duplicate-item',
        message: `\`${where}\` lists ${quoteValue(value)} twice`,
        hint: 'Remove the repeated item.',
        target: { pointer: joinPointer(pointer, Math.max(first, second)), key: false },
        related: { pointer: joinPointer(pointer, Math.min(first, second)), key: false, message: 'first listed here' },
      };
    }
    case 'not':
    case 'oneOf':
    case 'anyOf':
      return {
        code: 'schema/variant',
        message: `\`${where}\` does not match any allowed shape`,
        ...(describeHint(err.parentSchema) !== undefined ? { hint: describeHint(err.parentSchema)! } : {}),
        target: { pointer, key: false },
      };
    default:
      if (limitKeywords.has(err.keyword)) {
        return { code: 'schema/limit', message: limitMessage(err, where), target: { pointer, key: false } };
      }
      return { code: 'schema/variant', message: `\`${where}\` ${err.message ?? 'is not valid'}`, target: { pointer, key: false } };
  }
}

/**
 * For `oneOf`/`anyOf` errors, keeps only the errors of the most useful branch and drops the rest
 * (spectral's lesson: "must match exactly one schema" plus every branch's complaints is noise).
 * The most useful branch is one where the value at least has the right type; among those, the
 * one with the fewest errors. When every branch fails on type, one `schema/variant` remains.
 */
function reduceVariants(errors: AjvError[]): AjvError[] {
  const dropped = new Set<AjvError>();
  for (const variant of errors) {
    if (variant.keyword !== 'oneOf' && variant.keyword !== 'anyOf') continue;
    const prefix = `${variant.schemaPath}/`;
    const branches = new Map<string, AjvError[]>();
    for (const err of errors) {
      if (err === variant || !err.schemaPath.startsWith(prefix) || !err.instancePath.startsWith(variant.instancePath)) continue;
      const branch = err.schemaPath.slice(prefix.length).split('/')[0]!;
      const list = branches.get(branch) ?? [];
      list.push(err);
      branches.set(branch, list);
    }
    if (branches.size === 0) continue;
    const typed = [...branches.values()].filter((list) => !list.some((e) => e.keyword === 'type' && e.instancePath === variant.instancePath));
    typed.sort((a, b) => a.length - b.length);
    const keep = typed[0];
    for (const list of branches.values()) if (list !== keep) for (const e of list) dropped.add(e);
    // With a useful branch its errors say more than "must match a schema"; without one, the
    // variant error itself stays as the single finding.
    if (keep !== undefined) dropped.add(variant);
  }
  return errors.filter((e) => !dropped.has(e));
}

/**
 * Errors raised inside a `propertyNames` subschema that ajv compiled as a separate function (a
 * `$ref`) do not carry `propertyName`; only the `propertyNames` error right after them does. Give
 * them the key, so each points at the key it is about.
 */
function attachPropertyNames(errors: readonly AjvError[]): AjvError[] {
  const out = errors.map((e) => ({ ...e }));
  for (let i = 0; i < out.length; i++) {
    const outer = out[i]!;
    if (outer.keyword !== 'propertyNames') continue;
    const key = outer.params['propertyName'];
    if (typeof key !== 'string') continue;
    for (let j = i - 1; j >= 0; j--) {
      const inner = out[j]!;
      if (inner.instancePath !== outer.instancePath || inner.propertyName !== undefined || inner.keyword === 'propertyNames') break;
      if (!inner.schemaPath.includes('propertyNames') && !inner.schemaPath.startsWith('#/definitions/')) break;
      inner.propertyName = key;
    }
  }
  return out;
}

function targetKey(t: Target): string {
  return `${t.key ? 'k' : 'v'}${t.pointer}`;
}

/**
 * Turns raw ajv errors into one finding per problem, at the key or value it concerns. Errors at
 * the same place are collapsed: a type error explains everything else at that value, and one
 * finding per key is enough.
 */
export function cleanErrors(errors: readonly AjvError[], src: CleanupSource): SchemaFinding[] {
  const relevant = reduceVariants(attachPropertyNames(errors).filter((e) => e.keyword !== 'if' && e.keyword !== 'then' && e.keyword !== 'else' && !ownedByRule(e)));
  const typeAt = new Set(relevant.filter((e) => e.keyword === 'type' && e.propertyName === undefined).map((e) => e.instancePath));
  const seen = new Map<string, SchemaFinding>();
  for (const err of relevant) {
    if (err.keyword !== 'type' && err.propertyName === undefined && typeAt.has(err.instancePath) && err.keyword !== 'required') continue;
    const finding = findingFor(err, src);
    if (finding === undefined) continue;
    // `required` may name several keys at one place: keep each.
    const id = finding.code === 'schema/required' ? `${targetKey(finding.target)}\0${finding.message}` : targetKey(finding.target);
    const previous = seen.get(id);
    // A forbidden key is the more useful message than "unknown key" for the same key.
    if (previous === undefined || (finding.code === 'schema/forbidden-key' && previous.code !== 'schema/forbidden-key')) seen.set(id, finding);
  }
  return [...seen.values()];
}

/** Resolves a finding's targets to a located diagnostic of one document. */
export function locateFinding(
  finding: SchemaFinding,
  doc: { file: string; locate(pointer: string, options?: { key?: boolean }): Diagnostic['range'] },
  severity: Diagnostic['severity'],
): Diagnostic {
  const d: Diagnostic = {
    code: finding.code,
    severity,
    message: finding.message,
    file: doc.file,
    pointer: finding.target.pointer,
    range: doc.locate(finding.target.pointer, { key: finding.target.key })!,
  };
  if (finding.target.point === true && d.range !== undefined) d.range = { start: d.range.start, end: d.range.start };
  if (finding.hint !== undefined) d.hint = finding.hint;
  if (finding.related !== undefined) {
    const related: RelatedLocation = { message: finding.related.message, file: doc.file };
    const range = doc.locate(finding.related.pointer, { key: finding.related.key });
    if (range !== undefined) related.range = range;
    d.related = [related];
  }
  return d;
}
