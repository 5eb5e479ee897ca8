/** `--canary N` or `--canary P%`. */
export type Canary = { count: number } | { percent: number };

/** How many sessions a canary patches out of `total` (at least one, at most all). */
export function canarySize(canary: Canary, total: number): number {
  const n = 'count' in canary ? canary.count : Math.ceil((total * canary.percent) / 100);
  return Math.max(1, Math.min(total, n));
}
