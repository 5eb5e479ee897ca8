/**
 * The condition for `it.skipIf` / `describe.skipIf`, printing why when it skips, so a skipped test
 * is never silent. scripts/lint-tests.mjs accepts `skipIf` only with this helper.
 */
export function skipBecause(condition: boolean, reason: string): boolean {
  if (condition) process.stderr.write(`skipped: ${reason}\n`);
  return condition;
}

/**
 * Tests that bind every interface (0.0.0.0) run only when asked, since other machines could reach
 * the server meanwhile; the loopback guard of test/helpers/setup.ts lets them through then.
 */
export const wildcardBindAllowed = process.env['SESSIONCTL_TEST_WILDCARD_BIND'] === '1';
export const wildcardBindReason = 'binds 0.0.0.0, every interface; set SESSIONCTL_TEST_WILDCARD_BIND=1 to run it';
