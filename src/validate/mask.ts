import type { Range } from '../diagnostics/diagnostic.js';

/** A literal secret found in a source file, and where its scalar is. */
export interface FoundSecret {
  file: string;
  range: Range;
  /** The secret as it appears in the value (may be part of a longer string). */
  secret: string;
}

/**
 * Masks literal secrets in the source texts used for code frames: every character of each secret
 * except the last four becomes `*`, inside the scalar's range only. Lengths and line breaks stay
 * as they were, so every position in every report is still right, while the secret itself can no
 * longer reach a report, a log or a file. When the secret is not found verbatim in the range (it
 * was written with escapes), the whole scalar is masked instead.
 */
export function maskSecretsInSources(sources: ReadonlyMap<string, string>, found: readonly FoundSecret[]): Map<string, string> {
  const out = new Map(sources);
  for (const { file, range, secret } of found) {
    const text = out.get(file);
    if (text === undefined) continue;
    const lineStarts = [0];
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
    const offset = (line: number, col: number): number => (lineStarts[line - 1] ?? text.length) + col - 1;
    const start = offset(range.start.line, range.start.col);
    const end = Math.min(text.length, offset(range.end.line, range.end.col));
    const chars = text.split('');
    const maskSpan = (from: number, to: number): void => {
      const positions: number[] = [];
      for (let i = from; i < to; i++) if (/[^\s"']/.test(chars[i]!)) positions.push(i);
      for (const i of positions.slice(0, Math.max(0, positions.length - 4))) chars[i] = '*';
    };
    const scalar = text.slice(start, end);
    let at = secret.length > 0 ? scalar.indexOf(secret) : -1;
    if (at < 0) maskSpan(start, end);
    while (at >= 0) {
      maskSpan(start + at, start + at + secret.length);
      at = scalar.indexOf(secret, at + secret.length);
    }
    out.set(file, chars.join(''));
  }
  return out;
}
