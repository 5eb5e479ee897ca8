/**
 * The one way sessionctl turns JSON Schemas into validators that load without compiling: ajv's
 * standalone code (a first compile costs ~100 ms per process, notes/runtime-facts §2.3), made a plain
 * ES module. ajv's `code.esm` output still calls `require` for its runtime helpers; each known call
 * becomes an import of the same helper, and any other `require` fails the generation, so that a new
 * helper is noticed here and not as a crash in a bundle.
 */
import { createRequire } from 'node:module';
import type { Ajv as AjvInstance, Options } from 'ajv';

// Both are CommonJS modules whose `module.exports` is the function; require sidesteps ESM interop.
const require = createRequire(import.meta.url);
const { Ajv } = require('ajv') as typeof import('ajv');
const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;
const standaloneCode = require('ajv/dist/standalone') as typeof import('ajv/dist/standalone/index.js').default;

/**
 * What every generated validator shares: every error (`allErrors`; the schemas bound the work with
 * maxLength/maxItems), `verbose` so that messages can name the received type or value (data is
 * never printed), formats checked. No `$data`, `useDefaults`, `removeAdditional` or `coerceTypes`:
 * a validator must not change or excuse its input (runtime-facts §2.1).
 */
const baseOptions = { allErrors: true, allowUnionTypes: true, verbose: true, validateFormats: true } as const satisfies Options;

/**
 * A compiling ajv with the shared options. `strict` is true for sessionctl's own schemas (a typo in
 * a keyword is an error) and false for the vendored contract, whose OpenAPI annotations do not change
 * what validates. `formats` adds custom string formats by name.
 */
export function createAjv(options: { strict: boolean; formats?: Readonly<Record<string, RegExp>> }): AjvInstance {
  const ajv = new Ajv({ ...baseOptions, strict: options.strict, code: { source: true, esm: true } });
  addFormats(ajv);
  for (const [name, re] of Object.entries(options.formats ?? {})) ajv.addFormat(name, re);
  return ajv;
}

/** Each `require` ajv's standalone code may emit, and the import that replaces it; and one quadratic pattern. */
const requireRewrites: Array<{ pattern: RegExp; name: string; from: string; member: string }> = [
  { pattern: /require\("ajv\/dist\/runtime\/ucs2length"\)\.default/g, name: '__ucs2length', from: 'ajv-runtime', member: 'ucs2length' },
  { pattern: /require\("ajv\/dist\/runtime\/equal"\)\.default/g, name: '__equal', from: 'ajv-runtime', member: 'equal' },
  { pattern: /require\("ajv-formats\/dist\/formats"\)\.fullFormats/g, name: '__fullFormats', from: 'ajv-formats/dist/formats.js', member: 'fullFormats' },
  // ajv gathers a referenced schema's errors with `vErrors.concat(...)`, a new array each time: with
  // `allErrors`, 30,000 bad entries of one map copied the list 30,000 times (quadratic). Appending
  // in place gives the same list (each call of a validator starts a fresh one of its own).
  { pattern: /vErrors\.concat\(/g, name: '__appendErrors(vErrors, ', from: 'ajv-runtime', member: 'appendErrors' },
];

/**
 * The ES module text of ajv's standalone code for `refs` (export name -> schema key, or the one
 * default export), with `require`s turned into imports. `runtimeModule` is the path from the
 * generated file to `src/util/ajv-runtime.ts` (with a `.js` extension).
 */
export function standaloneModule(ajv: AjvInstance, refs: Record<string, string> | ReturnType<AjvInstance['compile']>, runtimeModule: string): string {
  let code = typeof refs === 'function' ? standaloneCode(ajv, refs) : standaloneCode(ajv, refs);
  const imports: string[] = [];
  for (const { pattern, name, from, member } of requireRewrites) {
    if (!pattern.test(code)) continue;
    imports.push(`import { ${member} as ${name.replace(/\(.*$/, '')} } from '${from === 'ajv-runtime' ? runtimeModule : from}';`);
    code = code.replace(pattern, name);
  }
  const leftover = /\brequire\(("[^"]*")?/.exec(code);
  if (leftover !== null) throw new Error(`ajv's standalone code requires ${leftover[1] ?? 'a module'}; add it to requireRewrites in scripts/generate/ajv-standalone.ts`);
  return `${imports.join('\n')}\n${code.replace(/^"use strict";/, '')}`;
}
