import { excerpt } from '../diagnostics/excerpt.js';
import { completion, didYouMean } from './did-you-mean.js';
import { dottedPath, valueAt } from './pointer.js';
import { joinPointer } from '../util/json-pointer.js';
import type { AjvError, CleanupSource, SchemaFinding } from './cleanup-types.js';
import { asPlainObject } from '../util/plain-object.js';

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
  const where = dottedPath(pointer, src.data);
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
      const props = Object.keys(asPlainObject(asPlainObject(err.parentSchema)?.['properties']) ?? {});
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
  const d = asPlainObject(schema)?.['description'];
  return typeof d === 'string' ? d : undefined;
}

function keyFinding(err: AjvError, src: CleanupSource): SchemaFinding | undefined {
  const key = err.propertyName ?? (err.params['propertyName'] as string | undefined);
  if (key === undefined) return undefined;
  const target = { pointer: joinPointer(err.instancePath, key), key: true };
  const where = dottedPath(err.instancePath, src.data);
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
export function findingFor(err: AjvError, src: CleanupSource): SchemaFinding | undefined {
  // Its inner errors (which come first and win the de-duplication) say why; this one only
  // matters when there are none.
  if (err.keyword === 'propertyNames') return keyFinding(err, src);
  if (err.propertyName !== undefined) return keyFinding(err, src);
  const pointer = err.instancePath;
  const where = dottedPath(pointer, src.data);
  switch (err.keyword) {
    case 'additionalProperties':
      return unknownKeyFinding(err, src);
    case 'required':
      return requiredFinding(err, src);
    case 'type':
      return typeFinding(err, src);
    case 'enum':
    case 'const':
      return enumFinding(err, src);
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
    case 'uniqueItems':
      return duplicateItemFinding(err, src);
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

/** `additionalProperties`: the unknown key itself, with a did-you-mean or the allowed keys. */
function unknownKeyFinding(err: AjvError, src: CleanupSource): SchemaFinding | undefined {
  const pointer = err.instancePath;
  const where = dottedPath(pointer, src.data);
  const key = String(err.params['additionalProperty']);
  const allowed = Object.keys(asPlainObject(asPlainObject(err.parentSchema)?.['properties']) ?? {});
  if (['__proto__', 'constructor', 'prototype'].includes(key)) {
    return keyFinding({ ...err, keyword: 'not', propertyName: key }, src);
  }
  const suggestion = didYouMean(key, allowed) ?? completion(key, allowed);
  return {
    code: 'schema/unknown-key',
    message: `unknown key \`${key}\`${pointer === '' ? '' : ` in \`${where}\``}`,
    ...(suggestion !== undefined
      ? { hint: `Did you mean \`${suggestion}\`?`, replacement: suggestion }
      : allowed.length > 0
        ? { hint: `Allowed keys: ${allowed.join(', ')}.` }
        : {}),
    target: { pointer: joinPointer(pointer, key), key: true },
  };
}

/** `required`: at the parent's key when it has one (`workbench:`), else at the start of the mapping. */
function requiredFinding(err: AjvError, src: CleanupSource): SchemaFinding {
  const pointer = err.instancePath;
  const where = dottedPath(pointer, src.data);
  const missing = String(err.params['missingProperty']);
  return {
    code: 'schema/required',
    message: pointer === '' ? `missing required key \`${missing}\`` : `\`${where}\` is missing required key \`${missing}\``,
    ...(describeHint(asPlainObject(asPlainObject(err.parentSchema)?.['properties'])?.[missing]) !== undefined
      ? { hint: `\`${missing}\`: ${describeHint(asPlainObject(asPlainObject(err.parentSchema)?.['properties'])?.[missing])}` }
      : {}),
    // At the parent's key when it has one (`workbench:`), else at the start of the mapping.
    target: pointer !== '' && !Array.isArray(valueAt(src.data, pointer.replace(/\/[^/]*$/, ''))) ? { pointer, key: true } : { pointer, key: false, point: true },
  };
}

/** `enum` and `const`: the allowed values, and a did-you-mean for a misspelt string. */
function enumFinding(err: AjvError, src: CleanupSource): SchemaFinding {
  const pointer = err.instancePath;
  const where = dottedPath(pointer, src.data);
  const allowed = (err.keyword === 'enum' ? (err.params['allowedValues'] as unknown[]) : [err.params['allowedValue']]).map((v) => String(v));
  const value = valueAt(src.data, pointer);
  const suggestion = typeof value === 'string' ? didYouMean(value, allowed) : undefined;
  return {
    code: 'schema/enum',
    message: `\`${where}\` must be one of ${allowed.join(', ')}; got ${quoteValue(value)}`,
    ...(suggestion !== undefined ? { hint: `Did you mean \`${suggestion}\`?`, replacement: suggestion } : {}),
    target: { pointer, key: false },
  };
}

/** `uniqueItems`: at the repeated item, with the first one as related. */
function duplicateItemFinding(err: AjvError, src: CleanupSource): SchemaFinding {
  const pointer = err.instancePath;
  const where = dottedPath(pointer, src.data);
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
