/** The catalog rows a store handle keeps between writes: served only at the version they are of, changed only by committed writes. */
import { describe, expect, it } from "vitest";
import { CatalogCache } from "../../../src/store/engine/catalog-cache.js";
import { type CatalogRow, newTail } from "../../../src/store/blocks.js";
import { emptyChanges } from "../../../src/store/engine/io.js";

function row(symbol: string, lastTime: number, tailBars = 1): CatalogRow {
  const tail = newTail(tailBars).fill(0);
  tail[tailBars - 1] = lastTime;
  return { market: "M", timeframe: "h1", symbol, derived: false, bars: tailBars, firstTime: lastTime, lastTime, sealedBlock: null, tail };
}

/** A write at `version` that read `symbols` (holding `read`) and put `put`, committed at `version + 1`. */
function write(cache: CatalogCache, version: number, symbols: string[], read: CatalogRow[], put: CatalogRow[], committedAt = version + 1): void {
  const w = cache.begin(version);
  w.read("M", symbols, read);
  w.wrote({ ...emptyChanges(), putCatalog: put });
  w.committed(committedAt);
}

describe("catalog cache", () => {
  it("serves a symbol's rows as its last write left them, a symbol without series as none", () => {
    const cache = new CatalogCache();
    write(cache, 4, ["A", "B"], [row("A", 1)], [row("A", 2)]);
    const next = cache.begin(5);
    expect(next.held("M", "A")?.get("h1")?.lastTime).toBe(2);
    expect(next.held("M", "B")?.size).toBe(0);
    expect(next.held("M", "C")).toBeUndefined();
    expect(next.held("N", "A")).toBeUndefined();
  });

  it("drops everything when a write starts at a version another writer made", () => {
    const cache = new CatalogCache();
    write(cache, 4, ["A"], [row("A", 1)], []);
    expect(cache.begin(6).held("M", "A")).toBeUndefined();
    expect(cache.begin(5).held("M", "A")).toBeUndefined();
  });

  it("keeps nothing from a write that committed past the next version (another writer came in between)", () => {
    const cache = new CatalogCache();
    write(cache, 4, ["A"], [row("A", 1)], [row("A", 2)], 6);
    expect(cache.begin(6).held("M", "A")).toBeUndefined();
  });

  it("keeps nothing when two writes of this handle started at the same version (the second to commit sees rows it did not start from)", () => {
    const cache = new CatalogCache();
    write(cache, 4, ["A"], [row("A", 1)], []);
    const first = cache.begin(5);
    const second = cache.begin(5);
    first.read("M", ["B"], []);
    first.committed(6);
    second.committed(7);
    expect(cache.begin(7).held("M", "A")).toBeUndefined();
  });

  it("changes nothing until a write commits; a cleared cache serves nothing", () => {
    const cache = new CatalogCache();
    write(cache, 4, ["A"], [row("A", 1)], []);
    const pending = cache.begin(5);
    pending.wrote({ ...emptyChanges(), putCatalog: [row("A", 9)] });
    expect(cache.begin(5).held("M", "A")?.get("h1")?.lastTime).toBe(1);
    cache.clear();
    expect(cache.begin(5).held("M", "A")).toBeUndefined();
  });

  it("applies a write's deletes before its puts, as the backend does", () => {
    const cache = new CatalogCache();
    write(cache, 4, ["A"], [row("A", 1)], []);
    const w = cache.begin(5);
    w.wrote({ ...emptyChanges(), deleteCatalog: [{ market: "M", timeframe: "h1", symbol: "A" }], putCatalog: [row("A", 3)] });
    w.wrote({ ...emptyChanges(), deleteCatalog: [{ market: "M", timeframe: "d", symbol: "A" }] });
    w.committed(6);
    expect(cache.begin(6).held("M", "A")?.get("h1")?.lastTime).toBe(3);
  });

  it("admits no more symbols past its memory budget, and still serves those it holds", () => {
    const cache = new CatalogCache();
    // Rows of 24-bar tails: about 1.4 KB each, so 60,000 of them pass the 64 MiB budget.
    const first = Array.from({ length: 60_000 }, (_, i) => `S${i}`);
    write(cache, 1, first, first.map((s) => row(s, 1, 24)), []);
    write(cache, 2, ["late"], [row("late", 1)], []);
    const w = cache.begin(3);
    expect(w.held("M", "S0")?.size).toBe(1);
    expect(w.held("M", "late")).toBeUndefined();
  });
});
