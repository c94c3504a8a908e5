/**
 * Watchlists in the library (decisions §13): a screen over `symbols = [...]` (or a resolved
 * `watchlist = "name"`) equals the whole market's screen filtered to the list, for run and
 * history; listed symbols the universe lacks count as considered and as no data.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compile, explain, overSymbols, validate } from "../../src/api.js";
import { parse } from "../../src/ast/lower.js";
import { printQuery } from "../../src/ast/print.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";

const universe = syntheticUniverse({ market: "FOREX", symbols: 12, timeframes: ["h1"], bars: 400, seed: 7 });
const present = universe.map((i) => i.symbol);
const absent = ["NOPE1", "ZZZ", "EURUSDX"];
const BODY = "columns = [close, rsi(14)]\nsort = rsi(14) desc\nrsi(14) > 45";
const withList = (list: readonly string[]): string => `market = "FOREX"\ntimeframe = h1\nsymbols = [${list.map((s) => JSON.stringify(s)).join(", ")}]\n${BODY}`;
const whole = compile(`market = "FOREX"\ntimeframe = h1\n${BODY}`);
const lists = fc.uniqueArray(fc.constantFrom(...present, ...absent), { minLength: 1, maxLength: present.length + absent.length });

describe("symbols = [...]", () => {
  it("run over a list is the whole market's run filtered to it; meta counts the list", () => {
    const all = whole.run(universe);
    fc.assert(
      fc.property(lists, (list) => {
        const got = compile(withList(list)).run(universe);
        const wanted = new Set(list);
        expect(got.results).toEqual(all.results.filter((r) => wanted.has(r.symbol)));
        const missing = list.filter((s) => !present.includes(s)).length;
        expect(got.meta.instruments).toBe(list.length);
        expect(got.meta.skipped.noData).toBe(missing);
        expect(got.meta.matched).toBe(got.results.length);
      }),
      { numRuns: 40 },
    );
  });

  it("history over a list is the whole market's history filtered to it", () => {
    const all = whole.history(universe, { bars: 30 });
    fc.assert(
      fc.property(lists.filter((l) => l.some((s) => present.includes(s))), (list) => {
        const got = compile(withList(list)).history(universe, { bars: 30 });
        const wanted = new Set(list);
        expect(got.matches).toEqual(all.matches.filter((m) => wanted.has(m.symbol)));
        expect(got.meta.instruments).toBe(list.length);
        expect(got.meta.skipped.noData).toBe(list.filter((s) => !present.includes(s)).length);
      }),
      { numRuns: 15 },
    );
  });

  it("explains the list and prints it back", () => {
    const text = withList(["EURUSD", 'A"B']);
    const result = explain(text);
    expect("explanation" in result && result.explanation).toBe("Matches when rsi(14) > 45, over 2 symbols. Returns close, rsi(14), sorted by rsi(14) descending.");
    const printed = printQuery(parse(text));
    expect(printed).toContain('symbols = ["EURUSD", "A\\"B"]');
    expect(printQuery(parse(printed))).toBe(printed);
  });

  it("rejects an empty list, more than 1,000, duplicates and blanks at their place", () => {
    const at = (text: string) => validate(`market = "FOREX"\ntimeframe = h1\n${text}\ntrue`);
    expect(at("symbols = []")).toEqual({
      valid: false,
      error: { type: "syntax", message: "A symbols list holds 1 to 1000 symbols, got 0", position: { line: 3, column: 11, offset: 42 } },
    });
    const many = Array.from({ length: 1001 }, (_, i) => `"S${i}"`).join(",");
    expect(at(`symbols = [${many}]`)).toMatchObject({ valid: false, error: { message: "A symbols list holds 1 to 1000 symbols, got 1001" } });
    expect(at(`symbols = [${Array.from({ length: 1000 }, (_, i) => `"S${i}"`).join(",")}]`)).toEqual({ valid: true });
    expect(at('symbols = ["EURUSD", "EURUSD"]')).toMatchObject({ valid: false, error: { message: "Duplicate symbol 'EURUSD'", position: { offset: 53 } } });
    expect(at('symbols = [""]')).toMatchObject({ valid: false, error: { message: "A symbol may not be empty or start or end with a space" } });
    expect(at('symbols = ["A"]\nsymbols = ["B"]')).toMatchObject({ valid: false, error: { message: "Duplicate setting 'symbols'" } });
  });
});

describe('watchlist = "name"', () => {
  const text = `market = "FOREX"\ntimeframe = h1\nwatchlist = "majors"\n${BODY}`;

  it("validates and explains without lists; run needs the list resolved", () => {
    expect(validate(text)).toEqual({ valid: true });
    const result = explain(text);
    expect("explanation" in result && result.explanation).toContain(", over the watchlist 'majors'.");
    expect(() => compile(text).run(universe)).toThrow("Unknown watchlist 'majors'");
  });

  it("resolves through the watchlists option, or is the plan error naming it", () => {
    const list = [present[0]!, present[3]!, "NOPE1"];
    const got = compile(text, { watchlists: { majors: list } }).run(universe);
    expect(got).toEqual(compile(withList(list)).run(universe));
    expect(overSymbols(compile(text), list).run(universe)).toEqual(got);
    expect(validate(text, { watchlists: { minors: ["EURUSD"] } })).toEqual({ valid: false, error: { type: "plan", message: "Unknown watchlist 'majors'" } });
  });

  it("rejects a bad name, and symbols with a watchlist", () => {
    expect(validate('market = "FOREX"\ntimeframe = h1\nwatchlist = "My List"\ntrue')).toMatchObject({
      valid: false,
      error: { message: "A watchlist name is 1 to 40 characters of a-z, 0-9, _ and -, got 'My List'", position: { line: 3, column: 13 } },
    });
    expect(validate('market = "FOREX"\ntimeframe = h1\nsymbols = ["EURUSD"]\nwatchlist = "majors"\ntrue')).toMatchObject({
      valid: false,
      error: { type: "syntax", message: "A query screens either a symbols list or a watchlist, not both", position: { line: 4, column: 1 } },
    });
  });
});
