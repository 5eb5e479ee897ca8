import { request } from 'undici';
import { expect } from 'vitest';

/**
 * Calls the emulator's admin surface (`/_emulator/...`) and returns the decoded answer; `key` goes
 * in `x-api-key`, as an emulator with `--api-key` keys needs. A refused call fails the test, so a
 * fault or drift that was never injected cannot pass silently.
 */
export async function emulatorAdmin(url: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown, key?: string): Promise<any> {
  const res = await request(`${url}/_emulator${path.startsWith('/') ? path : `/${path}`}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...(key === undefined ? {} : { 'x-api-key': key }) },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.body.text();
  expect(res.statusCode, `admin ${method} ${path}: ${text}`).toBeLessThan(300);
  return text === '' ? undefined : JSON.parse(text);
}
