import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { codeInfo } from '../diagnostics/codes.js';
import type { ManifestDocument } from '../manifest/types.js';
import { yaml11Reading } from '../manifest/yaml11.js';
import { clampLists, largestMaxItems } from './clamp-lists.js';
import { cleanErrors, locateFinding, type AjvError } from './cleanup.js';
import { validate as generatedValidate, schemaText } from './generated/manifest-validator.js';
import { dottedPath } from './pointer.js';
import { stringLocations } from './string-locations.js';

/**
 * The manifest schema, validated by ajv's standalone code generated at build time from
 * `schemas/session-manifest.schema.json` (see `scripts/generate/manifest-validator.ts`): compiling at start-up
 * would cost ~100 ms per run, loading the generated module costs a few.
 */
interface GeneratedValidator {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}

const validateManifest = generatedValidate as unknown as GeneratedValidator;

/** The manifest schema's JSON text, exactly as in `schemas/session-manifest.schema.json`. */
export const manifestSchemaText: string = schemaText as string;

let parsedSchema: object | undefined;

/** The manifest schema as an object (parsed once, on first use). */
export function manifestSchema(): object {
  parsedSchema ??= JSON.parse(manifestSchemaText) as object;
  return parsedSchema;
}

/** True when the data matches the schema. Cheap: no cleanup, no positions. */
export function isSchemaValid(data: unknown): boolean {
  return validateManifest(clamped(data));
}

let listLimit: number | undefined;

/** The data with no list past the schema's largest `maxItems` + 1 (see clampLists): what ajv sees. */
function clamped(data: unknown): unknown {
  listLimit ??= largestMaxItems(manifestSchema()) + 1;
  return clampLists(data, listLimit);
}

/** Schema findings of one document: cleaned ajv errors, each at its key or value. */
export function schemaDiagnostics(doc: ManifestDocument): Diagnostic[] {
  if (validateManifest(clamped(doc.data))) return [];
  // Copy the errors: the generated function reuses its array on the next call.
  const errors = [...(validateManifest.errors ?? [])];
  return cleanErrors(errors, doc).map((f) => locateFinding(f, doc, codeInfo(f.code).severity));
}

/**
 * Strings that a YAML 1.1 parser might read as something else start like this (the same filter
 * as `yaml11Reading`'s own); only those are looked up in the source, which costs a tree walk.
 */
function mayReadOtherwise(value: string): boolean {
  return /^\s*(?:[yn~]|yes|no|on|off|true|false|null|[-+.0-9])/i.test(value);
}

/**
 * `yaml11Reading` parses the scalar twice; bulk runs see the same few words (`notion`, `no`) in
 * thousands of files, so plain scalars' readings are remembered (bounded, plain text only).
 */
const readings = new Map<string, string | undefined>();

function cachedYaml11Reading(scalar: { source: string; style: 'plain' | 'quoted' | 'block' }): string | undefined {
  if (scalar.style !== 'plain') return yaml11Reading(scalar);
  if (readings.has(scalar.source)) return readings.get(scalar.source);
  const reading = yaml11Reading(scalar);
  if (readings.size < 10_000) readings.set(scalar.source, reading);
  return reading;
}

/**
 * `yaml/yaml11-scalar` warnings: a plain scalar where the schema expects a string, that a YAML 1.1
 * parser (PyYAML, Go yaml.v2, js-yaml 3) would read as something else. sessionctl reads YAML 1.2,
 * but the same file is often read by other tools too.
 */
export function yaml11Diagnostics(doc: ManifestDocument): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const pointer of stringLocations(manifestSchema(), doc.data, mayReadOtherwise)) {
    const scalar = doc.scalar(pointer);
    if (scalar === undefined || scalar.style !== 'plain') continue;
    const reading = cachedYaml11Reading(scalar);
    if (reading === undefined) continue;
    out.push({
      code: 'yaml/yaml11-scalar',
      severity: codeInfo('yaml/yaml11-scalar').severity,
      message: `\`${dottedPath(pointer, doc.data)}\` is the string "${scalar.source}" here, but a YAML 1.1 parser reads it as ${reading}`,
      hint: `Quote it: "${scalar.source}".`,
      file: doc.file,
      pointer,
      range: doc.locate(pointer),
      fix: { title: `Quote it: "${scalar.source}"`, edits: [{ range: doc.locate(pointer), text: JSON.stringify(scalar.source) }] },
    });
  }
  return out;
}
