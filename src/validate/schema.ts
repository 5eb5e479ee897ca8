import type { Diagnostic } from '../diagnostics/diagnostic.js';
import { codeInfo } from '../diagnostics/codes.js';
import type { ManifestDocument } from '../manifest/types.js';
import { yaml11Reading } from '../manifest/yaml11.js';
import { cleanErrors, locateFinding, type AjvError } from './cleanup.js';
import { validate as generatedValidate, schemaText } from './generated/manifest-validator.js';
import { displayPath } from './pointer.js';
import { stringLocations } from './string-locations.js';

/**
 * The manifest schema, validated by ajv's standalone code generated at build time from
 * `schemas/session-manifest.schema.json` (see `generate-standalone.ts`): compiling at start-up
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
  return validateManifest(data);
}

/** Schema findings of one document: cleaned ajv errors, each at its key or value. */
export function schemaDiagnostics(doc: ManifestDocument): Diagnostic[] {
  if (validateManifest(doc.data)) return [];
  // Copy the errors: the generated function reuses its array on the next call.
  const errors = [...(validateManifest.errors ?? [])];
  return cleanErrors(errors, doc).map((f) => locateFinding(f, doc, codeInfo(f.code).severity));
}

/**
 * `yaml/yaml11-scalar` warnings: a plain scalar where the schema expects a string, that a YAML 1.1
 * parser (PyYAML, Go yaml.v2, js-yaml 3) would read as something else. sessionctl reads YAML 1.2,
 * but the same file is often read by other tools too.
 */
export function yaml11Diagnostics(doc: ManifestDocument): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const pointer of stringLocations(manifestSchema(), doc.data)) {
    const scalar = doc.scalar(pointer);
    if (scalar === undefined || scalar.style !== 'plain') continue;
    const reading = yaml11Reading(scalar);
    if (reading === undefined) continue;
    out.push({
      code: 'yaml/yaml11-scalar',
      severity: codeInfo('yaml/yaml11-scalar').severity,
      message: `\`${displayPath(pointer, doc.data)}\` is the string "${scalar.source}" here, but a YAML 1.1 parser reads it as ${reading}`,
      hint: `Quote it: "${scalar.source}".`,
      file: doc.file,
      pointer,
      range: doc.locate(pointer),
    });
  }
  return out;
}
