import type { Session } from '../wire/session.js';
import { SessionctlError } from '../diagnostics/errors.js';
import { jsonShapeProblem } from '../util/json-shape.js';
import { isPlainObject } from '../util/plain-object.js';

/**
 * How a call failed:
 * - `http`: the service answered with an unexpected status (its error envelope is decoded);
 * - `network`: no usable answer (refused, DNS, reset) and retrying did not help;
 * - `timeout`: no answer in time, for a call that is safe to repeat;
 * - `outcome-unknown`: a call that changes state (create, link, execute, ...) may have reached the
 *   service, but no answer came back (reset or timeout after it was sent). It was not retried,
 *   because a retry could create a duplicate;
 * - `redirect`: the service answered 3xx; redirects are never followed, so the key never leaves
 *   for another host;
 * - `decode`: the answer had the expected status but its body was not the JSON object expected;
 * - `conflict`: a conditional update (PATCH with `expected_config_version`) found the session at
 *   another config version (409); the error names both versions.
 */
export type ApiErrorKind = 'http' | 'network' | 'timeout' | 'outcome-unknown' | 'redirect' | 'decode' | 'conflict';

export interface ApiErrorDetails {
  kind: ApiErrorKind;
  method: string;
  /** The request path (with query), never the host's credentials or any header. */
  path: string;
  status?: number;
  slug?: string;
  code?: number;
  request_id?: string;
  suggested_fix?: string;
  errors?: string[];
  /** How many attempts were made (1 = no retry). */
  attempts?: number;
  /** The answer's Retry-After, in ms, when it had one. */
  retry_after_ms?: number;
  /** A `conflict`: the version the update expected, and the one the session is at. */
  expected_config_version?: number;
  current_config_version?: number;
  /** A `conflict`: the session as read again after it, when the read succeeded (a caller that rolls out compares it). */
  current_session?: Session;
  cause?: unknown;
}

/**
 * A call to the service failed. Carries the fields of the service's error envelope
 * (`{"error": {message, code, slug, status, request_id, suggested_fix, errors}}`, facts §6.1) and
 * what the client knows (method, path, kind, attempts). It never holds request headers, and the
 * client scrubs the API key from every string before building one.
 */
export class ApiError extends SessionctlError {
  override readonly name: string = 'ApiError';
  readonly kind: ApiErrorKind;
  readonly method: string;
  readonly path: string;
  readonly status: number | undefined;
  readonly slug: string | undefined;
  readonly code: number | undefined;
  readonly request_id: string | undefined;
  readonly suggested_fix: string | undefined;
  readonly errors: string[] | undefined;
  readonly attempts: number;
  readonly expected_config_version: number | undefined;
  readonly current_config_version: number | undefined;
  readonly current_session: Session | undefined;
  readonly retry_after_ms: number | undefined;

  constructor(message: string, details: ApiErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.kind = details.kind;
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.slug = details.slug;
    this.code = details.code;
    this.request_id = details.request_id;
    this.suggested_fix = details.suggested_fix;
    this.errors = details.errors;
    this.attempts = details.attempts ?? 1;
    this.expected_config_version = details.expected_config_version;
    this.current_config_version = details.current_config_version;
    this.retry_after_ms = details.retry_after_ms;
    // Kept out of toJSON and of enumeration: a report shows the versions, never a whole session.
    Object.defineProperty(this, 'current_session', { value: details.current_session, enumerable: false });
  }

  /** A plain object for `--format json` and logs: the envelope fields, never the cause's internals. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, kind: this.kind, message: this.message, method: this.method, path: this.path };
    for (const key of ['status', 'slug', 'code', 'request_id', 'suggested_fix', 'errors', 'expected_config_version', 'current_config_version'] as const) {
      if (this[key] !== undefined) out[key] = this[key];
    }
    out['attempts'] = this.attempts;
    return out;
  }

  /**
   * The lines the CLI prints for this error (no stack): what failed, then the service's slug,
   * validation details, request id and suggested fix when it sent them.
   */
  describe(): string[] {
    const status = this.status !== undefined ? ` (HTTP ${this.status})` : '';
    const lines = [`error: ${this.method} ${this.path} failed${status}: ${this.message}`];
    if (this.slug !== undefined) lines.push(`slug: ${this.slug}${this.code !== undefined ? ` (code ${this.code})` : ''}`);
    for (const e of this.errors ?? []) lines.push(`  - ${e}`);
    if (this.request_id !== undefined) lines.push(`request id: ${this.request_id}`);
    if (this.suggested_fix !== undefined) lines.push(`hint: ${this.suggested_fix}`);
    if (this.attempts > 1) lines.push(`attempts: ${this.attempts}`);
    return lines;
  }
}

/** Whether the service refused the API key itself (401, 403): every other call of the run would fail alike. */
export function isKeyRefused(err: unknown): boolean {
  return err instanceof ApiError && err.kind === 'http' && (err.status === 401 || err.status === 403);
}

/**
 * The API key was refused: a run over many manifests stops at the first refusal and says so once,
 * in one line, instead of blaming every manifest for it.
 */
export class KeyRefusedError extends ApiError {
  override readonly name: string = 'KeyRefusedError';

  constructor(refusal: ApiError) {
    super(refusal.message, {
      kind: refusal.kind,
      method: refusal.method,
      path: refusal.path,
      ...(refusal.status !== undefined ? { status: refusal.status } : {}),
      ...(refusal.slug !== undefined ? { slug: refusal.slug } : {}),
      ...(refusal.code !== undefined ? { code: refusal.code } : {}),
      ...(refusal.request_id !== undefined ? { request_id: refusal.request_id } : {}),
      cause: refusal,
    });
  }

  override describe(): string[] {
    const what = this.status === 403 ? 'refused the API key for this request (HTTP 403)' : 'refused the API key (HTTP 401)';
    return [`error: the service ${what}: ${this.message}; the run stopped there. Check COMPOSIO_API_KEY (or --api-key-file) and the --base-url it belongs to`];
  }
}

/** The fields of an error body, from the envelope or the rate limiter's bare `{"message"}`. */
export interface ErrorBody {
  message?: string;
  slug?: string;
  code?: number;
  status?: number;
  request_id?: string;
  suggested_fix?: string;
  errors?: string[];
}

const MAX_EXCERPT = 300;

/**
 * Decodes an error response body. Knows the envelope (`{"error": {...}}`, `code` numeric and
 * `status` sometimes missing, facts §6.1), the rate limiter's bare `{"message": "..."}` (facts §6.4),
 * and anything else (HTML from a proxy, empty), which becomes a short excerpt as the message.
 * Fields of the wrong type are dropped, never fatal.
 */
export function parseErrorBody(text: string): ErrorBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const excerpt = printable(text.replace(/\s+/g, ' ').trim().slice(0, MAX_EXCERPT));
    return excerpt === '' ? {} : { message: excerpt };
  }
  if (!isPlainObject(value)) return {};
  // `errors` items are stringified below: refuse a hostile nesting before that recursion.
  if (jsonShapeProblem(value) !== undefined) return { message: 'the service sent an error body nested too deeply or too wide to read' };
  const inner = isPlainObject(value['error']) ? value['error'] : typeof value['error'] === 'string' ? { message: value['error'] } : value;
  const out: ErrorBody = {};
  const message = str(inner['message']);
  if (message !== undefined) out.message = message;
  const slug = str(inner['slug']);
  if (slug !== undefined) out.slug = slug;
  const code = num(inner['code']);
  if (code !== undefined) out.code = code;
  const status = num(inner['status']);
  if (status !== undefined) out.status = status;
  const requestId = str(inner['request_id']);
  if (requestId !== undefined) out.request_id = requestId;
  const fix = str(inner['suggested_fix']);
  if (fix !== undefined) out.suggested_fix = fix;
  if (Array.isArray(inner['errors'])) {
    const errors = inner['errors'].map((e) => printable(typeof e === 'string' ? e : JSON.stringify(e)));
    if (errors.length > 0) out.errors = errors;
  }
  return out;
}

/**
 * Text from the service as it may be printed: control characters (escape sequences, carriage
 * returns, line breaks that could forge a CI log line) and bidi overrides become visible `\uXXXX`.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? printable(v) : undefined;
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  // Some gateways send numeric codes as strings; keep them as numbers when they are.
  if (typeof v === 'string' && /^\d+$/.test(v)) return Number(v);
  return undefined;
}

/**
 * Whether a failed call that changes state (create, update, delete, link, ...) may have taken
 * effect at the service. The transport classifies every answer of such a call once
 * (`answerMayHaveTakenEffect`): no answer after it was sent, or any answer but the documented
 * success or a clear refusal, is `outcome-unknown`; a success whose body cannot be read is
 * `decode`. Everything else (a 4xx, a 503 with Retry-After, a connection never made) is a refusal.
 */
export function mayHaveTakenEffect(err: ApiError): boolean {
  return err.kind === 'outcome-unknown' || err.kind === 'decode';
}
