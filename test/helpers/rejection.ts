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
