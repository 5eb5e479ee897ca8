// @ts-check
// Mutation testing (docs/testing.md). Run it through `npm run mutate`, which names the module
// to mutate, its own incremental file and the test files; this file holds what every run shares.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.config.ts', related: true },
  // Each mutant runs only the tests that executed its code in the dry run.
  coverageAnalysis: 'perTest',
  // Two cores, shared: two runners at most.
  concurrency: 2,
  // The in-process tests: unit, report, property and the validate goldens. The e2e tests reach
  // the same code through servers and child processes; they would make one module take an hour.
  // `related` then keeps only the files that import the mutated module (through any chain).
  // per-file.test.ts compares with the build in dist/, which is neither mutated nor copied.
  testFiles: ['test/unit/**/!(per-file).test.ts', 'test/report/**/*.test.ts', 'test/property/**/*.test.ts', 'test/golden/**/*.test.ts'],
  timeoutMS: 10_000,
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  ignorePatterns: ['dist', 'coverage', 'reports', 'bench/.work', '.sessionctl'],
  thresholds: { high: 90, low: 80, break: null },
};

export default config;
