import { expect } from 'vitest';
import { ApiError } from '../../src/client/errors.js';
import { InputError, StateError } from '../../src/diagnostics/errors.js';

/** What a promise rejects with, of class `kind`; fails the test when it resolves or rejects with anything else. */
async function rejectionOf<E>(p: Promise<unknown>, kind: abstract new (...args: never[]) => E): Promise<E> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(kind);
  return err as E;
}

/** The ApiError a client call rejects with. */
export function apiFailure(p: Promise<unknown>): Promise<ApiError> {
  return rejectionOf(p, ApiError);
}

/** The InputError a call rejects with (a state or lock that cannot be used). */
export function inputFailure(p: Promise<unknown>): Promise<InputError> {
  return rejectionOf(p, InputError);
}

/** The StateError a call rejects with: the state could not be read, written or locked (exit code 5). */
export function stateFailure(p: Promise<unknown>): Promise<StateError> {
  return rejectionOf(p, StateError);
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
