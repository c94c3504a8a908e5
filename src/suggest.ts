/**
 * "Did you mean" by edit distance: the closest candidate within distance 2. Ties go to the
 * candidate closest when case is ignored (`Sma` means `sma`, not `ema`), then alphabetically.
 */

/** Levenshtein distance, stopping early once every path exceeds `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = new Array<number>(b.length + 1);
  let current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length]!;
}

export const MAX_SUGGESTION_DISTANCE = 2;

/** The closest of `candidates` to `name` within distance 2, or undefined. */
export function closest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = MAX_SUGGESTION_DISTANCE + 1;
  let bestFolded = Infinity;
  const lower = name.toLowerCase();
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const d = editDistance(name, candidate, MAX_SUGGESTION_DISTANCE);
    if (d > bestDistance || d > MAX_SUGGESTION_DISTANCE) continue;
    const folded = editDistance(lower, candidate.toLowerCase(), MAX_SUGGESTION_DISTANCE);
    if (d < bestDistance || folded < bestFolded || (folded === bestFolded && best !== undefined && candidate < best)) {
      best = candidate;
      bestDistance = d;
      bestFolded = folded;
    }
  }
  return bestDistance <= MAX_SUGGESTION_DISTANCE ? best : undefined;
}

/** `<base>, did you mean '<x>'?` when there is a close candidate, else `<base>`. */
export function withSuggestion(base: string, name: string, candidates: Iterable<string>): string {
  const suggestion = closest(name, candidates);
  return suggestion === undefined ? base : `${base}, did you mean '${suggestion}'?`;
}
