import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Two cores here and in CI: more workers than that only adds contention.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // A missing or different golden file fails; only `npm run test:update` (vitest -u) writes one.
    update: 'none',
    // The run's own temp dir (and its check that nothing is left in it); then the PostgreSQL server
    // of the state tests, found once (or one line saying why they are skipped).
    globalSetup: ['test/helpers/global-setup.ts', 'test/setup/postgres.ts'],
    setupFiles: ['test/helpers/setup.ts'],
  },
});
