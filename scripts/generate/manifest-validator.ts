/**
 * `src/validate/generated/manifest-validator.ts`: the manifest schema compiled ahead of time, so that
 * the lint path validates without compiling at start-up. The module also exports the schema's text
 * verbatim (`sessionctl schema` prints it byte for byte, and the string-location walk reads it), so
 * that no file outside the package's code is read at run time.
 */
import type { Ajv } from 'ajv';
import { createAjv, standaloneModule } from './ajv-standalone.js';

/** Compiles the manifest schema with the options of the generated validator (tests use it too). */
export function compileSchema(schema: object): { ajv: Ajv; validate: ReturnType<Ajv['compile']> } {
  const ajv = createAjv({ strict: true });
  return { ajv, validate: ajv.compile(schema) };
}

/**
 * The generated module's text for a schema file's text: the validator, and the schema's text
 * verbatim. `from` names the schema file and `by` the generator, for the module's header. The
 * module goes two folders below `src/` (`src/<folder>/generated/`), as the runtime import assumes.
 */
export function generateValidatorModule(
  schemaText: string,
  header: { from: string; by: string } = { from: 'schemas/session-manifest.schema.json', by: 'scripts/generate/manifest-validator.ts' },
): string {
  const { ajv, validate } = compileSchema(JSON.parse(schemaText) as object);
  return [
    '// @ts-nocheck',
    `/* Generated from ${header.from} by ${header.by} (npm run generate). Do not edit. */`,
    standaloneModule(ajv, validate, '../../util/ajv-runtime.js'),
    `export const schemaText = ${JSON.stringify(schemaText)};`,
    '',
  ].join('\n');
}
