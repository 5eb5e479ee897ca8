/**
 * Request validation from the contract. The validators are ajv standalone code generated ahead of
 * time from the contract (`contract/validators.generated.ts`, see `contract/generate.ts`), imported on
 * the first API request: nothing is compiled at run time, and the health check answers before they
 * are even loaded (start-up budget: runtime-facts §2.3, §4).
 *
 * Errors are rendered the way the service renders them (api facts §6.1, "Error in payload.toolkits:
 * Invalid input"): one line per field, naming the field.
 */
import type { ErrorObject } from 'ajv';
import { validatorKey, type ValidatorPart } from './contract/validator-key.js';
import { splitPointer } from '../util/json-pointer.js';

interface Validator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

let loaded: Promise<Readonly<Record<string, Validator>>> | undefined;

/**
 * Validates one part of a request against the contract; `undefined` when valid (or when the
 * operation declares no such part), else one message per offending field.
 */
export async function validateRequest(operationId: string, part: ValidatorPart, data: unknown, root: string): Promise<string[] | undefined> {
  loaded ??= import('./contract/validators.generated.js').then((m) => m.validators as Record<string, Validator>);
  const fn = (await loaded)[validatorKey(operationId, part)];
  if (fn === undefined || fn(data)) return undefined;
  return formatErrors(fn.errors ?? [], root);
}

/** `/queries/0/use_case` -> `payload.queries[0].use_case`. */
export function fieldPath(root: string, instancePath: string): string {
  let out = root;
  for (const part of splitPointer(instancePath)) {
    out += /^\d+$/.test(part) ? `[${part}]` : `.${part}`;
  }
  return out;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Resolves failed `anyOf`s: when exactly one alternative failed only below the anyOf's own value (it
 * had the right shape, e.g. the tag array with a bad tag), its errors are the useful ones and stay;
 * otherwise the anyOf is one "Invalid input" at its own path (as the service says for
 * `toolkits: {enabled: [...]}`) and the alternatives' errors go.
 */
function collapseAlternatives(errors: readonly ErrorObject[]): ErrorObject[] {
  let result = [...errors];
  const alternatives = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .sort((a, b) => a.schemaPath.length - b.schemaPath.length);
  for (const alt of alternatives) {
    if (!result.includes(alt)) continue;
    const inside = result.filter((e) => e.schemaPath.startsWith(`${alt.schemaPath}/`));
    const branches = new Map<string, ErrorObject[]>();
    for (const e of inside) {
      const branch = e.schemaPath.slice(alt.schemaPath.length + 1).split('/')[0] ?? '';
      branches.set(branch, [...(branches.get(branch) ?? []), e]);
    }
    const deepOnly = [...branches.values()].filter((list) => list.every((e) => e.instancePath.startsWith(`${alt.instancePath}/`)));
    const keep = deepOnly.length === 1 ? new Set(deepOnly[0]) : undefined;
    result = result.filter((e) => (keep === undefined ? !inside.includes(e) : e !== alt && (!inside.includes(e) || keep.has(e))));
  }
  return result;
}

/** ajv errors -> the service's lines ("Error in payload.toolkits: Invalid input"), one per problem. */
export function formatErrors(errors: readonly ErrorObject[], root: string): string[] {
  const kept = collapseAlternatives(errors);
  const lines = new Set<string>();
  for (const e of kept) {
    const at = fieldPath(root, e.instancePath);
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        lines.add(`Error in ${at}.${String(p['missingProperty'])}: Required`);
        break;
      case 'additionalProperties':
        lines.add(`Error in ${at}: Unrecognized key: '${String(p['additionalProperty'])}'`);
        break;
      case 'anyOf':
      case 'oneOf':
        lines.add(`Error in ${at}: Invalid input`);
        break;
      case 'type':
        lines.add(`Error in ${at}: Expected ${String(p['type'])}, received ${typeOf(e.data)}`);
        break;
      case 'enum':
        lines.add(
          `Error in ${at}: Invalid enum value. Expected ${(p['allowedValues'] as unknown[]).map((v) => `'${String(v)}'`).join(' | ')}, received '${String(e.data)}'`,
        );
        break;
      case 'format':
        lines.add(`Error in ${at}: Invalid ${String(p['format'])}`);
        break;
      default:
        lines.add(`Error in ${at}: ${e.message ?? 'Invalid input'}`);
    }
  }
  return [...lines];
}
