/**
 * `src/project/generated/config-validator.ts`: the project configuration schema
 * (`schemas/sessionctl-config.schema.json`) compiled ahead of time, as the manifest schema is, so
 * that loading `sessionctl.yaml` costs no schema compile at start-up. The module also exports the
 * schema's text, from which the policy docs and the config's own rules read descriptions.
 */
import { compileSchema } from './manifest-validator.js';
import { standaloneModule } from './ajv-standalone.js';

/** The generated module's text for the schema file's text. */
export function generateConfigValidatorModule(schemaText: string): string {
  const { ajv, validate } = compileSchema(JSON.parse(schemaText) as object);
  return [
    '// @ts-nocheck',
    '/* Generated from schemas/sessionctl-config.schema.json by scripts/generate/config-validator.ts (npm run generate). Do not edit. */',
    standaloneModule(ajv, validate, '../../util/ajv-runtime.js'),
    `export const schemaText = ${JSON.stringify(schemaText)};`,
    '',
  ].join('\n');
}
