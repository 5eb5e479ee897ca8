import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Finds the PostgreSQL server of the state tests once (or says in one line why they are skipped).
    globalSetup: ['test/setup/postgres.ts'],
    // Two cores here and in CI: more workers than that only adds contention.
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
