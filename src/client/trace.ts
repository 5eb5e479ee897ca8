/**
 * Lines for `--verbose` HTTP traces. Credentials are redacted by header name here; the CLI's
 * Redactor also replaces the literal key value in everything it writes, as a backstop.
 */

const SECRET_HEADERS = new Set([
  'x-api-key',
  'x-user-api-key',
  'x-org-api-key',
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);

export const REDACTED = '[redacted]';

export function isSecretHeader(name: string): boolean {
  return SECRET_HEADERS.has(name.toLowerCase());
}

/** One `<prefix> name: value` line per header, sorted by name, secret values replaced. */
export function headerLines(prefix: string, headers: Record<string, string | string[] | undefined>): string[] {
  const lines: string[] = [];
  for (const name of Object.keys(headers).sort()) {
    const value = headers[name];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) lines.push(`${prefix} ${name.toLowerCase()}: ${isSecretHeader(name) ? REDACTED : v}`);
  }
  return lines;
}
