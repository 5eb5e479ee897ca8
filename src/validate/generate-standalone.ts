import { Ajv } from 'ajv';
import { createRequire } from 'node:module';

/*
 * Build-time only: turns the manifest schema into the source of an ES module that validates
 * without compiling at start-up (compiling costs ~100 ms per process, notes/runtime-facts §2.3).
 * The output is committed as `generated/manifest-validator.ts`; a unit test regenerates it and
 * compares, so it never drifts from the schema. Nothing on the lint path imports this file.
 */

// Both are CommonJS modules whose `module.exports` is the function; require sidesteps ESM interop.
const require = createRequire(import.meta.url);
const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;
const standaloneCode = require('ajv/dist/standalone') as typeof import('ajv/dist/standalone/index.js').default;

/**
 * The ajv options of the one validator: every error (`allErrors`, the schema bounds its work with
 * maxLength/maxItems), strict schema checks, `verbose` so that cleanup can read each error's
 * parent schema (its data is never printed). No `$data`, `useDefaults`, `removeAdditional` or
 * `coerceTypes`: a linter must not change or excuse the input.
 */
export const ajvOptions = {
  allErrors: true,
  strict: true,
  allowUnionTypes: true,
  verbose: true,
} as const;

/** Compiles the schema with the project's options (used by tests and the generator). */
export function compileSchema(schema: object): { ajv: Ajv; validate: ReturnType<Ajv['compile']> } {
  const ajv = new Ajv({ ...ajvOptions, code: { source: true, esm: true } });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  return { ajv, validate };
}

const rewrites: Array<[RegExp, string, string]> = [
  [/require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, '__ucs2length', "import { ucs2length as __ucs2length } from '../runtime.js';"],
  [/require\("ajv\/dist\/runtime\/equal"\)\.default/g, '__equal', "import { equal as __equal } from '../runtime.js';"],
  [/require\("ajv-formats\/dist\/formats"\)\.fullFormats/g, '__fullFormats', "import { fullFormats as __fullFormats } from 'ajv-formats/dist/formats.js';"],
  // ajv gathers a referenced schema's errors with \`vErrors.concat(...)\`, a new array each time:
  // with \`allErrors\`, 30,000 bad entries of one map copied the list 30,000 times (quadratic).
  // Appending in place is the same list (each call of a validator starts a fresh one of its own).
  [/vErrors\.concat\(/g, '__appendErrors(vErrors, ', "import { appendErrors as __appendErrors } from '../runtime.js';"],
];

/**
 * The source text of `src/validate/generated/manifest-validator.ts` for the schema file's text.
 * The module also exports that text verbatim (`sessionctl schema` prints it byte for byte, and
 * the string-location walk reads it) so that no file outside `dist/` is read at run time.
 */
export function generateValidatorModule(schemaText: string): string {
  const schema = JSON.parse(schemaText) as object;
  const { ajv, validate } = compileSchema(schema);
  let code = standaloneCode(ajv, validate);
  const imports: string[] = [];
  for (const [pattern, name, statement] of rewrites) {
    if (pattern.test(code)) {
      imports.push(statement);
      code = code.replace(pattern, name);
    }
  }
  const leftover = /\brequire\(/.exec(code);
  if (leftover !== null) throw new Error(`standalone validator still requires a module at ${leftover.index}; add a rewrite`);
  code = code.replace(/^"use strict";/, '');
  return [
    '// @ts-nocheck',
    '/* Generated from schemas/session-manifest.schema.json by src/validate/generate-standalone.ts. Do not edit. */',
    ...imports,
    code,
    `export const schemaText = ${JSON.stringify(schemaText)};`,
    '',
  ].join('\n');
}
