import { request } from 'undici';
import { expect } from 'vitest';

/**
 * Calls the emulator's admin surface (`/_emulator/...`, no key) and returns the decoded answer.
 * A refused call fails the test, so a fault or drift that was never injected cannot pass silently.
 */
export async function emulatorAdmin(url: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any> {
  const res = await request(`${url}/_emulator${path.startsWith('/') ? path : `/${path}`}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.body.text();
  expect(res.statusCode, `admin ${method} ${path}: ${text}`).toBeLessThan(300);
  return text === '' ? undefined : JSON.parse(text);
}
