// @ts-check
// Mutation testing (docs/testing.md). Run it through `npm run mutate`, which names the module
// to mutate and its own incremental file; this file holds what every run shares.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  // Which tests run, and why not Stryker's `testFiles`: see that file.
  vitest: { configFile: 'test/vitest.mutate.config.ts', related: true },
  // Each mutant runs only the tests that executed its code in the dry run.
  coverageAnalysis: 'perTest',
  // Two cores, shared: two runners at most.
  concurrency: 2,
  timeoutMS: 10_000,
  incremental: true,
  incrementalFile: 'reports/mutation/incremental.json',
  reporters: ['clear-text', 'progress', 'json', 'html'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
  // dist/ is copied (never mutated): the state tests' other process (a lock holder killed with -9)
  // runs the build, as another sessionctl would; only the in-process side is mutated.
  ignorePatterns: ['coverage', 'reports', 'bench/.work', '.sessionctl'],
  thresholds: { high: 90, low: 80, break: null },
};

export default config;
