/**
 * The forms of what the service names a session by, checked wherever one comes from (an answer,
 * the state, `state push`, the command line) before it is used in a path, written to a file or
 * `$GITHUB_OUTPUT`, or printed: an id with `/`, `..` or an escape sequence could otherwise reach
 * another URL, inject an output, or rewrite a terminal.
 */

/**
 * A session id: `trs_` and 1 to 128 characters of the base64url alphabet (the contract's
 * `toolRouterSessionId` format, scripts/generate/openapi-to-json-schema.ts; the emulator's are
 * `trs_` and 12 of them). No `.`, `/`, space or control character can be in one.
 */
export const SESSION_ID = /^trs_[A-Za-z0-9_-]{1,128}$/;

/** Characters that move a terminal's cursor, ring it, end a line or reorder text: never in an id or URL. */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** A value from outside, shown so that it reads as what it is: JSON (escapes written out), cut short. */
export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}...` : text;
}

export function isSessionId(value: unknown): value is string {
  return typeof value === 'string' && SESSION_ID.test(value);
}

/** Why a value is not a session id (shown safely), or undefined when it is one. */
export function sessionIdProblem(value: unknown): string | undefined {
  if (isSessionId(value)) return undefined;
  return `${shown(value)} is not a session id (trs_ and up to 128 letters, digits, _ or -)`;
}

/** Why a text holds what a terminal or `$GITHUB_OUTPUT` would act on (a control or bidi character), or undefined. */
export function unprintableProblem(value: string): string | undefined {
  return UNPRINTABLE.test(value) ? `${shown(value)} holds a control character` : undefined;
}

/** Why a value is not an MCP URL sessionctl passes on (http or https, nothing unprintable), or undefined. */
export function mcpUrlProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return `${shown(value)} is not a URL`;
  if (UNPRINTABLE.test(value)) return unprintableProblem(value);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${shown(value)} is not a URL`;
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : `${shown(value)} is not an http or https URL`;
}

/**
 * Why a session's meta-tool list is not one sessionctl records (an array of names with nothing
 * unprintable), or undefined; an answer without one has none to check. A NUL is also what a
 * PostgreSQL jsonb cannot hold: recorded, it would fail the statement it shares with other users.
 */
export function toolListProblem(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) return `its tool list ${shown(value)} is not a list`;
  for (const tool of value) {
    if (typeof tool !== 'string') return `its tool list holds ${shown(tool)}, not a name`;
    const problem = unprintableProblem(tool);
    if (problem !== undefined) return `its tool list: ${problem}`;
  }
  return undefined;
}
