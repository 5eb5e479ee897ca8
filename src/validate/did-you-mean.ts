/** Suggestions for misspelt keys and values (Levenshtein distance, case-insensitive). */

/**
 * Edit distance with adjacent transpositions counted as one edit (optimal string alignment), so
 * that `gmial` is one edit from `gmail`, as people type.
 */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  let before = new Array<number>(b.length + 1).fill(0);
  let prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    const row = new Array<number>(b.length + 1);
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      row[j] = d;
    }
    before = prev;
    prev = row;
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

/**
 * The one candidate that `input` begins (case-insensitive), for a key cut short
 * (`enable_proxy` for `enable_proxy_execution`), which is too many edits away for `didYouMean`.
 * Undefined when the input is under four characters or begins several candidates.
 */
export function completion(input: string, candidates: readonly string[]): string | undefined {
  if (input.length < 4) return undefined;
  const needle = input.toLowerCase();
  const found = candidates.filter((c) => c.length > needle.length && c.toLowerCase().startsWith(needle));
  return found.length === 1 ? found[0] : undefined;
}
