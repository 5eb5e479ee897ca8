/** Real HTTP to an emulator for the e2e tests (undici `request`, no mocks). */
import { request } from 'undici';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- test convenience
}

export interface CallOptions {
  key?: string;
  body?: unknown;
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

export async function call(base: string, method: string, path: string, options: CallOptions = {}): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['x-api-key'] = options.key;
  let body: string | Buffer | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${base}${path}`, { method: method as 'GET', headers, ...(body === undefined ? {} : { body }) });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

export const SESSION = '/api/v3/tool_router/session';

/** Creates a session and returns its id (throws unless 201). */
export async function createSession(base: string, key: string, body: Record<string, unknown> = { user_id: 'u1' }): Promise<string> {
  const r = await call(base, 'POST', SESSION, { key, body });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.json.session_id as string;
}
