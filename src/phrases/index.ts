/**
 * The phrase reference: plain-English screener vocabulary mapped to XQL. It is library data,
 * read by the MCP tool `xql_nl_reference`, by `docs/phrases.md` and by anyone composing queries
 * from words. Every `query` is a condition fragment (with the `let` lines it needs) that
 * validates when written after `market` and `timeframe` settings:
 *
 * ```
 * market = "CRYPTO"
 * timeframe = h1
 * let avgv = avg(volume, 20)
 * rsi(14) < 30 and volume > avgv * 2
 * ```
 */
import { MODULES } from "../functions/builtins/index.js";
import { COMPOSITE_PHRASES } from "./entries.js";

export { PHRASE_CATEGORIES, type PhraseCategory } from "../functions/module.js";
import { PHRASE_CATEGORIES, type PhraseCategory } from "../functions/module.js";

/** One phrase and how it is written in XQL. */
export interface PhraseEntry {
  /** The plain-English phrase, e.g. `oversold`. */
  readonly phrase: string;
  /**
   * A condition fragment preceded by any `let` lines it needs, one statement per line, e.g.
   * `let avgv = avg(volume, 20)\nvolume > avgv * 2`.
   */
  readonly query: string;
  /** What the fragment means exactly, and how to adjust it. */
  readonly notes?: string;
  /** Other ways of saying the phrase; the phrase filter matches them too. */
  readonly aliases?: readonly string[];
  /** The group the entry is listed under in `docs/phrases.md`. */
  readonly category: PhraseCategory;
}

/**
 * The whole reference, grouped by category: within a category, the phrases of the built-in
 * modules (in module order) come first, then the composite entries. A module phrase without a
 * category is listed under "Indicators".
 */
export const PHRASES: readonly PhraseEntry[] = (() => {
  const all: PhraseEntry[] = [
    ...MODULES.flatMap((m) =>
      m.phrases.map((p): PhraseEntry => ({
        phrase: p.phrase,
        query: p.query,
        ...(p.notes !== undefined ? { notes: p.notes } : {}),
        ...(p.aliases !== undefined ? { aliases: p.aliases } : {}),
        category: p.category ?? "Indicators",
      })),
    ),
    ...COMPOSITE_PHRASES,
  ];
  const rank = (e: PhraseEntry): number => PHRASE_CATEGORIES.indexOf(e.category);
  return all.map((entry, index) => ({ entry, index })).sort((a, b) => rank(a.entry) - rank(b.entry) || a.index - b.index).map((x) => x.entry);
})();

// Words that carry no screening meaning in a request such as "show me oversold crypto".
const STOP_WORDS = new Set([
  "a", "an", "the", "me", "i", "my", "we", "us", "show", "find", "list", "give", "get", "want",
  "looking", "look", "screen", "screener", "search", "for", "with", "and", "or", "of", "on",
  "in", "at", "to", "by", "from", "its", "it", "is", "are", "be", "that", "which", "who", "whose",
  "where", "what", "any", "all", "some", "than", "has", "have", "having", "there", "this", "these",
  "those", "please", "crypto", "cryptos", "coin", "coins", "token", "tokens", "forex", "fx",
  "pair", "pairs", "stock", "stocks", "symbol", "symbols", "instrument", "instruments", "market",
  "markets", "asset", "assets", "ticker", "tickers",
]);

// Words a request may use for a word the reference uses.
const SYNONYMS: ReadonlyMap<string, string> = new Map([
  ["over", "above"],
  ["under", "below"],
  ["ma", "average"],
  ["avg", "average"],
]);

/** The lower-case words of a text: letters and digits, split on everything else. */
export function phraseWords(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== "");
}

/** Folds simple English endings so "crosses", "crossing" and "cross" meet. */
function stem(word: string): string {
  for (const suffix of ["ing", "es", "ed", "s"]) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length);
  }
  return word;
}

function wordsMatch(asked: string, known: string): boolean {
  if (asked === known) return true;
  const a = stem(asked);
  const k = stem(known);
  if (a === k) return true;
  // A prefix of at least four letters: "consolidat" finds "consolidation", "trend" finds "trending".
  return (a.length >= 4 && k.startsWith(a)) || (k.length >= 4 && a.startsWith(k));
}

/**
 * Entries whose phrase or aliases share a word with `phrase`, compared case-insensitively
 * (with simple plural and -ing endings folded, prefixes of four letters or more, and "over" /
 * "under" read as "above" / "below"). Words
 * that carry no screening meaning ("show", "me", "with", "crypto", ...) are ignored. Entries
 * matching more of the asked words come first; among equals, an entry whose phrase or alias is
 * exactly the request ("golden cross"), then reference order.
 *
 * Without a phrase, or with one made only of such words, every entry is returned.
 *
 * @example
 * ```ts
 * import { findPhrases } from "xql";
 *
 * const [first] = findPhrases("oversold");
 * first?.query; // "rsi(14) < 30"
 * findPhrases("volume spike").map((e) => e.phrase); // entries about volume, best match first
 * ```
 */
export function findPhrases(phrase?: string): PhraseEntry[] {
  const asked = [
    ...new Set(
      phraseWords(phrase ?? "")
        .filter((word) => !STOP_WORDS.has(word))
        .map((word) => SYNONYMS.get(word) ?? word),
    ),
  ];
  if (asked.length === 0) return [...PHRASES];
  const whole = phraseWords(phrase ?? "").join(" ");
  const scored: { entry: PhraseEntry; score: number; exact: number; index: number }[] = [];
  PHRASES.forEach((entry, index) => {
    const names = [entry.phrase, ...(entry.aliases ?? [])];
    const known = names.flatMap(phraseWords);
    const score = asked.filter((word) => known.some((k) => wordsMatch(word, k))).length;
    const exact = names.some((name) => phraseWords(name).join(" ") === whole) ? 1 : 0;
    if (score > 0) scored.push({ entry, score, exact, index });
  });
  scored.sort((x, y) => y.score - x.score || y.exact - x.exact || x.index - y.index);
  return scored.map((s) => s.entry);
}
