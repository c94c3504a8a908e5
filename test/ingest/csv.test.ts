import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { CsvImportError, isAlignedOpen, parseBarsCsv, parseTime } from "../../src/ingest/csv.js";
import { importBarsCsv } from "../../src/ingest/importer.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir } from "../kit/index.js";

const H = "symbol,time,open,high,low,close,volume";
const T0 = Date.UTC(2026, 0, 5, 10); // a Monday, 10:00 UTC

function errorOf(fn: () => unknown): CsvImportError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CsvImportError) return error;
    throw error;
  }
  throw new Error("expected a CsvImportError");
}

const parse = (text: string, timeframe = "h1") => parseBarsCsv(text, { market: "forex", timeframe });

describe("parseBarsCsv", () => {
  it("reads rows with and without a header, upper-cases the market and sorts each symbol by time", () => {
    const body = [`EURUSD,${T0 + 3_600_000},1.1,1.2,1.0,1.15,10`, `EURUSD,${T0},1,1.1,0.9,1.05,5`, `GBPUSD,${T0},2,2,2,2,0`];
    for (const text of [[H, ...body].join("\n"), body.join("\r\n") + "\r\n"]) {
      const batch = parse(text);
      expect(batch.market).toBe("FOREX");
      expect(batch.timeframe).toBe("h1");
      expect(batch.symbols.map((s) => s.symbol)).toEqual(["EURUSD", "GBPUSD"]);
      expect(Array.from(batch.symbols[0]!.bars.time)).toEqual([T0, T0 + 3_600_000]);
      expect(Array.from(batch.symbols[0]!.bars.close)).toEqual([1.05, 1.15]);
    }
  });

  it("accepts ISO 8601 times, with Z, an offset or none (UTC), a BOM, blank lines and quoted fields", () => {
    const batch = parse(
      [
        `\uFEFF${H}`,
        "",
        `"EURUSD",2026-01-05T10:00:00Z,1,1,1,1,1`,
        `EURUSD,2026-01-05T13:00:00+02:00,1,1,1,1,1`,
        `EURUSD,2026-01-05 12:00,1,1,1,1,1`,
        "   ",
      ].join("\n"),
    );
    expect(Array.from(batch.symbols[0]!.bars.time)).toEqual([T0, T0 + 3_600_000, T0 + 7_200_000]);
  });

  it("names the line of a row with the wrong number of fields", () => {
    const e = errorOf(() => parse([H, `EURUSD,${T0},1,1,1,1,1`, `EURUSD,${T0 + 3_600_000},1,1,1,1`].join("\n")));
    expect(e.line).toBe(3);
    expect(e.message).toBe("line 3: expected 7 fields (symbol,time,open,high,low,close,volume), found 6");
  });

  it.each([
    [`EURUSD,${T0},abc,1,1,1,1`, /open 'abc' is not a finite number/],
    [`EURUSD,${T0},1,Infinity,1,1,1`, /high 'Infinity' is not a finite number/],
    [`EURUSD,${T0},1,1,1,,1`, /close '' is not a finite number/],
    [`EURUSD,${T0},1,0.5,0.4,1,1`, /high 0.5 is below open, close or low/],
    [`EURUSD,${T0},1,2,1.5,1,1`, /low 1.5 is above open or close/],
    [`EURUSD,${T0},1,1,1,1,-3`, /volume -3 is negative/],
    [`EURUSD,${T0 + 60_000},1,1,1,1,1`, /is not the open time of a h1 bar/],
    [`EURUSD,2026-02-30T00:00:00Z,1,1,1,1,1`, /not a valid date/],
    [`EURUSD,yesterday,1,1,1,1,1`, /neither milliseconds since the epoch nor ISO 8601/],
    [`EUR USD,${T0},1,1,1,1,1`, /invalid symbol/],
    [`"EURUSD,${T0},1,1,1,1,1`, /unterminated quoted field/],
  ])("rejects %s with its line number", (row, message) => {
    const e = errorOf(() => parse([H, `GBPUSD,${T0},1,1,1,1,1`, row].join("\n")));
    expect(e.line).toBe(3);
    expect(e.message).toMatch(message);
  });

  it("rejects a header with other columns", () => {
    const e = errorOf(() => parse(["symbol,date,open,high,low,close,vol", `EURUSD,${T0},1,1,1,1,1`].join("\n")));
    expect(e.line).toBe(1);
    expect(e.message).toMatch(/expected the header symbol,time,open,high,low,close,volume/);
  });

  it("rejects a bar given twice, naming both lines", () => {
    const e = errorOf(() => parse([`EURUSD,${T0},1,1,1,1,1`, `GBPUSD,${T0},1,1,1,1,1`, `EURUSD,2026-01-05T10:00:00Z,1,1,1,1,1`].join("\n")));
    expect(e.line).toBe(3);
    expect(e.message).toMatch(/duplicate bar for EURUSD at 2026-01-05T10:00:00.000Z \(first on line 1\)/);
  });

  it("rejects an empty file, an unknown timeframe and an invalid market", () => {
    expect(() => parse(`${H}\n\n`)).toThrow("the file holds no bars");
    expect(() => parseBarsCsv(`EURUSD,${T0},1,1,1,1,1`, { market: "FOREX", timeframe: "h2" })).toThrow(/Unknown timeframe 'h2'/);
    expect(() => parseBarsCsv(`EURUSD,${T0},1,1,1,1,1`, { market: "FX MAJORS", timeframe: "h1" })).toThrow(/Invalid market name/);
  });

  it("aligns weekly bars to Monday and daily bars to midnight UTC", () => {
    expect(isAlignedOpen("w", Date.UTC(2026, 0, 5))).toBe(true);
    expect(isAlignedOpen("w", Date.UTC(2026, 0, 4))).toBe(false);
    expect(isAlignedOpen("d", Date.UTC(2026, 0, 4))).toBe(true);
    expect(isAlignedOpen("d", Date.UTC(2026, 0, 4, 1))).toBe(false);
    expect(isAlignedOpen("w", Date.UTC(1969, 11, 29))).toBe(true);
    expect(parseTime("2026-01-05")).toBe(Date.UTC(2026, 0, 5));
    expect(parseTime("2026-01-05T00:00:00.5-01:30")).toBe(Date.UTC(2026, 0, 5, 1, 30, 0, 500));
  });
});

describe("import bounds", () => {
  const NOW = Date.UTC(2026, 10, 20, 13, 25);
  const bounded = (row: string, timeframe = "h1") =>
    parseBarsCsv([H, `GBPUSD,${T0},1,1,1,1,1`, row].join("\n"), { market: "forex", timeframe, now: NOW });

  it.each([
    // Year 275,760: the last instant a Date can hold; it used to become the symbol's latest bar forever.
    [`EURUSD,8640000000000000,1,1,1,1,1`, /^line 3: time '8640000000000000' is in the future: bars may open at most 2 days after now \(2026-11-22T13:25:00.000Z\)$/],
    // Past what a Date can hold and off the grid: it used to fail with a bare "Invalid time value".
    [`EURUSD,9007199254740991,1,1,1,1,1`, /^line 3: time '9007199254740991' is in the future/],
    [`EURUSD,${NOW + 3 * 86_400_000},1,1,1,1,1`, /is in the future/],
    [`EURUSD,+275760-09-13T00:00:00Z,1,1,1,1,1`, /neither milliseconds since the epoch nor ISO 8601/],
    [`EURUSD,-3600000,1,1,1,1,1`, /^line 3: time '-3600000' is before 1970-01-01T00:00:00.000Z$/],
    [`EURUSD,${T0},0,1,0,1,1`, /^line 3: open 0 is out of range: prices are between 1e-12 and 1e12$/],
    [`EURUSD,${T0},-1,1,-2,1,1`, /open -1 is out of range/],
    [`EURUSD,${T0},1e-320,1,1e-320,1,1`, /open 1e-320 is out of range/],
    [`EURUSD,${T0},1,2e12,1,1,1`, /high 2e12 is out of range/],
    [`EURUSD,${T0},1,1,1,1,1e19`, /^line 3: volume 1e19 is out of range: at most 1e18$/],
  ])("rejects %s by line", (row, message) => {
    const e = errorOf(() => bounded(row));
    expect(e.line).toBe(3);
    expect(e.message).toMatch(message);
  });

  it("accepts bars up to 2 days ahead on the grid, and any time after 1970", () => {
    const ahead = Math.floor((NOW + 2 * 86_400_000) / 3_600_000) * 3_600_000;
    const batch = bounded(`EURUSD,${ahead},1e-12,1e12,1e-12,1,1e18`);
    expect(batch.symbols.find((s) => s.symbol === "EURUSD")!.bars.time[0]).toBe(ahead);
    expect(bounded(`EURUSD,0,1,1,1,1,1`).symbols).toHaveLength(2);
  });
});

describe("importBarsCsv", () => {
  let dir: string;
  let cleanup: () => void;
  let store: SqliteStore;
  beforeEach(() => {
    ({ dir, cleanup } = tempDir());
    store = new SqliteStore(join(dir, "xql.db"));
  });
  afterEach(async () => {
    await store.close();
    cleanup();
  });

  it("imports a file idempotently and reports progress", async () => {
    const file = join(dir, "bars.csv");
    const rows = Array.from({ length: 1000 }, (_, i) => `SYM${i % 10},${T0 + Math.floor(i / 10) * 3_600_000},1,2,0.5,1.5,${i}`);
    writeFileSync(file, [H, ...rows].join("\n") + "\n");
    const writes: number[] = [];
    const first = await importBarsCsv(store, file, { market: "crypto", timeframe: "h1", onWrite: (done) => writes.push(done) });
    expect(first).toEqual({ bars: 1000, symbols: 10, market: "CRYPTO", timeframe: "h1" });
    expect(writes.at(-1)).toBe(1000);
    const version = await store.dataVersion();
    await importBarsCsv(store, file, { market: "CRYPTO", timeframe: "h1" });
    expect(await store.barCount()).toBe(1000);
    expect(await store.dataVersion()).not.toBe(version);
    expect((await store.series("CRYPTO")).filter((s) => s.timeframe === "h1").map((s) => s.bars)).toEqual(Array(10).fill(100));
  });

  it("writes nothing when a row near the end is bad", async () => {
    const file = join(dir, "bad.csv");
    const rows = Array.from({ length: 500 }, (_, i) => `SYM,${T0 + i * 3_600_000},1,2,0.5,1.5,1`);
    rows.push(`SYM,${T0 + 500 * 3_600_000},1,2,0.5,1.5,-1`);
    writeFileSync(file, rows.join("\n"));
    await expect(importBarsCsv(store, file, { market: "FOREX", timeframe: "h1" })).rejects.toThrow("line 501: volume -1 is negative");
    expect(await store.barCount()).toBe(0);
  });
});
