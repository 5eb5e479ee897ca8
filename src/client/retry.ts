/**
 * The retry policy, as a pure function of what happened to one attempt.
 *
 * Two classes of call (runtime-facts §3.3, DESIGN §4):
 * - `safe` calls (GET, and POSTs without side effects: search, download_url, delete) are retried on
 *   connection errors, timeouts, 408, 429 and 5xx;
 * - `unsafe` calls (create, link, upload_url, execute, execute_meta, proxy_execute) are retried only
 *   when the request surely did not reach the service: the connection was never made (refused, DNS,
 *   connect timeout), or the service said it did not process it (429, or 503 with Retry-After).
 *   After a reset or timeout once the request may have been sent, the outcome is unknown and a
 *   retry could create a duplicate, so the caller reports that instead.
 *
 * Delays: Retry-After when the service sends it (seconds or an HTTP date), otherwise exponential
 * backoff with full jitter (a random delay in [0, min(cap, base * 2^n)]), never past the deadline.
 */

export type CallClass = 'safe' | 'unsafe';

/** What one attempt ended with: a status line, or an error code (Node's `code`, undici's, or `TIMEOUT`). */
export type AttemptOutcome = { type: 'status'; status: number; retryAfter?: string | undefined } | { type: 'error'; code: string };

export interface RetryOptions {
  /** Retries after the first attempt. Default 3. */
  maxRetries: number;
  /** First backoff ceiling in ms. Default 500. */
  baseDelayMs: number;
  /** Backoff ceiling in ms. Default 8000. */
  maxDelayMs: number;
  /** A Retry-After longer than this gives up at once instead of waiting. Default 60000. */
  maxRetryAfterMs: number;
}

export const defaultRetryOptions: RetryOptions = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

export type RetryDecision =
  | { retry: true; delayMs: number; retryAfter: boolean }
  | {
      retry: false;
      reason: 'success' | 'not-retryable' | 'attempts-exhausted' | 'deadline' | 'retry-after-too-long';
      /** The request may have been processed: report "outcome unknown", never retry blindly. */
      outcomeUnknown: boolean;
      /** The Retry-After the service asked for, when there was one. */
      retryAfterMs?: number;
    };

export interface RetryInput {
  callClass: CallClass;
  /** Attempts made so far, the one that just ended included (1 after the first). */
  attempt: number;
  outcome: AttemptOutcome;
  /** Time left before the per-command deadline, in ms. */
  remainingMs: number;
  options?: Partial<RetryOptions>;
  /** A number in [0, 1); `Math.random` in production, fixed in tests. */
  random?: () => number;
  /** Epoch ms, for Retry-After dates. */
  now?: number;
}

/** Errors where the connection never carried the request (runtime-facts §3.3 (a)). */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/** Connection-level errors and timeouts that are worth another try for a safe call. */
const TRANSIENT = new Set([
  ...NOT_SENT,
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
]);

const TIMEOUTS = new Set(['TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** True when the error code means the request was surely not sent. */
export function surelyNotSent(code: string): boolean {
  return NOT_SENT.has(code);
}

export function isTimeoutCode(code: string): boolean {
  return TIMEOUTS.has(code);
}

export function isTransientCode(code: string): boolean {
  return TRANSIENT.has(code);
}

/**
 * Parses a Retry-After header: delta-seconds or an HTTP date (RFC 9110 §10.2.3). Returns ms to
 * wait (0 for a date in the past), or undefined when absent or unreadable.
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Only real HTTP dates, not anything Date.parse happens to accept ("1.5" parses as a year). All
  // three forms start with a day name (RFC 9110 §5.6.7): "Sun," (IMF), "Sunday," (RFC 850), "Sun " (asctime).
  if (!/^[A-Za-z]{3,9},? /.test(v)) return undefined;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Backoff with full jitter for the attempt that just failed (1-based). */
export function backoffDelay(attempt: number, options: RetryOptions, random: () => number): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * ceiling);
}

/**
 * Whether an answer to an unsafe call, other than the status its endpoint documents, may mean the
 * service did what was asked. Only a clear refusal says it did not: a 4xx (the request was judged
 * and refused, 429 included), or a 503 with a readable Retry-After (the service sheds load before
 * handling). Anything else may follow the work: another success code (200 for a 201), a redirect
 * (303 is "done, see other"), a 5xx from the service or a gateway in front of it (500, 502, 504),
 * a 503 that asks for no retry. The one rule for every call that changes state.
 */
export function answerMayHaveTakenEffect(status: number, retryAfter: string | undefined, now: number = Date.now()): boolean {
  if (status >= 400 && status < 500) return false;
  return !(status === 503 && parseRetryAfter(retryAfter, now) !== undefined);
}

/** Decides whether to retry after one attempt, and after how long. Pure. */
export function decideRetry(input: RetryInput): RetryDecision {
  const options = { ...defaultRetryOptions, ...input.options };
  const { outcome, callClass } = input;
  const now = input.now ?? Date.now();

  let retryable: boolean;
  let outcomeUnknown = false;
  let retryAfterMs: number | undefined;
  if (outcome.type === 'status') {
    const s = outcome.status;
    if (s < 300) return { retry: false, reason: 'success', outcomeUnknown: false };
    retryAfterMs = s === 429 || s === 503 || s === 408 ? parseRetryAfter(outcome.retryAfter, now) : undefined;
    if (callClass === 'safe') retryable = s === 408 || s === 429 || s >= 500;
    else retryable = s === 429 || (s === 503 && retryAfterMs !== undefined);
  } else {
    const code = outcome.code;
    if (callClass === 'safe') retryable = TRANSIENT.has(code);
    else {
      retryable = NOT_SENT.has(code);
      outcomeUnknown = !retryable;
    }
  }

  const giveUp = (reason: 'not-retryable' | 'attempts-exhausted' | 'deadline' | 'retry-after-too-long'): RetryDecision =>
    retryAfterMs === undefined ? { retry: false, reason, outcomeUnknown } : { retry: false, reason, outcomeUnknown, retryAfterMs };

  if (!retryable) return giveUp('not-retryable');
  if (input.attempt > options.maxRetries) return giveUp('attempts-exhausted');
  if (retryAfterMs !== undefined && retryAfterMs > options.maxRetryAfterMs) return giveUp('retry-after-too-long');
  const delayMs = retryAfterMs ?? backoffDelay(input.attempt, options, input.random ?? Math.random);
  if (delayMs >= input.remainingMs) return giveUp('deadline');
  return { retry: true, delayMs, retryAfter: retryAfterMs !== undefined };
}
