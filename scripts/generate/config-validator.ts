/**
 * `src/project/generated/config-validator.ts`: the project configuration schema
 * (`schemas/sessionctl-config.schema.json`) compiled ahead of time, as the manifest schema is, so
 * that loading `sessionctl.yaml` costs no schema compile at start-up.
 */
import { generateValidatorModule } from './manifest-validator.js';

/** The generated module's text for the schema file's text. */
export function generateConfigValidatorModule(schemaText: string): string {
  return generateValidatorModule(schemaText, { from: 'schemas/sessionctl-config.schema.json', by: 'scripts/generate/config-validator.ts' });
}
