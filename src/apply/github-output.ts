import type { AppliedItem } from './apply.js';
import { storedLabels } from '../util/sensitive.js';

/**
 * Lines for `$GITHUB_OUTPUT`: `<name>_session_id=...` and `<name>_mcp_url=...` for every manifest
 * with a session. Output names allow letters, digits, `_` and `-`; anything else becomes `_`, and a
 * name that does not start with a letter or `_` gets a leading `_`. Manifests of several users get
 * the user id appended, so their outputs do not overwrite each other (a sensitive user id as
 * `sensitive_` and the start of its digest). Values are written as given: pass them masked.
 */
export function githubOutputLines(items: readonly AppliedItem[]): string {
  const multiUser = new Map<string, number>();
  for (const i of items) multiUser.set(i.name, (multiUser.get(i.name) ?? 0) + 1);
  const lines: string[] = [];
  for (const i of items) {
    if (i.session_id === undefined || i.mcp_url === undefined) continue;
    const key = outputKey((multiUser.get(i.name) ?? 0) > 1 ? `${i.name}_${userPart(i.user_id)}` : i.name);
    lines.push(`${key}_session_id=${oneLine(i.session_id)}`, `${key}_mcp_url=${oneLine(i.mcp_url)}`);
  }
  return lines.length === 0 ? '' : lines.join('\n') + '\n';
}

/** A user id as part of an output name: a sensitive one (its stored form) by a short digest, never the value. */
function userPart(userId: string): string {
  if (storedLabels(userId) === undefined) return userId;
  return `sensitive_${userId.slice(userId.indexOf('sha256:') + 'sha256:'.length, userId.indexOf('sha256:') + 'sha256:'.length + 12)}`;
}

export function outputKey(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_');
  return /^[A-Za-z_]/.test(clean) ? clean : `_${clean}`;
}

// A value with a newline would inject another output, an escape sequence rewrite a log; ids and
// URLs never hold one legitimately (answers and the state are checked for them before this).
function oneLine(value: string): string {
  return value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '');
}
