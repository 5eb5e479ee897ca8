/** Suggestions for misspelt keys and values (Levenshtein distance, case-insensitive). */

export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}

/**
 * The closest candidate to `input`, or undefined when nothing is close enough: at most a third of
 * the longer word may differ (so `enabel` finds `enable`, but `foo` does not find `tags`).
 */
export function didYouMean(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    // The distance is at least the difference in length; past the budget it cannot be a suggestion,
    // and a 900 KB key must not cost a 900 KB x 20 table per candidate.
    if (Math.abs(needle.length - candidate.length) > Math.max(1, Math.floor(Math.max(needle.length, candidate.length) / 3))) continue;
    const distance = editDistance(needle, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const budget = Math.max(1, Math.floor(Math.max(input.length, best.length) / 3));
  return bestDistance <= budget ? best : undefined;
}
