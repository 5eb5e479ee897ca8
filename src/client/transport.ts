/**
 * One API call over undici: the request with the key header, the retry loop of `retry.ts`, the
 * bounded and checked answer, and the `ApiError` for what happened last. Every string that goes
 * into an error or a trace has the API key scrubbed out.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { version } from '../version.js';
import { normalizeBaseUrl, type KeyedUrlOptions } from './base-url.js';
import { ApiError, parseErrorBody, type ApiErrorDetails, type ApiErrorKind, type ErrorBody } from './errors.js';
import { decodeSuccess, errorCode, headerValue, readText, safeOrigin } from './response.js';
import { answerMayHaveTakenEffect, decideRetry, parseRetryAfter, defaultRetryOptions, isTimeoutCode, type AttemptOutcome, type CallClass, type RetryDecision, type RetryOptions } from './retry.js';
import { headerLines } from './trace.js';
import { keyScrubber } from './api-key.js';

export interface ClientTimeouts {
  /** TCP/TLS connect, ms. Default 10 000. */
  connectMs: number;
  /** Until the response headers arrive, ms (undici's coarse timer, about 1 s resolution). Default 30 000. */
  headersMs: number;
  /** Between body chunks, ms (coarse timer too). Default 30 000. */
  bodyMs: number;
  /** One attempt, end to end, ms; an AbortSignal, so precise. Default 30 000. */
  attemptMs: number;
  /** One call including its retries and their delays, ms. Default 120 000. */
  callMs: number;
}

export const defaultTimeouts: ClientTimeouts = { connectMs: 10_000, headersMs: 30_000, bodyMs: 30_000, attemptMs: 30_000, callMs: 120_000 };

export interface ClientRetryOptions extends RetryOptions {
  /** A number in [0, 1) for jitter. Default `Math.random`. */
  random: () => number;
  /** Waits between attempts. Default a real timer; tests inject one that records the delays. */
  sleep: (ms: number) => Promise<void>;
}

export interface TransportOptions extends KeyedUrlOptions {
  /** `https://...`, or `http://` to loopback (to any host with `allowInsecureHttp`). A path prefix is kept. */
  baseUrl: string;
  /** Sent only as `x-api-key`, never logged. */
  apiKey: string;
  /** Default `sessionctl/<version>`. */
  userAgent?: string;
  timeouts?: Partial<ClientTimeouts>;
  retries?: Partial<ClientRetryOptions>;
  /** Epoch ms after which no new attempt starts: the whole command's budget. */
  deadlineAt?: number;
  /** Largest response body accepted, bytes. Default 10 MiB. */
  maxResponseSize?: number;
  /** Connections to the service the client's own Agent keeps (requests beyond them queue). Default 8. */
  connections?: number;
  /** Use this dispatcher instead of the client's own keep-alive Agent (it is then not closed by `close()`). */
  dispatcher?: Dispatcher;
  /** Receives `--verbose` trace lines (no trailing newline); credentials are already redacted. */
  onTrace?: (line: string) => void;
}

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** One operation's request. `retry: false` makes it a single attempt whatever its class (PATCH). */
export interface Route {
  name: string;
  method: HttpMethod;
  path: string;
  expect: 200 | 201;
  callClass: CallClass;
  body?: unknown;
  retry?: false;
}

export interface Transport {
  readonly baseUrl: string;
  call<T>(route: Route, query?: URLSearchParams): Promise<T>;
  /** What one call may take from now: `--timeout`, or less when the run's deadline is nearer (an MCP exchange takes it too). */
  callBudgetMs(): number;
  /** Writes a `--verbose` line (scrubbed), when tracing. */
  trace(line: string): void;
  /** Closes the own connections once requests in flight end, or at once with `abort` (they then fail). */
  close(options?: { abort?: boolean }): Promise<void>;
}

/** What the transport holds for every call. */
interface Context {
  baseUrl: string;
  apiKey: string;
  userAgent: string;
  timeouts: ClientTimeouts;
  retry: ClientRetryOptions;
  deadlineAt: number;
  maxResponseSize: number;
  dispatcher: Dispatcher;
  scrub: (s: string) => string;
  emit: ((line: string) => void) | undefined;
}

/** One request as sent, for every attempt of a call. */
interface Prepared {
  route: Route;
  path: string;
  url: string;
  headers: Record<string, string>;
  payload: string | undefined;
  fail: (kind: ApiErrorKind, message: string, extra?: Partial<ApiErrorDetails>) => ApiError;
}

type Attempt = { done: true; value: unknown } | { done: false; outcome: AttemptOutcome; errorBody: ErrorBody; cause?: unknown };

/** Creates a transport. Throws `UsageError` for a base URL the key may not be sent to. */
export function createTransport(options: TransportOptions): Transport {
  const timeouts: ClientTimeouts = { ...defaultTimeouts, ...options.timeouts };
  const maxResponseSize = options.maxResponseSize ?? 10 * 1024 * 1024;
  const ownAgent =
    options.dispatcher === undefined
      ? new Agent({
          connections: options.connections ?? 8,
          keepAliveTimeout: 4_000,
          connect: { timeout: timeouts.connectMs },
          headersTimeout: timeouts.headersMs,
          bodyTimeout: timeouts.bodyMs,
          maxResponseSize,
        })
      : undefined;
  const apiKey = options.apiKey;
  const scrub = keyScrubber(apiKey);
  const trace = options.onTrace;
  const ctx: Context = {
    baseUrl: normalizeBaseUrl(options.baseUrl, options),
    apiKey,
    userAgent: options.userAgent ?? `sessionctl/${version}`,
    timeouts,
    retry: { ...defaultRetryOptions, random: Math.random, sleep: (ms) => delay(ms), ...options.retries },
    deadlineAt: options.deadlineAt ?? Infinity,
    maxResponseSize,
    dispatcher: options.dispatcher ?? (ownAgent as Agent),
    scrub,
    emit: trace === undefined ? undefined : (line: string) => trace(scrub(line)),
  };
  return {
    baseUrl: ctx.baseUrl,
    callBudgetMs: () => Math.max(1, Math.min(ctx.timeouts.callMs, ctx.deadlineAt - Date.now())),
    call: <T>(route: Route, query?: URLSearchParams) => call(ctx, prepare(ctx, route, query)) as Promise<T>,
    trace: (line) => ctx.emit?.(line),
    close: async (options = {}) => {
      if (ownAgent === undefined || ownAgent.destroyed || ownAgent.closed) return;
      await (options.abort === true ? ownAgent.destroy() : ownAgent.close());
    },
  };
}

function prepare(ctx: Context, route: Route, query: URLSearchParams | undefined): Prepared {
  const qs = query !== undefined && [...query.keys()].length > 0 ? `?${query.toString()}` : '';
  const path = `${route.path}${qs}`;
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': ctx.userAgent, 'x-api-key': ctx.apiKey };
  let payload: string | undefined;
  if (route.body !== undefined) {
    payload = JSON.stringify(route.body);
    headers['content-type'] = 'application/json';
  }
  const fail = (kind: ApiErrorKind, message: string, extra: Partial<ApiErrorDetails> = {}): ApiError =>
    new ApiError(ctx.scrub(message), { kind, method: route.method, path, ...extra });
  return { route, path, url: `${ctx.baseUrl}${path}`, headers, payload, fail };
}

async function call(ctx: Context, req: Prepared): Promise<unknown> {
  const deadline = Math.min(Date.now() + ctx.timeouts.callMs, ctx.deadlineAt);
  const retry = req.route.retry === false ? { ...ctx.retry, maxRetries: 0 } : ctx.retry;
  for (let attempt = 1; ; attempt++) {
    const attemptMs = Math.max(1, Math.min(ctx.timeouts.attemptMs, deadline - Date.now()));
    const result = await attemptOnce(ctx, req, attempt, attemptMs);
    if (result.done) return result.value;
    const decision = decideRetry({
      callClass: req.route.callClass,
      attempt,
      outcome: result.outcome,
      remainingMs: deadline - Date.now(),
      options: retry,
      random: retry.random,
    });
    if (decision.retry) {
      ctx.emit?.(`* retrying ${req.route.name} in ${decision.delayMs} ms${decision.retryAfter ? ' (Retry-After)' : ''}: ${describeOutcome(result.outcome)}`);
      await retry.sleep(decision.delayMs);
      continue;
    }
    throw giveUp(ctx, req, result, decision, attempt, attemptMs);
  }
}

/** One attempt: the decoded body, or what went wrong for the retry policy. Throws for what no retry can fix. */
async function attemptOnce(ctx: Context, req: Prepared, attempt: number, attemptMs: number): Promise<Attempt> {
  const { route, url } = req;
  const signal = AbortSignal.timeout(attemptMs);
  const t0 = performance.now();
  if (ctx.emit !== undefined) {
    ctx.emit(`> ${route.method} ${url}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
    for (const line of headerLines('>', req.headers)) ctx.emit(line);
  }
  try {
    const res = await request(url, {
      dispatcher: ctx.dispatcher,
      method: route.method,
      headers: req.headers,
      body: req.payload ?? null,
      signal,
      headersTimeout: ctx.timeouts.headersMs,
      bodyTimeout: ctx.timeouts.bodyMs,
    });
    const status = res.statusCode;
    if (ctx.emit !== undefined) {
      ctx.emit(`< ${status} ${route.method} ${url} (${Math.round(performance.now() - t0)} ms)`);
      for (const line of headerLines('<', res.headers)) ctx.emit(line);
    }
    if (status >= 300 && status < 400) {
      await res.body.dump();
      const location = headerValue(res.headers['location']);
      // A redirect after a change (303 "see other") may follow the work: for an unsafe call it is an unknown outcome.
      const unsafe = route.callClass === 'unsafe';
      throw req.fail(unsafe ? 'outcome-unknown' : 'redirect', `${unsafe ? `${route.name}: the outcome is unknown: ` : ''}the service answered ${status} with a redirect${location !== undefined ? ` to ${safeOrigin(location, url)}` : ''}; redirects are never followed, so the API key cannot leave for another host`, {
        status,
        suggested_fix: 'set --base-url (COMPOSIO_BASE_URL) to the final address',
      });
    }
    if (status === route.expect) return { done: true, value: decodeSuccess(req.fail, route.callClass === 'unsafe', status, await readText(res.body, ctx.maxResponseSize)) };
    // An error status, or a success code other than the one this endpoint documents.
    const text = await readText(res.body, 64 * 1024).catch(() => '');
    return { done: false, outcome: { type: 'status', status, retryAfter: headerValue(res.headers['retry-after']) }, errorBody: parseErrorBody(text) };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const code = errorCode(err, signal);
    if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE' || code === 'RESPONSE_TOO_LARGE') {
      throw req.fail('decode', `the response is larger than ${ctx.maxResponseSize} bytes`, { cause: err });
    }
    ctx.emit?.(`< ${route.method} ${url} failed: ${code} (${Math.round(performance.now() - t0)} ms)`);
    return { done: false, outcome: { type: 'error', code }, errorBody: {}, cause: err };
  }
}

/** The error for the last attempt, once the retry policy gave up. */
function giveUp(ctx: Context, req: Prepared, last: Extract<Attempt, { done: false }>, decision: Extract<RetryDecision, { retry: false }>, attempt: number, attemptMs: number): ApiError {
  const { outcome, errorBody } = last;
  if (outcome.type === 'status') return statusError(ctx, req, outcome, errorBody, decision, attempt);
  const code = outcome.code;
  const timedOut = isTimeoutCode(code);
  const origin = new URL(ctx.baseUrl).origin;
  if (decision.outcomeUnknown) {
    return req.fail(
      'outcome-unknown',
      `${req.route.name}: the outcome is unknown: the connection ${timedOut ? 'timed out' : `failed (${code})`} after the request was sent, so the service may or may not have processed it; it was not retried, to avoid doing it twice`,
      {
        attempts: attempt,
        cause: last.cause,
        suggested_fix:
          req.route.name === 'create session'
            ? 'check whether the session was created (the service has no list endpoint; `sessionctl diff` shows what the state file knows) before running apply again'
            : 'check the result before running the command again',
      },
    );
  }
  if (timedOut) return req.fail('timeout', `no answer from ${origin} in time (${code === 'TIMEOUT' ? `${attemptMs} ms` : code})`, { attempts: attempt, cause: last.cause });
  return req.fail('network', `cannot reach ${origin}: ${code}`, { attempts: attempt, cause: last.cause });
}

function statusError(ctx: Context, req: Prepared, outcome: Extract<AttemptOutcome, { type: 'status' }>, body: ErrorBody, decision: Extract<RetryDecision, { retry: false }>, attempt: number): ApiError {
  const status = outcome.status;
  const message = body.message ?? (status < 300 ? `expected HTTP ${req.route.expect}, got ${status}` : `HTTP ${status} with no error message`);
  const retryNote =
    (decision.reason === 'retry-after-too-long' || decision.reason === 'deadline') && decision.retryAfterMs !== undefined
      ? ` (the service asked to retry after ${Math.ceil(decision.retryAfterMs / 1000)} s, beyond the time limit)`
      : '';
  const extra: Partial<ApiErrorDetails> = { status, attempts: attempt };
  // A caller that retries at its own level (a rollout's PATCH, never retried here) waits this long.
  const retryAfterMs = parseRetryAfter(outcome.retryAfter);
  if (retryAfterMs !== undefined) extra.retry_after_ms = retryAfterMs;
  if (body.slug !== undefined) extra.slug = ctx.scrub(body.slug);
  if (body.code !== undefined) extra.code = body.code;
  if (body.request_id !== undefined) extra.request_id = ctx.scrub(body.request_id);
  if (body.suggested_fix !== undefined) extra.suggested_fix = ctx.scrub(body.suggested_fix);
  if (body.errors !== undefined) extra.errors = body.errors.map(ctx.scrub);
  if (req.route.callClass === 'unsafe' && answerMayHaveTakenEffect(status, outcome.retryAfter)) {
    return req.fail(
      'outcome-unknown',
      `${req.route.name}: the outcome is unknown: the service answered ${status} (${message}) where it documents ${req.route.expect}, which is not a clear refusal, so it may have processed the request; it was not retried, to avoid doing it twice`,
      extra,
    );
  }
  return req.fail('http', `${message}${retryNote}`, extra);
}

function describeOutcome(o: AttemptOutcome): string {
  return o.type === 'status' ? `HTTP ${o.status}` : o.code;
}
