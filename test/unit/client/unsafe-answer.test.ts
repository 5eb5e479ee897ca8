import { describe, expect, test } from 'vitest';
import { ApiError, mayHaveTakenEffect, type ApiErrorKind } from '../../../src/client/errors.js';
import { answerMayHaveTakenEffect } from '../../../src/client/retry.js';

/**
 * Issue 29, item 2: the one classification of an answer to a call that changes state. Only a
 * clear refusal (a 4xx, or a 503 with a readable Retry-After) says nothing was done; every other
 * answer but the documented success may follow the work.
 */

const NOW = Date.parse('2026-03-01T10:00:00.000Z');

describe('answerMayHaveTakenEffect', () => {
  test.each([
    [400, undefined],
    [401, undefined],
    [404, undefined],
    [408, undefined],
    [409, undefined],
    [422, undefined],
    [429, undefined],
    [429, '5'],
    [499, undefined],
    [503, '0'],
    [503, '120'],
    [503, 'Sun, 01 Mar 2026 10:00:30 GMT'],
  ])('%i (Retry-After %s): a clear refusal', (status, retryAfter) => {
    expect(answerMayHaveTakenEffect(status, retryAfter, NOW)).toBe(false);
  });

  test.each([
    [200, undefined],
    [201, undefined],
    [202, undefined],
    [204, undefined],
    [299, undefined],
    [301, undefined],
    [303, undefined],
    [307, undefined],
    [399, undefined],
    [500, undefined],
    [500, '5'],
    [502, undefined],
    [503, undefined],
    [503, 'soon'],
    [503, ''],
    [504, undefined],
    [507, undefined],
    [599, undefined],
  ])('%i (Retry-After %s): may have been done', (status, retryAfter) => {
    expect(answerMayHaveTakenEffect(status, retryAfter, NOW)).toBe(true);
  });

  test('the clock is only read for a date, and a date in the past is still a readable Retry-After', () => {
    expect(answerMayHaveTakenEffect(503, 'Sun, 01 Mar 2026 09:00:00 GMT', NOW)).toBe(false);
    expect(answerMayHaveTakenEffect(503, '7')).toBe(false);
  });
});

describe('mayHaveTakenEffect', () => {
  const err = (kind: ApiErrorKind, status?: number): ApiError => new ApiError('x', { kind, method: 'POST', path: '/s', ...(status === undefined ? {} : { status }) });
  test.each([
    ['outcome-unknown', undefined, true],
    ['outcome-unknown', 500, true],
    ['decode', 201, true],
    ['http', 400, false],
    ['http', 500, false],
    ['network', undefined, false],
    ['timeout', undefined, false],
    ['redirect', 307, false],
    ['conflict', 409, false],
  ] as Array<[ApiErrorKind, number | undefined, boolean]>)('%s %s: %s', (kind, status, expected) => {
    expect(mayHaveTakenEffect(err(kind, status))).toBe(expected);
  });
});
