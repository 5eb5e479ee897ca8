import { performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { Agent, request, type Dispatcher } from 'undici';
import { version } from '../version.js';
import { normalizeBaseUrl } from './base-url.js';
import { ApiError, parseErrorBody, type ApiErrorKind } from './errors.js';
import { decideRetry, defaultRetryOptions, isTimeoutCode, type AttemptOutcome, type CallClass, type RetryOptions } from './retry.js';
import { headerLines } from './trace.js';
import type {
  CreateSessionRequest,
  ExecuteMetaRequest,
  ExecuteRequest,
  ExecuteResult,
  LinkRequest,
  LinkResult,
  ListMountItemsQuery,
  ListToolkitsQuery,
  MountDeleteResult,
  MountDownloadUrl,
  MountItemList,
  MountUploadUrl,
  ProxyExecuteRequest,
  ProxyExecuteResult,
  SearchRequest,
  SearchResult,
  Session,
  ToolkitList,
  ToolList,
} from './types.js';

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

export interface ClientOptions {
  /** `https://...`, or `http://` to loopback only. A path prefix is kept. */
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
  /** Use this dispatcher instead of the client's own keep-alive Agent (it is then not closed by `close()`). */
  dispatcher?: Dispatcher;
  /** Receives `--verbose` trace lines (no trailing newline); credentials are already redacted. */
  onTrace?: (line: string) => void;
}

/** Reads and changes that are safe to repeat; everything else is `unsafe` (see retry.ts). */
type Route = { name: string; method: 'GET' | 'POST'; path: string; expect: 200 | 201; callClass: CallClass; body?: unknown };

const API = '/api/v3/tool_router';

/**
 * A client for the 13 Tool Router v3 endpoints. Every method resolves with the decoded body
 * (unknown fields kept) or rejects with an `ApiError`.
 */
export interface SessionClient {
  /** The normalised base URL requests go to. */
  readonly baseUrl: string;
  /** POST /session, 201. Unsafe: retried only when surely not received. */
  createSession(body: CreateSessionRequest): Promise<Session>;
  /** GET /session/{id}, 200. */
  getSession(sessionId: string): Promise<Session>;
  /** POST /session/{id}/execute, 200 (a tool failure is a 200 with `error`). Unsafe. */
  execute(sessionId: string, body: ExecuteRequest): Promise<ExecuteResult>;
  /** POST /session/{id}/execute_meta, 200. Unsafe (meta tools can act). */
  executeMeta(sessionId: string, body: ExecuteMetaRequest): Promise<ExecuteResult>;
  /** POST /session/{id}/link, 201. Unsafe. */
  link(sessionId: string, body: LinkRequest): Promise<LinkResult>;
  /** POST /session/{id}/proxy_execute, 200. Unsafe. */
  proxyExecute(sessionId: string, body: ProxyExecuteRequest): Promise<ProxyExecuteResult>;
  /** GET /session/{id}/toolkits, 200; `toolkits` is sent comma-joined. */
  listToolkits(sessionId: string, query?: ListToolkitsQuery): Promise<ToolkitList>;
  /** GET /session/{id}/tools, 200. */
  listTools(sessionId: string): Promise<ToolList>;
  /** POST /session/{id}/search, 200. Safe (no side effects). */
  search(sessionId: string, body: SearchRequest): Promise<SearchResult>;
  /** GET /session/{id}/mounts/{mount}/items, 200. Mount id defaults to `files`. */
  listMountItems(sessionId: string, query?: ListMountItemsQuery, mountId?: string): Promise<MountItemList>;
  /** POST /session/{id}/mounts/{mount}/download_url, 201. Safe. */
  mountDownloadUrl(sessionId: string, mountRelativePath: string, mountId?: string): Promise<MountDownloadUrl>;
  /** POST /session/{id}/mounts/{mount}/upload_url, 201. Unsafe. */
  mountUploadUrl(sessionId: string, mountRelativePath: string, options?: { mimetype?: string; mountId?: string }): Promise<MountUploadUrl>;
  /** POST /session/{id}/mounts/{mount}/delete, 200. Safe (idempotent by contract). */
  mountDelete(sessionId: string, mountRelativePath: string, mountId?: string): Promise<MountDeleteResult>;
  /** Closes the client's own connections (not an injected dispatcher). */
  close(): Promise<void>;
}

/** Creates a client. Throws `UsageError` for a base URL the key may not be sent to. */
export function createClient(options: ClientOptions): SessionClient {
  const baseUrl = normalizeBaseUrl(options.baseUrl);
  const apiKey = options.apiKey;
  const timeouts: ClientTimeouts = { ...defaultTimeouts, ...options.timeouts };
  const retry: ClientRetryOptions = {
    ...defaultRetryOptions,
    random: Math.random,
    sleep: (ms) => delay(ms),
    ...options.retries,
  };
  const maxResponseSize = options.maxResponseSize ?? 10 * 1024 * 1024;
  const ownAgent =
    options.dispatcher === undefined
      ? new Agent({
          connections: 8,
          keepAliveTimeout: 4_000,
          connect: { timeout: timeouts.connectMs },
          headersTimeout: timeouts.headersMs,
          bodyTimeout: timeouts.bodyMs,
          maxResponseSize,
        })
      : undefined;
  const dispatcher: Dispatcher = options.dispatcher ?? (ownAgent as Agent);
  const userAgent = options.userAgent ?? `sessionctl/${version}`;
  const trace = options.onTrace;
  const scrub = (s: string): string => (apiKey.length > 0 ? s.split(apiKey).join('****') : s);
  const emit = trace === undefined ? undefined : (line: string) => trace(scrub(line));

  async function call<T>(route: Route, query?: URLSearchParams): Promise<T> {
    const qs = query !== undefined && [...query.keys()].length > 0 ? `?${query.toString()}` : '';
    const path = `${route.path}${qs}`;
    const url = `${baseUrl}${path}`;
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': userAgent, 'x-api-key': apiKey };
    let payload: string | undefined;
    if (route.body !== undefined) {
      payload = JSON.stringify(route.body);
      headers['content-type'] = 'application/json';
    }
    const started = Date.now();
    const deadline = Math.min(started + timeouts.callMs, options.deadlineAt ?? Infinity);
    const fail = (kind: ApiErrorKind, message: string, extra: Partial<ConstructorParameters<typeof ApiError>[1]> = {}): ApiError =>
      new ApiError(scrub(message), { kind, method: route.method, path, ...extra });

    for (let attempt = 1; ; attempt++) {
      const attemptMs = Math.max(1, Math.min(timeouts.attemptMs, deadline - Date.now()));
      const signal = AbortSignal.timeout(attemptMs);
      const t0 = performance.now();
      if (emit !== undefined) {
        emit(`> ${route.method} ${url}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
        for (const line of headerLines('>', headers)) emit(line);
      }
      let outcome: AttemptOutcome;
      let errorBody: ReturnType<typeof parseErrorBody> = {};
      let cause: unknown;
      try {
        const res = await request(url, {
          dispatcher,
          method: route.method,
          headers,
          body: payload ?? null,
          signal,
          headersTimeout: timeouts.headersMs,
          bodyTimeout: timeouts.bodyMs,
        });
        const status = res.statusCode;
        if (emit !== undefined) {
          emit(`< ${status} ${route.method} ${url} (${Math.round(performance.now() - t0)} ms)`);
          for (const line of headerLines('<', res.headers)) emit(line);
        }
        if (status >= 300 && status < 400) {
          await res.body.dump();
          const location = headerValue(res.headers['location']);
          throw fail('redirect', `the service answered ${status} with a redirect${location !== undefined ? ` to ${safeOrigin(location, url)}` : ''}; redirects are never followed, so the API key cannot leave for another host`, {
            status,
            suggested_fix: 'set --base-url (COMPOSIO_BASE_URL) to the final address',
          });
        }
        if (status === route.expect) {
          const text = await readText(res.body, maxResponseSize);
          let value: unknown;
          try {
            value = JSON.parse(text);
          } catch (err) {
            throw fail('decode', `the service answered ${status} but the body is not JSON${route.callClass === 'unsafe' ? '; the request was processed, its result is unknown' : ''}`, { status, cause: err });
          }
          if (typeof value !== 'object' || value === null || Array.isArray(value)) {
            throw fail('decode', `the service answered ${status} but the body is not a JSON object`, { status });
          }
          return value as T;
        }
        // An error status, or a success code other than the one this endpoint documents.
        const text = await readText(res.body, 64 * 1024).catch(() => '');
        errorBody = parseErrorBody(text);
        outcome = { type: 'status', status, retryAfter: headerValue(res.headers['retry-after']) };
      } catch (err) {
        if (err instanceof ApiError) throw err;
        const code = errorCode(err, signal);
        if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE' || code === 'RESPONSE_TOO_LARGE') {
          throw fail('decode', `the response is larger than ${maxResponseSize} bytes`, { cause: err });
        }
        outcome = { type: 'error', code };
        cause = err;
        emit?.(`< ${route.method} ${url} failed: ${code} (${Math.round(performance.now() - t0)} ms)`);
      }

      const decision = decideRetry({
        callClass: route.callClass,
        attempt,
        outcome,
        remainingMs: deadline - Date.now(),
        options: retry,
        random: retry.random,
      });
      if (decision.retry) {
        emit?.(`* retrying ${route.name} in ${decision.delayMs} ms${decision.retryAfter ? ' (Retry-After)' : ''}: ${describeOutcome(outcome)}`);
        await retry.sleep(decision.delayMs);
        continue;
      }
      // Give up: build the error for what happened last.
      if (outcome.type === 'status') {
        const status = outcome.status;
        const message =
          errorBody.message ?? (status < 300 ? `expected HTTP ${route.expect}, got ${status}` : `HTTP ${status} with no error message`);
        const retryNote =
          decision.reason === 'retry-after-too-long' || decision.reason === 'deadline'
            ? decision.retryAfterMs !== undefined
              ? ` (the service asked to retry after ${Math.ceil(decision.retryAfterMs / 1000)} s, beyond the time limit)`
              : ''
            : '';
        const extra: Partial<ConstructorParameters<typeof ApiError>[1]> = { status, attempts: attempt };
        if (errorBody.slug !== undefined) extra.slug = scrub(errorBody.slug);
        if (errorBody.code !== undefined) extra.code = errorBody.code;
        if (errorBody.request_id !== undefined) extra.request_id = scrub(errorBody.request_id);
        if (errorBody.suggested_fix !== undefined) extra.suggested_fix = scrub(errorBody.suggested_fix);
        if (errorBody.errors !== undefined) extra.errors = errorBody.errors.map(scrub);
        throw fail('http', `${message}${retryNote}`, extra);
      }
      const code = outcome.code;
      const timedOut = isTimeoutCode(code);
      if (decision.outcomeUnknown) {
        throw fail(
          'outcome-unknown',
          `${route.name}: the outcome is unknown: the connection ${timedOut ? 'timed out' : `failed (${code})`} after the request was sent, so the service may or may not have processed it; it was not retried, to avoid doing it twice`,
          {
            attempts: attempt,
            cause,
            suggested_fix:
              route.name === 'create session'
                ? 'check whether the session was created (the service has no list endpoint; `sessionctl diff` shows what the state file knows) before running apply again'
                : 'check the result before running the command again',
          },
        );
      }
      if (timedOut) {
        throw fail('timeout', `no answer from ${new URL(baseUrl).origin} in time (${code === 'TIMEOUT' ? `${attemptMs} ms` : code})`, { attempts: attempt, cause });
      }
      throw fail('network', `cannot reach ${new URL(baseUrl).origin}: ${code}`, { attempts: attempt, cause });
    }
  }

  const session = (id: string): string => `${API}/session/${encodeURIComponent(id)}`;
  const mount = (id: string, mountId: string | undefined): string => `${session(id)}/mounts/${encodeURIComponent(mountId ?? 'files')}`;

  return {
    baseUrl,
    createSession: (body) => call({ name: 'create session', method: 'POST', path: `${API}/session`, expect: 201, callClass: 'unsafe', body }),
    getSession: (id) => call({ name: 'get session', method: 'GET', path: session(id), expect: 200, callClass: 'safe' }),
    execute: (id, body) => call({ name: 'execute', method: 'POST', path: `${session(id)}/execute`, expect: 200, callClass: 'unsafe', body }),
    executeMeta: (id, body) => call({ name: 'execute meta tool', method: 'POST', path: `${session(id)}/execute_meta`, expect: 200, callClass: 'unsafe', body }),
    link: (id, body) => call({ name: 'link', method: 'POST', path: `${session(id)}/link`, expect: 201, callClass: 'unsafe', body }),
    proxyExecute: (id, body) => call({ name: 'proxy execute', method: 'POST', path: `${session(id)}/proxy_execute`, expect: 200, callClass: 'unsafe', body }),
    listToolkits: (id, query = {}) => {
      const q = new URLSearchParams();
      if (query.cursor !== undefined) q.set('cursor', query.cursor);
      if (query.limit !== undefined) q.set('limit', String(query.limit));
      if (query.toolkits !== undefined) q.set('toolkits', query.toolkits.join(','));
      if (query.is_connected !== undefined) q.set('is_connected', String(query.is_connected));
      if (query.search !== undefined) q.set('search', query.search);
      return call({ name: 'list toolkits', method: 'GET', path: `${session(id)}/toolkits`, expect: 200, callClass: 'safe' }, q);
    },
    listTools: (id) => call({ name: 'list tools', method: 'GET', path: `${session(id)}/tools`, expect: 200, callClass: 'safe' }),
    search: (id, body) => call({ name: 'search', method: 'POST', path: `${session(id)}/search`, expect: 200, callClass: 'safe', body }),
    listMountItems: (id, query = {}, mountId) => {
      const q = new URLSearchParams();
      if (query.cursor !== undefined) q.set('cursor', query.cursor);
      if (query.limit !== undefined) q.set('limit', String(query.limit));
      if (query.mount_relative_prefix !== undefined) q.set('mount_relative_prefix', query.mount_relative_prefix);
      return call({ name: 'list mount items', method: 'GET', path: `${mount(id, mountId)}/items`, expect: 200, callClass: 'safe' }, q);
    },
    mountDownloadUrl: (id, p, mountId) =>
      call({ name: 'mount download url', method: 'POST', path: `${mount(id, mountId)}/download_url`, expect: 201, callClass: 'safe', body: { mount_relative_path: p } }),
    mountUploadUrl: (id, p, opts = {}) =>
      call({
        name: 'mount upload url',
        method: 'POST',
        path: `${mount(id, opts.mountId)}/upload_url`,
        expect: 201,
        callClass: 'unsafe',
        body: opts.mimetype === undefined ? { mount_relative_path: p } : { mount_relative_path: p, mimetype: opts.mimetype },
      }),
    mountDelete: (id, p, mountId) =>
      call({ name: 'mount delete', method: 'POST', path: `${mount(id, mountId)}/delete`, expect: 200, callClass: 'safe', body: { mount_relative_path: p } }),
    close: async () => {
      if (ownAgent !== undefined) await ownAgent.close();
    },
  };
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Only the origin of a redirect target: its path or query could carry a token. */
function safeOrigin(location: string, base: string): string {
  try {
    return new URL(location, base).origin;
  } catch {
    return 'an unreadable location';
  }
}

function describeOutcome(o: AttemptOutcome): string {
  return o.type === 'status' ? `HTTP ${o.status}` : o.code;
}

/** The error's code: Node's/undici's `code`, or `TIMEOUT` when our per-attempt signal fired. */
export function errorCode(err: unknown, signal?: AbortSignal): string {
  if (signal?.aborted === true) return 'TIMEOUT';
  if (typeof err === 'object' && err !== null) {
    const e = err as { code?: unknown; name?: unknown; cause?: unknown };
    if (e.name === 'TimeoutError') return 'TIMEOUT';
    if (typeof e.code === 'string') {
      // undici wraps a socket's own error; the underlying code says more (ECONNRESET).
      if (e.code === 'UND_ERR_SOCKET' && typeof e.cause === 'object' && e.cause !== null) {
        const inner = (e.cause as { code?: unknown }).code;
        if (typeof inner === 'string') return inner;
      }
      return e.code;
    }
    if (e.cause !== undefined && e.cause !== err) return errorCode(e.cause);
  }
  return 'UNKNOWN';
}

/** Reads a body as UTF-8, refusing more than `limit` bytes (also when the dispatcher sets no limit). */
async function readText(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw Object.assign(new Error(`response larger than ${limit} bytes`), { code: 'RESPONSE_TOO_LARGE' });
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
