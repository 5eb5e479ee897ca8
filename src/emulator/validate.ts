/**
 * Request validation from the contract. ajv is imported and each schema compiled lazily, on the first
 * request that needs it, so the emulator answers its health check long before ajv is loaded (start-up
 * budget: runtime-facts §4, a first compile costs ~100 ms).
 *
 * ajv runs with `allErrors` and no coercion, defaults or removal (runtime-facts §2.1): what the client
 * sent is what gets judged. Errors are rendered the way the service renders them (api facts §6.1,
 * "Error in payload.toolkits: Invalid input"): one line per field, naming the field.
 */
import type { ErrorObject, ValidateFunction } from 'ajv';
import { customFormats, type JsonSchema } from './contract/openapi-to-json-schema.js';

type AjvInstance = import('ajv').Ajv;

let ajvPromise: Promise<AjvInstance> | undefined;
const compiled = new WeakMap<JsonSchema, ValidateFunction>();

async function loadAjv(): Promise<AjvInstance> {
  const [{ Ajv }, formatsModule] = await Promise.all([import('ajv'), import('ajv-formats')]);
  // ajv-formats is CommonJS: under ESM its default export is the plugin itself (or has .default).
  const mod = formatsModule as unknown as { default: unknown };
  const addFormats = (typeof mod.default === 'function' ? mod.default : (mod.default as { default: unknown }).default) as (
    ajv: AjvInstance,
  ) => void;
  // verbose: the error lines name the received type or enum value (never echoed elsewhere).
  // strict:false: the contract carries OpenAPI annotations (descriptions on $ref siblings, `default`
  // inside anyOf) that strict mode would reject; they do not change what validates.
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true, verbose: true });
  addFormats(ajv);
  for (const [name, re] of Object.entries(customFormats)) ajv.addFormat(name, re);
  return ajv;
}

/** The compiled validator for `schema` (compiled once, on first use). */
export async function compile(schema: JsonSchema): Promise<ValidateFunction> {
  const hit = compiled.get(schema);
  if (hit !== undefined) return hit;
  ajvPromise ??= loadAjv();
  const ajv = await ajvPromise;
  const fn = ajv.compile(schema);
  compiled.set(schema, fn);
  return fn;
}

/** Validates `data`; returns `undefined` when valid, else one message per offending field. */
export async function validateAgainst(schema: JsonSchema, data: unknown, root: string): Promise<string[] | undefined> {
  const fn = await compile(schema);
  if (fn(data)) return undefined;
  return formatErrors(fn.errors ?? [], root);
}

/** `/queries/0/use_case` -> `payload.queries[0].use_case`. */
export function fieldPath(root: string, instancePath: string): string {
  let out = root;
  for (const raw of instancePath.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
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
