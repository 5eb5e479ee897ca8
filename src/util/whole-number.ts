/**
 * `text` as a whole number from `min` to `max`, written in decimal digits only (no sign, point,
 * exponent or spaces, which `Number()` would accept), else undefined.
 */
export function wholeNumber(text: string, min: number, max: number = Number.MAX_SAFE_INTEGER): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= min && n <= max ? n : undefined;
}
