/** Reading undici's answers: bodies with a size bound, error codes, headers, the success body. */
import { jsonShapeProblem } from '../util/json-shape.js';
import type { ApiError, ApiErrorDetails, ApiErrorKind } from './errors.js';

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
export async function readText(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }, limit: number): Promise<string> {
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

export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** Only the origin of a redirect target: its path or query could carry a token. */
export function safeOrigin(location: string, base: string): string {
  try {
    return new URL(location, base).origin;
  } catch {
    return 'an unreadable location';
  }
}

/** The expected status's body: a JSON object of bounded depth and size, or a `decode` error. */
export function decodeSuccess(fail: (kind: ApiErrorKind, message: string, extra?: Partial<ApiErrorDetails>) => ApiError, unsafe: boolean, status: number, text: string): unknown {
  // The service said it did the work: for an unsafe call, an unreadable answer leaves its result unknown.
  const unknown = unsafe ? '; the request was processed, its result is unknown' : '';
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw fail('decode', `the service answered ${status} but the body is not JSON${unknown}`, { status, cause: err });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw fail('decode', `the service answered ${status} but the body is not a JSON object${unknown}`, { status });
  }
  // Recursive code downstream (drift, reports) must not meet a hostile depth or width.
  const problem = jsonShapeProblem(value);
  if (problem !== undefined) throw fail('decode', `the service answered ${status} with a body sessionctl refuses: ${problem}${unknown}`, { status });
  return value;
}
