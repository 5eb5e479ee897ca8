import type { Diagnostic } from '../diagnostics/diagnostic.js';

/**
 * Masks the literal secrets that `rule/literal-api-key` found in the source texts used for code
 * frames: every character of the reported value except the last four becomes `*`. Lengths and
 * line breaks stay as they were, so every position in every report is still right; the secret
 * itself can no longer reach a report, a log or a file.
 */
export function maskSecretsInSources(sources: ReadonlyMap<string, string>, diagnostics: readonly Diagnostic[]): Map<string, string> {
  const out = new Map(sources);
  for (const d of diagnostics) {
    if (d.code !== 'rule/literal-api-key' || d.file === undefined || d.range === undefined) continue;
    const text = out.get(d.file);
    if (text === undefined) continue;
    const lineStarts = [0];
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lineStarts.push(i + 1);
    const offset = (line: number, col: number): number => (lineStarts[line - 1] ?? text.length) + col - 1;
    const start = offset(d.range.start.line, d.range.start.col);
    const end = Math.min(text.length, offset(d.range.end.line, d.range.end.col));
    // Characters that can be part of a secret; quotes, spaces and line breaks stay.
    const secretChars: number[] = [];
    for (let i = start; i < end; i++) if (/[^\s"']/.test(text[i]!)) secretChars.push(i);
    const masked = text.split('');
    for (const i of secretChars.slice(0, Math.max(0, secretChars.length - 4))) masked[i] = '*';
    out.set(d.file, masked.join(''));
  }
  return out;
}
