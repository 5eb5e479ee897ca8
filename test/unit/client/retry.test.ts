import { describe, expect, test } from 'vitest';
import { backoffDelay, decideRetry, defaultRetryOptions, parseRetryAfter, type AttemptOutcome, type CallClass } from '../../../src/client/retry.js';

const NOW = Date.UTC(2026, 10, 21, 12, 0, 0);
const status = (s: number, retryAfter?: string): AttemptOutcome => ({ type: 'status', status: s, retryAfter });
const error = (code: string): AttemptOutcome => ({ type: 'error', code });

describe('decideRetry: which outcomes are retried', () => {
  // random() = 0.5 so backoff on attempt 1 is 250 ms (half of the 500 ms ceiling).
  const cases: Array<[string, CallClass, AttemptOutcome, { retry: boolean; delayMs?: number; outcomeUnknown?: boolean }]> = [
    ['safe 500', 'safe', status(500), { retry: true, delayMs: 250 }],
    ['safe 502', 'safe', status(502), { retry: true, delayMs: 250 }],
    ['safe 503 without Retry-After', 'safe', status(503), { retry: true, delayMs: 250 }],
    ['safe 408', 'safe', status(408), { retry: true, delayMs: 250 }],
    ['safe 429 with Retry-After 2', 'safe', status(429, '2'), { retry: true, delayMs: 2000 }],
    ['safe 400', 'safe', status(400), { retry: false, outcomeUnknown: false }],
    ['safe 401', 'safe', status(401), { retry: false, outcomeUnknown: false }],
    ['safe 404', 'safe', status(404), { retry: false, outcomeUnknown: false }],
    ['safe 409', 'safe', status(409), { retry: false, outcomeUnknown: false }],
    ['safe ECONNRESET', 'safe', error('ECONNRESET'), { retry: true, delayMs: 250 }],
    ['safe ECONNREFUSED', 'safe', error('ECONNREFUSED'), { retry: true, delayMs: 250 }],
    ['safe timeout', 'safe', error('TIMEOUT'), { retry: true, delayMs: 250 }],
    ['safe headers timeout', 'safe', error('UND_ERR_HEADERS_TIMEOUT'), { retry: true, delayMs: 250 }],
    ['safe unknown error code', 'safe', error('UND_ERR_INVALID_ARG'), { retry: false, outcomeUnknown: false }],
    ['unsafe ECONNREFUSED', 'unsafe', error('ECONNREFUSED'), { retry: true, delayMs: 250 }],
    ['unsafe ENOTFOUND', 'unsafe', error('ENOTFOUND'), { retry: true, delayMs: 250 }],
    ['unsafe EAI_AGAIN', 'unsafe', error('EAI_AGAIN'), { retry: true, delayMs: 250 }],
    ['unsafe connect timeout', 'unsafe', error('UND_ERR_CONNECT_TIMEOUT'), { retry: true, delayMs: 250 }],
    ['unsafe 429 without Retry-After', 'unsafe', status(429), { retry: true, delayMs: 250 }],
    ['unsafe 429 with Retry-After 3', 'unsafe', status(429, '3'), { retry: true, delayMs: 3000 }],
    ['unsafe 503 with Retry-After 1', 'unsafe', status(503, '1'), { retry: true, delayMs: 1000 }],
    ['unsafe 503 without Retry-After', 'unsafe', status(503), { retry: false, outcomeUnknown: false }],
    ['unsafe 500', 'unsafe', status(500), { retry: false, outcomeUnknown: false }],
    ['unsafe 502', 'unsafe', status(502), { retry: false, outcomeUnknown: false }],
    ['unsafe 408', 'unsafe', status(408), { retry: false, outcomeUnknown: false }],
    ['unsafe ECONNRESET (sent)', 'unsafe', error('ECONNRESET'), { retry: false, outcomeUnknown: true }],
    ['unsafe UND_ERR_SOCKET (sent)', 'unsafe', error('UND_ERR_SOCKET'), { retry: false, outcomeUnknown: true }],
    ['unsafe timeout', 'unsafe', error('TIMEOUT'), { retry: false, outcomeUnknown: true }],
    ['unsafe headers timeout', 'unsafe', error('UND_ERR_HEADERS_TIMEOUT'), { retry: false, outcomeUnknown: true }],
    ['unsafe body timeout', 'unsafe', error('UND_ERR_BODY_TIMEOUT'), { retry: false, outcomeUnknown: true }],
  ];
  test.each(cases)('%s', (_name, callClass, outcome, expected) => {
    const d = decideRetry({ callClass, attempt: 1, outcome, remainingMs: 60_000, random: () => 0.5, now: NOW });
    expect(d.retry).toBe(expected.retry);
    if (d.retry) expect(d.delayMs).toBe(expected.delayMs);
    else {
      expect(d.reason).toBe('not-retryable');
      expect(d.outcomeUnknown).toBe(expected.outcomeUnknown);
    }
  });

  test('a success is never retried', () => {
    expect(decideRetry({ callClass: 'safe', attempt: 1, outcome: status(200), remainingMs: 1000 })).toEqual({ retry: false, reason: 'success', outcomeUnknown: false });
  });
});

describe('decideRetry: limits', () => {
  test('gives up after maxRetries retries (maxRetries + 1 attempts)', () => {
    const input = { callClass: 'safe' as const, outcome: status(500), remainingMs: 60_000, random: () => 0 };
    expect(decideRetry({ ...input, attempt: 3 }).retry).toBe(true);
    expect(decideRetry({ ...input, attempt: 4 })).toEqual({ retry: false, reason: 'attempts-exhausted', outcomeUnknown: false });
    expect(decideRetry({ ...input, attempt: 1, options: { maxRetries: 0 } })).toMatchObject({ retry: false, reason: 'attempts-exhausted' });
  });

  test('never sleeps past the deadline', () => {
    expect(decideRetry({ callClass: 'safe', attempt: 1, outcome: status(429, '5'), remainingMs: 4_000 })).toEqual({
      retry: false,
      reason: 'deadline',
      outcomeUnknown: false,
      retryAfterMs: 5_000,
    });
    expect(decideRetry({ callClass: 'safe', attempt: 1, outcome: status(500), remainingMs: 100, random: () => 0.99 })).toMatchObject({ retry: false, reason: 'deadline' });
  });

  test('a Retry-After beyond maxRetryAfterMs gives up at once', () => {
    expect(decideRetry({ callClass: 'unsafe', attempt: 1, outcome: status(429, '120'), remainingMs: 600_000 })).toMatchObject({
      retry: false,
      reason: 'retry-after-too-long',
      retryAfterMs: 120_000,
    });
  });

  test('Retry-After as an HTTP date', () => {
    const at = new Date(NOW + 7_000).toUTCString();
    expect(decideRetry({ callClass: 'unsafe', attempt: 1, outcome: status(503, at), remainingMs: 60_000, now: NOW })).toEqual({ retry: true, delayMs: 7_000, retryAfter: true });
  });
});

describe('backoff with full jitter', () => {
  test.each([
    [1, 500],
    [2, 1000],
    [3, 2000],
    [4, 4000],
    [5, 8000],
    [9, 8000],
  ])('attempt %i has ceiling %i ms', (attempt, ceiling) => {
    expect(backoffDelay(attempt, defaultRetryOptions, () => 0)).toBe(0);
    expect(backoffDelay(attempt, defaultRetryOptions, () => 0.999999)).toBe(ceiling - 1);
    expect(backoffDelay(attempt, defaultRetryOptions, () => 0.5)).toBe(ceiling / 2);
  });
});

describe('parseRetryAfter', () => {
  test.each<[string | undefined, number | undefined]>([
    ['0', 0],
    ['3', 3000],
    [' 10 ', 10_000],
    [new Date(NOW + 2_500).toUTCString(), 2_000], // HTTP dates have whole seconds
    [new Date(NOW - 10_000).toUTCString(), 0],
    ['-1', undefined],
    ['1.5', undefined],
    ['soon', undefined],
    ['', undefined],
    [undefined, undefined],
  ])('%j -> %j', (value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });
});
