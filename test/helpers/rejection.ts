import { expect } from 'vitest';
import { ApiError } from '../../src/client/errors.js';

/** The ApiError a client call rejects with; fails the test when it resolves or throws anything else. */
export async function apiFailure(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

/**
 * What `fn` throws, as a CliError-shaped value to assert on; fails the test when it returns.
 * (An `expect.unreachable()` inside a `try` would be caught by its own `catch`.)
 */
export function thrown(fn: () => unknown): Error & { hint?: string; code?: string; exitCode?: number } {
  let caught: unknown;
  let threw = false;
  try {
    fn();
  } catch (err) {
    caught = err;
    threw = true;
  }
  expect(threw, 'expected the call to throw').toBe(true);
  expect(caught).toBeInstanceOf(Error);
  return caught as Error & { hint?: string };
}
