/**
 * Completion inside `symbols = [...]` offers the query's market's symbols the host gave, those
 * not yet listed; inside `watchlist = "..."` the saved lists' names. Each such position names
 * what it completes from (`asks`), so a host that reads its store lazily knows what to read.
 */
import { describe, expect, it } from "vitest";
import { complete } from "../../src/editor/complete.js";

const symbols = { FOREX: ["EURUSD", "GBPUSD", "USDJPY"], CRYPTO: ["BTCUSDT"] };
const labels = (text: string, at = text.length) => complete(text, at, { symbols }).items.map((i) => i.label);

describe("completion of a market's symbols", () => {
  it("offers quoted symbols after [ and a comma, leaving out those listed", () => {
    expect(labels('market = "FOREX"\ntimeframe = h1\nsymbols = [')).toEqual(["EURUSD", "GBPUSD", "USDJPY"]);
    const text = 'market = "forex"\ntimeframe = h1\nsymbols = ["EURUSD", ';
    const after = complete(text, text.length, { symbols });
    expect(after.items.map((i) => [i.label, i.template])).toEqual([["GBPUSD", ['"GBPUSD"']], ["USDJPY", ['"USDJPY"']]]);
  });

  it("completes inside a string, replacing its contents, for the query's market", () => {
    const text = 'market = "CRYPTO"\ntimeframe = h1\nsymbols = ["BT"]\ntrue';
    const at = text.indexOf("BT") + 2;
    const got = complete(text, at, { symbols });
    expect(got.items.map((i) => i.label)).toEqual(["BTCUSDT"]);
    expect(text.slice(got.from, got.to)).toBe("BT");
  });

  it("offers the settings symbols and watchlist at a statement's start, nothing without a host's list", () => {
    const start = labels('market = "FOREX"\ntimeframe = h1\n');
    expect(start).toContain("symbols");
    expect(start).toContain("watchlist");
    expect(complete('market = "FOREX"\nsymbols = [', 28).items).toEqual([]);
  });

  it("asks the host for the query's market's symbols, by the configured spelling, given or not", () => {
    const text = 'market = "forex"\ntimeframe = h1\nsymbols = [';
    expect(complete(text, text.length).asks).toEqual({ kind: "symbols", market: "FOREX" });
    expect(complete(text, text.length, { symbols }).asks).toEqual({ kind: "symbols", market: "FOREX" });
    // An unknown market: nothing to offer and nothing to ask for.
    const unknown = 'market = "NYSE"\ntimeframe = h1\nsymbols = [';
    expect(complete(unknown, unknown.length, { symbols })).toMatchObject({ items: [] });
    expect(complete(unknown, unknown.length).asks).toBeUndefined();
    // Elsewhere nothing is asked.
    expect(complete(text, 3).asks).toBeUndefined();
    expect(complete('market = "FOREX"\ntimeframe = h1\nclose > 1', 34).asks).toBeUndefined();
  });

  it("completes a still open string up to the cursor, signs included", () => {
    const text = 'market = "FOREX"\ntimeframe = h1\nsymbols = ["US';
    const got = complete(text, text.length, { symbols });
    // Unquoted (the quote is written), every symbol of the market: the client filters by what is typed.
    expect(got.items.map((i) => [i.label, i.template])).toEqual([["EURUSD", ["EURUSD"]], ["GBPUSD", ["GBPUSD"]], ["USDJPY", ["USDJPY"]]]);
    expect(text.slice(got.from, got.to)).toBe("US");
  });
});

describe("completion of the saved watchlists' names", () => {
  const watchlists = ["majors", "my-crypto"];
  it("offers quoted names after `watchlist =` and bare names inside the quotes, replacing what is typed", () => {
    const after = 'market = "FOREX"\ntimeframe = h1\nwatchlist = ';
    const quoted = complete(after, after.length, { watchlists });
    expect(quoted.items.map((i) => [i.label, i.kind, i.template])).toEqual([
      ['"majors"', "watchlist", ['"majors"']],
      ['"my-crypto"', "watchlist", ['"my-crypto"']],
    ]);
    expect(quoted.asks).toEqual({ kind: "watchlists" });

    const closed = 'market = "FOREX"\ntimeframe = h1\nwatchlist = "ma"\ntrue';
    const inside = complete(closed, closed.indexOf('"ma"') + 2, { watchlists });
    expect(inside.items.map((i) => i.label)).toEqual(["majors", "my-crypto"]);
    expect(closed.slice(inside.from, inside.to)).toBe("ma");

    const open = 'market = "FOREX"\ntimeframe = h1\nwatchlist = "my-cr';
    const typing = complete(open, open.length, { watchlists });
    expect(typing.items.map((i) => i.template)).toEqual([["majors"], ["my-crypto"]]);
    expect(open.slice(typing.from, typing.to)).toBe("my-cr");
    expect(typing.asks).toEqual({ kind: "watchlists" });
  });

  it("asks for the lists without any given, and goes on to a new statement after the name", () => {
    const after = 'market = "FOREX"\ntimeframe = h1\nwatchlist = ';
    expect(complete(after, after.length)).toMatchObject({ items: [], asks: { kind: "watchlists" } });
    const next = 'market = "FOREX"\ntimeframe = h1\nwatchlist = "majors" ';
    const labels = complete(next, next.length, { watchlists }).items.map((i) => i.label);
    expect(labels).toContain("columns");
    expect(labels).not.toContain("watchlist");
  });
});
