/**
 * The one sequence of a write (src/store/engine/sequence.ts), which both backends answer: the
 * claim, the markets' lock (sorted, once each), the data version the catalog cache is checked
 * against, the engine's work, the new version and the change log of what it touched, in that
 * order. Answered here by a recording stand-in of a backend with an empty catalog.
 */
import { describe, expect, it } from "vitest";
import { CatalogCache } from "../../../src/store/engine/catalog-cache.js";
import { type SequenceRequest, runSync } from "../../../src/store/engine/io.js";
import { deleteSequence, writeSequence } from "../../../src/store/engine/sequence.js";
import { symbolWrites } from "../../../src/store/write-batches.js";
import { barOpen, rampBars } from "../../kit/index.js";

const NOW = Date.UTC(2026, 10, 20, 13);

/** Runs a sequence against an empty store, recording the kinds of its requests. */
function record<T>(sequence: Generator<SequenceRequest, T, unknown>): { kinds: string[]; locks: string[][]; done: T } {
  const kinds: string[] = [];
  const locks: string[][] = [];
  const done = runSync(sequence, (request) => {
    kinds.push(request.kind);
    switch (request.kind) {
      case "lock":
        locks.push([...request.markets]);
        return undefined;
      case "version":
        return 7;
      case "bump":
        return 8;
      case "catalog":
        return [];
      case "blocks":
        return request.reads.map(() => []);
      default:
        return undefined;
    }
  });
  return { kinds, locks, done };
}

describe("the sequence of a write", () => {
  it("claims, locks each market once in order, reads the version, writes, bumps and logs", () => {
    const writes = symbolWrites([
      { market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 3, barOpen("h1", NOW)) }] },
      { market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "BTCUSDT", bars: rampBars("h1", 3, barOpen("h1", NOW)) }] },
    ]);
    const claim = { account: "acct", now: NOW, perPush: 10, perAccount: 10 };
    const { kinds, locks, done } = record(writeSequence(writes, new CatalogCache(), claim));
    const engine = kinds.slice(3, -2);
    expect(kinds.slice(0, 3)).toEqual(["claim", "lock", "version"]);
    expect(kinds.slice(-2)).toEqual(["bump", "log"]);
    expect(new Set(engine)).toEqual(new Set(["catalog", "write"]));
    expect(locks).toEqual([["CRYPTO", "FOREX"]]);
    expect(done.version).toBe(8);
    expect(done.outcome.written).toBe(6);
  });

  it("without a claim, asks none", () => {
    const writes = symbolWrites([{ market: "FOREX", timeframe: "h1", symbols: [{ symbol: "EURUSD", bars: rampBars("h1", 2, barOpen("h1", NOW)) }] }]);
    expect(record(writeSequence(writes, new CatalogCache())).kinds[0]).toBe("lock");
  });

  it("a delete that removes nothing neither bumps the version nor logs", () => {
    const { kinds, locks, done } = record(deleteSequence(["CRYPTO", "FOREX"], { symbol: "EURUSD" }));
    expect(locks).toEqual([["CRYPTO"], ["FOREX"]]);
    expect(kinds).not.toContain("bump");
    expect(kinds).not.toContain("log");
    expect(done).toEqual({ deleted: 0, touched: [] });
  });
});
