import type { Code } from '../diagnostics/codes.js';
import type { Diagnostic } from '../diagnostics/diagnostic.js';
import type { ManifestDocument } from '../manifest/types.js';
import { cleanErrors, locateFinding, type AjvError } from '../validate/cleanup.js';
import { validate as generatedValidate, schemaText } from './generated/config-validator.js';

interface GeneratedValidator {
  (data: unknown): boolean;
  errors?: AjvError[] | null;
}

const validateConfig = generatedValidate as unknown as GeneratedValidator;

/** The config schema's JSON text, exactly as in `schemas/sessionctl-config.schema.json`. */
export const configSchemaText: string = schemaText as string;

let parsed: Record<string, unknown> | undefined;

/** The config schema as an object (parsed once, on first use). */
export function configSchema(): Record<string, unknown> {
  parsed ??= JSON.parse(configSchemaText) as Record<string, unknown>;
  return parsed;
}

/** The manifest schema's codes, as the config's own: the file is not a manifest. */
const codeFor: Record<string, Code> = {
  'schema/unknown-key': 'config/unknown-key',
  'schema/forbidden-key': 'config/unknown-key',
  'schema/type': 'config/type',
  'schema/required': 'config/required',
};

/**
 * Schema findings of `sessionctl.yaml`, cleaned as the manifest's are (one per place, at the key
 * or value, did-you-mean for unknown keys) and given `config/` codes. The schema's `oneOf` over a
 * policy's conditions is left to `config/policy-condition` (one clear finding instead of eleven).
 */
export function configSchemaDiagnostics(doc: ManifestDocument): Diagnostic[] {
  if (validateConfig(doc.data)) return [];
  // The policy definition compiles to a function of its own, whose schema paths start at `#/`.
  const errors = [...(validateConfig.errors ?? [])].filter((e) => !(/^\/policies\/\d+$/.test(e.instancePath) && /^#\/(definitions\/policy\/)?oneOf(\/|$)/.test(e.schemaPath)));
  return cleanErrors(errors, doc).map((f) => locateFinding({ ...f, code: codeFor[f.code] ?? 'config/invalid-value' }, doc, 'error'));
}
