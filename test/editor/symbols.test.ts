/** Completion inside `symbols = [...]` offers the query's market's symbols the host gave, those not yet listed. */
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
});
