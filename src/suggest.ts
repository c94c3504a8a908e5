import { errorMessage } from "./errors.js";

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

/** Units people write after a count (`15m`, `4h`, `1d`), as XQL names the timeframe's letter. */
const COUNT_UNITS: Readonly<Record<string, "m" | "h" | "d" | "w">> = {
  m: "m", min: "m", mins: "m", minute: "m", minutes: "m",
  h: "h", hr: "h", hrs: "h", hour: "h", hours: "h",
  d: "d", day: "d", days: "d",
  w: "w", wk: "w", week: "w", weeks: "w",
};

/** Words for a timeframe, as chart tools and people spell them. */
const TIMEFRAME_WORDS: Readonly<Record<string, string>> = {
  daily: "d", day: "d", weekly: "w", week: "w", hourly: "h1", hour: "h1",
};

/**
 * The timeframe meant by a common spelling of it: `1h` → `h1`, `15m` → `m15`, `4H` → `h4`,
 * `1d`/`daily`/`D` → `d`, `1w`/`weekly` → `w`, `H1` → `h1`; else the closest by edit distance.
 */
export function intendedTimeframe(written: string, timeframes: readonly string[]): string | undefined {
  const lower = written.toLowerCase();
  if (timeframes.includes(lower)) return lower;
  const word = TIMEFRAME_WORDS[lower];
  if (word !== undefined && timeframes.includes(word)) return word;
  // A bare count is minutes, as chart tools write intervals (`60`, `240`).
  const counted = /^(\d+)\s*([a-z]*)$/.exec(lower.replace(/^(\d+)$/, "$1m"));
  if (counted) {
    const count = Number(counted[1]);
    const unit = COUNT_UNITS[counted[2]!];
    // A day or a week is written without its count (`d`, not `d1`); 60m is h1, 240m is h4.
    const candidates =
      unit === "d" || unit === "w" ? (count === 1 ? [unit] : [])
      : unit === "m" && count % 60 === 0 ? [`h${count / 60}`, `m${count}`]
      : unit !== undefined ? [`${unit}${count}`]
      : [];
    return candidates.find((c) => timeframes.includes(c));
  }
  const swapped = /^([a-z])(\d+)$/.exec(lower);
  if (swapped && (swapped[1] === "d" || swapped[1] === "w") && swapped[2] === "1") return swapped[1];
  return closest(written, timeframes);
}

/**
 * The parameters of `Unknown timeframe '1h', did you mean 'h1'? Timeframes are m1 m5 m15 m30 h1
 * h4 d w`, for any timeframe XQL does not know, in `timeframe =` and as a `tf::` prefix (shown
 * with its `::`).
 */
export function unknownTimeframe(
  written: string,
  timeframes: readonly string[],
  asPrefix = false,
): { timeframe: string; suggestion?: string; known: readonly string[] } {
  const meant = intendedTimeframe(written, timeframes);
  const timeframe = asPrefix ? `${written}::` : written;
  if (meant === undefined) return { timeframe, known: timeframes };
  return { timeframe, suggestion: asPrefix ? `${meant}::` : meant, known: timeframes };
}

/** The message of {@link unknownTimeframe}, for callers outside a query (a command line option). */
export function unknownTimeframeMessage(written: string, timeframes: readonly string[], asPrefix = false): string {
  return errorMessage("unknown-timeframe", unknownTimeframe(written, timeframes, asPrefix));
}
