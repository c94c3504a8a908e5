import { describe, expect, it } from "vitest";
import { compile, PHRASES as EXPORTED_PHRASES, findPhrases as exportedFindPhrases, syntheticUniverse, validate } from "../../src/index.js";
import { FUNCTIONS } from "../../src/functions/registry.js";
import { PHRASE_CATEGORIES, PHRASES, findPhrases } from "../../src/phrases/index.js";
import { renderPhrasesMarkdown } from "../../scripts/gen/phrases.js";
import { TIMEFRAMES } from "../../src/types.js";

const fullQuery = (fragment: string, timeframe = "h1", market = "CRYPTO"): string =>
  `market = "${market}"\ntimeframe = ${timeframe}\n${fragment}`;

const lines = (query: string): string[] => query.split("\n");
const letLines = (query: string): string[] => lines(query).slice(0, -1);
const condition = (query: string): string => lines(query).at(-1)!;

describe("phrase reference data", () => {
  it("is exported by the library barrel", () => {
    expect(EXPORTED_PHRASES).toBe(PHRASES);
    expect(exportedFindPhrases).toBe(findPhrases);
  });

  it("has at least 40 entries with unique phrases", () => {
    expect(PHRASES.length).toBeGreaterThanOrEqual(40);
    expect(new Set(PHRASES.map((e) => e.phrase.toLowerCase())).size).toBe(PHRASES.length);
  });

  it("contains the spec's three illustrations exactly", () => {
    const byPhrase = (phrase: string) => PHRASES.find((e) => e.phrase === phrase)?.query;
    expect(byPhrase("oversold")).toBe("rsi(14) < 30");
    expect(byPhrase("volume more than 2x its average")).toBe("let avgv = avg(volume, 20)\nvolume > avgv * 2");
    expect(byPhrase("new 52-week high")).toBe("close >= w::highest(high, 52)");
  });

  it("covers the usual screener vocabulary", () => {
    const phrases = PHRASES.map((e) => e.phrase.toLowerCase()).join("\n");
    for (const term of [
      "overbought",
      "golden cross",
      "death cross",
      "above the 200-day",
      "below the 200-day",
      "macd",
      "bollinger",
      "gap up",
      "gap down",
      "range",
      "uptrend",
      "downtrend",
      "pullback",
      "4-hour",
      "daily",
      "weekly",
    ]) {
      expect(phrases, term).toContain(term);
    }
  });

  it("writes each entry as let lines then one condition, with notes and a known category", () => {
    for (const entry of PHRASES) {
      for (const line of letLines(entry.query)) expect(line, entry.phrase).toMatch(/^let [a-z_][a-z0-9_]* = \S/);
      expect(condition(entry.query), entry.phrase).not.toMatch(/^(let|market|timeframe|columns|sort|limit)\b/);
      expect(entry.query, entry.phrase).toBe(entry.query.trim());
      expect(entry.notes?.length ?? 0, entry.phrase).toBeGreaterThan(10);
      expect(PHRASE_CATEGORIES, entry.phrase).toContain(entry.category);
    }
    // "Indicators" is where module phrases without a category of their own go; it may be empty.
    for (const category of PHRASE_CATEGORIES.filter((c) => c !== "Indicators")) {
      expect(PHRASES.some((e) => e.category === category), category).toBe(true);
    }
  });

  it("uses every function of the registry somewhere", () => {
    for (const fn of FUNCTIONS.values()) {
      // A zero-parameter built-in is written as a bare name (`obv`), the others as calls.
      const use = new RegExp(fn.params.length === 0 ? `\\b${fn.name}\\b(?!\\s*\\()` : `\\b${fn.name}\\(`);
      expect(PHRASES.some((e) => use.test(e.query)), fn.name).toBe(true);
    }
  });

  it("never reuses a let name, so any entries combine", () => {
    const names = PHRASES.flatMap((e) => letLines(e.query).map((line) => line.split(/\s+/)[1]));
    expect(new Set(names).size).toBe(names.length);
  });
});

describe("every phrase entry as a query", () => {
  it.each(PHRASES.map((e) => [e.phrase, e.query] as const))("%s validates after market and timeframe", (_phrase, query) => {
    expect(validate(fullQuery(query))).toEqual({ valid: true });
  });

  it("validates on every timeframe and both markets", () => {
    for (const timeframe of TIMEFRAMES) {
      for (const market of ["CRYPTO", "FOREX"]) {
        for (const entry of PHRASES) {
          expect(validate(fullQuery(entry.query, timeframe, market)), `${entry.phrase} on ${market} ${timeframe}`).toEqual({
            valid: true,
          });
        }
      }
    }
  });

  it("validates with all entries combined in one query", () => {
    const lets = PHRASES.flatMap((e) => letLines(e.query));
    const conditions = PHRASES.map((e) => `(${condition(e.query)})`);
    // Valid together; their cost adds up (every recursive indicator counted over its warm-up
    // fetch) far beyond one screen's budget, which is not what this checks.
    expect(validate(fullQuery(`${lets.join("\n")}\n${conditions.join(" or ")}`), { costBudget: Number.MAX_SAFE_INTEGER })).toEqual({ valid: true });
  });

  it("runs every entry over a synthetic CRYPTO universe with hourly, 4-hour, daily and weekly bars", () => {
    const universe = syntheticUniverse({
      market: "CRYPTO",
      symbols: 12,
      timeframes: ["h1", "h4", "d", "w"],
      bars: 420,
      seed: 5,
    });
    const symbols = new Set(universe.map((i) => i.symbol));
    let entriesWithMatches = 0;
    for (const entry of PHRASES) {
      const { results } = compile(fullQuery(`columns = [close]\n${entry.query}`)).run(universe);
      expect(Array.isArray(results), entry.phrase).toBe(true);
      for (const row of results) {
        expect(symbols.has(row.symbol), entry.phrase).toBe(true);
        expect(Object.keys(row.columns)).toEqual(["close"]);
      }
      if (results.length > 0) entriesWithMatches++;
    }
    // RSI above 50 and RSI below 50 split the universe between them, so neither run is vacuous.
    const above = compile(fullQuery(PHRASES.find((e) => e.phrase.startsWith("bullish momentum"))!.query)).run(universe);
    const below = compile(fullQuery(PHRASES.find((e) => e.phrase.startsWith("bearish momentum"))!.query)).run(universe);
    expect(above.results.length + below.results.length).toBe(symbols.size);
    expect(entriesWithMatches).toBeGreaterThanOrEqual(10);
  });
});

describe("findPhrases", () => {
  const phrasesOf = (text?: string): string[] => findPhrases(text).map((e) => e.phrase);

  it("returns every entry in reference order without a phrase, or with a blank one", () => {
    expect(findPhrases()).toEqual([...PHRASES]);
    expect(findPhrases("")).toEqual([...PHRASES]);
    expect(findPhrases("  show me  ")).toEqual([...PHRASES]);
  });

  it("matches case-insensitively", () => {
    expect(phrasesOf("OVERSOLD")[0]).toBe("oversold");
    expect(phrasesOf("Golden Cross")[0]).toBe("golden cross");
    expect(phrasesOf("Death CROSS")[0]).toBe("death cross");
  });

  it("matches whole words and word stems, not substrings", () => {
    // "sold" is not inside "oversold" (it is the stem of "soldiers", which may match).
    expect(findPhrases("sold").filter((e) => /oversold/i.test(`${e.phrase} ${e.query}`))).toEqual([]);
    expect(findPhrases("zzzz")).toEqual([]);
    expect(phrasesOf("crossing")).toContain("golden cross");
    expect(phrasesOf("gaps")).toContain("gap up");
  });

  it("matches an entry's other wordings", () => {
    expect(phrasesOf("volume spike")[0]).toBe("volume more than 2x its average");
    expect(phrasesOf("buy the dip")[0]).toBe("oversold dip in a daily uptrend");
    expect(phrasesOf("doji")[0]).toBe("doji (tiny body)");
  });

  it("ranks entries that match more words first", () => {
    expect(phrasesOf("new 52-week high")[0]).toBe("new 52-week high");
    expect(phrasesOf("above the 200-day average")[0]).toBe("above the 200-day moving average");
    expect(phrasesOf("over the 200 day")[0]).toBe("above the 200-day moving average");
  });

  it("picks the parts of an assistant's request out of filler words", () => {
    const found = findPhrases("show me oversold crypto with a volume spike").map((e) => e.query);
    expect(found).toContain("rsi(14) < 30");
    expect(found).toContain("let avgv = avg(volume, 20)\nvolume > avgv * 2");
    expect(found[0]).toBe("let avgv = avg(volume, 20)\nvolume > avgv * 2");
  });
});

describe("docs/phrases.md", () => {
  it("lists every entry", () => {
    const markdown = renderPhrasesMarkdown();
    for (const entry of PHRASES) expect(markdown).toContain(`| ${entry.phrase}`);
  });
});
