/** `a`, `b` and `c`: names in code spans, joined for a message. */
export function names(items: readonly string[]): string {
  const quoted = items.map((i) => `\`${i}\``);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]!}`;
}

/** A JSON scalar as a message shows it: `false`, `"standard"`. */
export function scalar(value: unknown): string {
  return `\`${JSON.stringify(value)}\``;
}

/** What `toolkits` says about the session's toolkits, when it does not list them one by one. */
export function openAccess(mode: 'deny' | 'all'): string {
  return mode === 'deny' ? '`toolkits` is a denylist, so every toolkit it does not name is enabled' : 'the manifest has no `toolkits` allowlist, so every toolkit is enabled';
}
