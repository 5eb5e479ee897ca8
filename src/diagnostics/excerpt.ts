import type { Diagnostic } from './diagnostic.js';

/** How much of one piece of input a message quotes. */
export const MAX_ECHO = 80;
/** A message longer than this is cut whatever it quotes. */
const MAX_MESSAGE = 1000;

/**
 * `text` when it is short; else its start, an ellipsis and its length: `abc… (912,004 characters)`.
 * Never splits a surrogate pair.
 */
export function excerpt(text: string, max: number = MAX_ECHO): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length.toLocaleString('en')} characters)`;
}

/**
 * Caps what a message quotes from the input: every piece between backticks or double quotes
 * longer than `MAX_ECHO` becomes an `excerpt`, and the message as a whole at most 1,000
 * characters. Messages quote keys, values and paths, and a 900 KB key must not be printed whole
 * in every format (and every CI log) that shows the message.
 */
export function capEchoes(message: string): string {
  if (message.length <= MAX_ECHO) return message;
  const capped = message.replace(/`([^`]*)`|"([^"]*)"/g, (whole, tick: string | undefined, quote: string | undefined) => {
    const inner = tick ?? quote ?? '';
    if (inner.length <= MAX_ECHO) return whole;
    const q = tick !== undefined ? '`' : '"';
    return `${q}${excerpt(inner)}${q}`;
  });
  return excerpt(capped, MAX_MESSAGE);
}

/** `capEchoes` on a diagnostic's message, hint and related messages (in place; returns it). */
export function capDiagnostic(d: Diagnostic): Diagnostic {
  d.message = capEchoes(d.message);
  if (d.hint !== undefined) d.hint = capEchoes(d.hint);
  if (d.related !== undefined) for (const r of d.related) r.message = capEchoes(r.message);
  return d;
}
