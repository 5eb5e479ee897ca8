import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import base from '../vitest.config.js';

/**
 * The tests mutation testing runs (stryker.config.mjs): the in-process ones (unit, report,
 * property, the validate goldens). The e2e tests reach the same code through servers and child
 * processes and would make one module take an hour. per-file.test.ts compares with the build in
 * dist/, which Stryker copies but never mutates. Stryker's `related` then keeps the files that
 * import the mutated module. (Not Stryker's `testFiles`: with it, Stryker 9.6 activates static
 * mutants too late and reports them survived, stryker-js#6144.)
 */
export default defineConfig({
  ...base,
  root: fileURLToPath(new URL('..', import.meta.url)),
  test: {
    ...base.test,
    include: ['test/unit/**/*.test.ts', 'test/report/**/*.test.ts', 'test/property/**/*.test.ts', 'test/golden/**/*.test.ts'],
    exclude: [...configDefaults.exclude, 'test/unit/validate/per-file.test.ts'],
  },
});
