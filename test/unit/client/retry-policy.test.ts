import { describe, expect, test } from 'vitest';
import {
  decideRetry,
  defaultRetryOptions,
  isTimeoutCode,
  isTransientCode,
  parseRetryAfter,
  surelyNotSent,
  type AttemptOutcome,
  type CallClass,
  type RetryInput,
} from '../../../src/client/retry.js';

/*
 * The retry and idempotency policy, every error code and status boundary, each decision compared
 * whole (toStrictEqual: no stray `retryAfterMs: undefined`). The lists below are the contract
 * (runtime-facts §3.3): a code moved from one to another changes what a create may do twice.
 */

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const status = (s: number, retryAfter?: string): AttemptOutcome => ({ type: 'status', status: s, retryAfter });
const error = (code: string): AttemptOutcome => ({ type: 'error', code });
const decide = (callClass: CallClass, outcome: AttemptOutcome, extra: Partial<RetryInput> = {}) =>
  decideRetry({ callClass, attempt: 1, outcome, remainingMs: 600_000, random: () => 0.5, now: NOW, ...extra });

/** The connection never carried the request: a retry cannot duplicate anything. */
const NOT_SENT = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT'];
/** Transient, but the request may have reached the service. */
const MAYBE_SENT = [
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETDOWN',
  'ENETUNREACH',
  'EHOSTDOWN',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'TIMEOUT',
];
const TIMEOUTS = ['TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT'];
const NOT_TRANSIENT = ['UND_ERR_INVALID_ARG', 'ERR_TLS_CERT_ALTNAME_INVALID', 'EACCES', 'timeout', ''];

const backoff = { retry: true, delayMs: 250, retryAfter: false } as const;
const notRetryable = (outcomeUnknown: boolean) => ({ retry: false, reason: 'not-retryable', outcomeUnknown });

describe('error codes', () => {
  test.each(NOT_SENT)('%s: retried for both classes, surely not sent', (code) => {
    expect(decide('safe', error(code))).toStrictEqual(backoff);
    expect(decide('unsafe', error(code))).toStrictEqual(backoff);
    expect(surelyNotSent(code)).toBe(true);
    expect(isTransientCode(code)).toBe(true);
  });

  test.each(MAYBE_SENT)('%s: retried when safe; unsafe gives up with the outcome unknown', (code) => {
    expect(decide('safe', error(code))).toStrictEqual(backoff);
    expect(decide('unsafe', error(code))).toStrictEqual(notRetryable(true));
    expect(surelyNotSent(code)).toBe(false);
    expect(isTransientCode(code)).toBe(true);
  });

  test.each(NOT_TRANSIENT)('%j: never retried; for an unsafe call the outcome is unknown', (code) => {
    expect(decide('safe', error(code))).toStrictEqual(notRetryable(false));
    expect(decide('unsafe', error(code))).toStrictEqual(notRetryable(true));
    expect(surelyNotSent(code)).toBe(false);
    expect(isTransientCode(code)).toBe(false);
  });

  test('timeouts are exactly these', () => {
    for (const code of [...NOT_SENT, ...MAYBE_SENT, ...NOT_TRANSIENT]) expect(isTimeoutCode(code), code).toBe(TIMEOUTS.includes(code));
  });
});

describe('statuses', () => {
  test.each([200, 201, 204, 299])('%i is a success', (s) => {
    expect(decide('unsafe', status(s, '1'))).toStrictEqual({ retry: false, reason: 'success', outcomeUnknown: false });
  });

  test.each([300, 304, 400, 401, 403, 404, 409, 422])('%i is not retried, safe or not', (s) => {
    expect(decide('safe', status(s))).toStrictEqual(notRetryable(false));
    expect(decide('unsafe', status(s))).toStrictEqual(notRetryable(false));
  });

  test.each([500, 502, 504, 599])('%i: retried when safe, never for an unsafe call', (s) => {
    expect(decide('safe', status(s))).toStrictEqual(backoff);
    expect(decide('unsafe', status(s))).toStrictEqual(notRetryable(false));
  });

  test('a Retry-After counts only on 408, 429 and 503', () => {
    expect(decide('safe', status(500, '5'))).toStrictEqual(backoff);
    expect(decide('safe', status(502, '5'))).toStrictEqual(backoff);
    expect(decide('safe', status(408, '2'))).toStrictEqual({ retry: true, delayMs: 2000, retryAfter: true });
    expect(decide('safe', status(429, '3'))).toStrictEqual({ retry: true, delayMs: 3000, retryAfter: true });
    expect(decide('safe', status(503, '4'))).toStrictEqual({ retry: true, delayMs: 4000, retryAfter: true });
  });

  test('an unsafe call: 429 always, 503 only with Retry-After, nothing else even with one', () => {
    expect(decide('unsafe', status(429))).toStrictEqual(backoff);
    expect(decide('unsafe', status(429, '3'))).toStrictEqual({ retry: true, delayMs: 3000, retryAfter: true });
    expect(decide('unsafe', status(503, '1'))).toStrictEqual({ retry: true, delayMs: 1000, retryAfter: true });
    expect(decide('unsafe', status(503))).toStrictEqual(notRetryable(false));
    expect(decide('unsafe', status(503, 'soon'))).toStrictEqual(notRetryable(false));
    expect(decide('unsafe', status(408, '1'))).toStrictEqual({ retry: false, reason: 'not-retryable', outcomeUnknown: false, retryAfterMs: 1000 });
    expect(decide('unsafe', status(500, '1'))).toStrictEqual(notRetryable(false));
  });
});

describe('limits, at their boundaries', () => {
  test('the defaults', () => {
    expect(defaultRetryOptions).toStrictEqual({ maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 });
  });

  test('maxRetries retries, then attempts-exhausted (carrying the Retry-After)', () => {
    expect(decide('safe', status(500), { attempt: 3, random: () => 0 })).toStrictEqual({ retry: true, delayMs: 0, retryAfter: false });
    expect(decide('safe', status(500), { attempt: 4 })).toStrictEqual({ retry: false, reason: 'attempts-exhausted', outcomeUnknown: false });
    expect(decide('safe', status(429, '1'), { attempt: 4 })).toStrictEqual({ retry: false, reason: 'attempts-exhausted', outcomeUnknown: false, retryAfterMs: 1000 });
    expect(decide('safe', status(500), { attempt: 2, options: { maxRetries: 1 } })).toStrictEqual({ retry: false, reason: 'attempts-exhausted', outcomeUnknown: false });
  });

  test('a Retry-After of exactly maxRetryAfterMs is waited for; one second more is not', () => {
    expect(decide('safe', status(429, '60'))).toStrictEqual({ retry: true, delayMs: 60_000, retryAfter: true });
    expect(decide('safe', status(429, '61'))).toStrictEqual({ retry: false, reason: 'retry-after-too-long', outcomeUnknown: false, retryAfterMs: 61_000 });
    expect(decide('safe', status(429, '2'), { options: { maxRetryAfterMs: 1_000 } })).toStrictEqual({
      retry: false,
      reason: 'retry-after-too-long',
      outcomeUnknown: false,
      retryAfterMs: 2_000,
    });
  });

  test('a delay that reaches the deadline gives up; one just inside it is taken', () => {
    expect(decide('safe', status(429, '5'), { remainingMs: 5_000 })).toStrictEqual({ retry: false, reason: 'deadline', outcomeUnknown: false, retryAfterMs: 5_000 });
    expect(decide('safe', status(429, '5'), { remainingMs: 5_001 })).toStrictEqual({ retry: true, delayMs: 5_000, retryAfter: true });
    expect(decide('safe', status(500), { remainingMs: 250 })).toStrictEqual({ retry: false, reason: 'deadline', outcomeUnknown: false });
    expect(decide('unsafe', error('ECONNREFUSED'), { remainingMs: 251 })).toStrictEqual(backoff);
  });

  test('backoff follows the options given, over the defaults', () => {
    expect(decide('safe', status(500), { options: { baseDelayMs: 100 } })).toStrictEqual({ retry: true, delayMs: 50, retryAfter: false });
    expect(decide('safe', status(500), { attempt: 3, options: { baseDelayMs: 100, maxDelayMs: 300 } })).toStrictEqual({ retry: true, delayMs: 150, retryAfter: false });
  });
});

describe('parseRetryAfter: HTTP dates only in their own shapes', () => {
  test.each<[string, number | undefined]>([
    ['Sat, 21 Nov 2026 12:00:07 GMT', 7_000], // IMF-fixdate
    ['Saturday, 21-Nov-26 12:00:09 GMT', 9_000], // RFC 850
    ['Sun Nov  6 08:49:37 1994', 0], // asctime, in the past whatever the local zone
    ['01 Jan 2030 00:00:00 GMT', undefined], // no day name: not an HTTP date, though Date.parse reads it
    ['2030-01-01T00:00:00Z', undefined],
    ['Sun, not a date', undefined],
    ['Mon,', undefined],
  ])('%j -> %j', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});
