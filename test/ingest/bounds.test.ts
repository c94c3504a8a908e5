/**
 * Import bounds (issue 24.8) and the reader under them: a line without end and a gzip of
 * newlines stop at once with a clear message, times not on the grid are refused in every format
 * (a microsecond or a fraction of a second that is no whole millisecond), Binance dumps of a year
 * or a day are named like the monthly ones, line breaks split across chunks keep line numbers,
 * and the fast decimal reader gives exactly what Number gives.
 */
import fc from "fast-check";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { CsvImportError } from "../../src/ingest/errors.js";
import { decimal } from "../../src/ingest/fields.js";
import { hintsFromFileName } from "../../src/ingest/formats.js";
import { importBars } from "../../src/ingest/importer.js";
import { MAX_LINE_CHARS, readLines } from "../../src/ingest/lines.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir } from "../kit/index.js";

const { dir, cleanup } = tempDir("xql-bounds-");
afterAll(cleanup);
const T = Date.UTC(2024, 0, 1);

async function nothingWritten(store: SqliteStore): Promise<void> {
  expect(await store.barCount()).toBe(0);
  expect(await store.dataVersion()).toBe(0);
}

describe("import bounds", () => {
  it("stops a gigabyte-long line at the bound, reading no further, with the line named", async () => {
    const store = new SqliteStore(":memory:");
    let chunks = 0;
    const line = async function* (): AsyncGenerator<Buffer> {
      const mb = Buffer.alloc(1 << 20, "x".charCodeAt(0));
      for (let i = 0; i < 1024; i++) {
        chunks++;
        yield mb;
      }
    };
    const error = await importBars(store, "-", { market: "CRYPTO", timeframe: "h1", symbol: "X", stdin: Readable.from(line()) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CsvImportError);
    expect((error as Error).message).toBe(`line 1: the line is longer than ${MAX_LINE_CHARS.toLocaleString("en-US")} characters: not a file of bars (or its line breaks are missing)`);
    expect(chunks).toBeLessThan(4);
    await nothingWritten(store);
    await store.close();
  });

  it("stops a 4 MB gzip of 4 GiB of newlines after a thousand empty lines", async () => {
    // 64 gzip members of 64 MiB of newlines each: one file, 4 GiB once unzipped.
    const member = gzipSync(Buffer.alloc(64 << 20, 10), { level: 9 });
    const file = join(dir, "newlines.csv.gz");
    writeFileSync(file, Buffer.concat(Array.from({ length: 64 }, () => member)));
    const store = new SqliteStore(":memory:");
    const started = Date.now();
    await expect(importBars(store, file, { market: "CRYPTO", timeframe: "h1", symbol: "X" })).rejects.toThrow(
      "line 1001: 1,000 lines in a row hold no bar (empty lines or headers): not a file of bars",
    );
    // Generous for a loaded machine; unbounded, it read all 4 GiB (682 s).
    expect(Date.now() - started).toBeLessThan(20_000);
    await nothingWritten(store);
    await store.close();
  });

  const offGrid: [string, string, object, RegExp][] = [
    ["Binance open time in µs, 999 µs past the minute", `${T * 1000 + 999},1,2,0.5,1.5,10,${T * 1000 + 59_999_999},1,1,1,1,0`, { timeframe: "m1", symbol: "BTCUSDT" }, /^line 1: time '1704067200000999' is not the open time of a m1 bar: it is not a whole millisecond$/],
    ["generic seconds with 0.4 ms", `${T / 1000}.0004;1;2;0.5;1.5;10`, { timeframe: "m1", symbol: "X", columns: ["time", "open", "high", "low", "close", "volume"], timeFormat: "s" }, /^line 1: time '1704067200\.0004' is not the open time of a m1 bar: it is not a whole millisecond$/],
    ["generic microseconds 400 past the millisecond", `${T * 1000 + 400};1;2;0.5;1.5;10`, { timeframe: "m1", symbol: "X", columns: ["time", "open", "high", "low", "close", "volume"], timeFormat: "us" }, /not a whole millisecond/],
    ["a whole millisecond off the minute", `${T + 1},1,2,0.5,1.5,10,${T + 59_999},1,1,1,1,0`, { timeframe: "m1", symbol: "BTCUSDT" }, /^line 1: time 2024-01-01T00:00:00\.001Z is not the open time of a m1 bar \(a multiple of m1 since the epoch\)$/],
  ];
  for (const [name, line, options, message] of offGrid) {
    it(`refuses a time off the grid: ${name}`, async () => {
      const store = new SqliteStore(":memory:");
      const file = join(dir, `${name.replace(/\W+/g, "-")}.csv`);
      writeFileSync(file, `${line}\n`);
      await expect(importBars(store, file, { market: "CRYPTO", ...options })).rejects.toThrow(message);
      await nothingWritten(store);
      await store.close();
    });
  }

  it("takes Binance µs times that are whole milliseconds, and FOREX days only on the session", async () => {
    const store = new SqliteStore(":memory:");
    const file = join(dir, "BTCUSDT-1m-2024-01-01.csv");
    writeFileSync(file, `${T * 1000},1,2,0.5,1.5,10,${T * 1000 + 59_999_999},1,1,1,1,0\n`);
    expect((await importBars(store, file, { market: "CRYPTO" })).bars).toBe(1);
    const utcDay = join(dir, "forex-utc.csv");
    writeFileSync(utcDay, `EURUSD,${Date.UTC(2026, 0, 6)},1,2,0.5,1.5,10\n`);
    await expect(importBars(store, utcDay, { market: "FOREX", timeframe: "d" })).rejects.toThrow(
      "line 1: time 2026-01-06T00:00:00.000Z is not the open time of a d bar (FOREX days open at 17:00 New York, Sunday to Thursday)",
    );
    const sessionDay = join(dir, "forex-session.csv");
    writeFileSync(sessionDay, `EURUSD,${Date.UTC(2026, 0, 5, 22)},1,2,0.5,1.5,10\n`);
    expect((await importBars(store, sessionDay, { market: "FOREX", timeframe: "d" })).bars).toBe(1);
    await store.close();
  });

  it("reads the symbol and timeframe of Binance dumps of a month, a year or a day", () => {
    expect(hintsFromFileName("BTCUSDT-1h-2026-01.csv")).toEqual({ symbol: "BTCUSDT", timeframe: "h1" });
    expect(hintsFromFileName("/data/BTCUSDT-1m-2025.csv")).toEqual({ symbol: "BTCUSDT", timeframe: "m1" });
    expect(hintsFromFileName("ETHUSDT-4h-2025-03-01.csv.gz")).toEqual({ symbol: "ETHUSDT", timeframe: "h4" });
    expect(hintsFromFileName("BTCUSDT-1m-25.csv")).toEqual({});
  });
});

describe("reading lines", () => {
  async function lines(chunks: string[]): Promise<{ line: string; n: number }[]> {
    const out: { line: string; n: number }[] = [];
    for await (const { lines: batch, firstLine } of readLines(Readable.from(chunks.map((c) => Buffer.from(c))))) {
      batch.forEach((line, i) => out.push({ line, n: firstLine + i }));
    }
    return out;
  }

  it("ends lines at \\n, \\r\\n and a lone \\r, a \\r\\n split across chunks counting once", async () => {
    expect(await lines(["a\r", "\nb\rc\n", "d"])).toEqual([
      { line: "a", n: 1 },
      { line: "b", n: 2 },
      { line: "c", n: 3 },
      { line: "d", n: 4 },
    ]);
    expect(await lines(["ab", "c\n\n", "é\n"])).toEqual([
      { line: "abc", n: 1 },
      { line: "", n: 2 },
      { line: "é", n: 3 },
    ]);
  });

  it("decodes UTF-8 cut between chunks", async () => {
    const bytes = Buffer.from("€uro\nok\n");
    const parts: Buffer[] = [bytes.subarray(0, 1), bytes.subarray(1)];
    const out: string[] = [];
    for await (const { lines: batch } of readLines(Readable.from(parts))) out.push(...batch);
    expect(out).toEqual(["€uro", "ok"]);
  });
});

describe("decimal fields", () => {
  const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  const reference = (text: string): number => {
    const value = DECIMAL.test(text) ? Number(text) : Number.NaN;
    return Number.isFinite(value) ? value : Number.NaN;
  };

  it("reads exactly what Number reads for every decimal, and nothing else", () => {
    const digits = fc.stringMatching(/^\d{1,20}$/);
    fc.assert(
      fc.property(fc.constantFrom("", "-", "+"), digits, fc.option(fc.stringMatching(/^\d{0,20}$/)), fc.option(fc.integer({ min: -330, max: 330 })), (sign, whole, fraction, exponent) => {
        const text = `${sign}${whole}${fraction === null ? "" : `.${fraction}`}${exponent === null ? "" : `e${exponent}`}`;
        expect(Object.is(decimal(text), reference(text)) || (Number.isNaN(decimal(text)) && Number.isNaN(reference(text)))).toBe(true);
      }),
      { numRuns: 20_000 },
    );
    for (const text of ["", ".", "-", "0x10", "0b1", "0o7", "Infinity", "-Infinity", "1e999", "1_0", "1 2", "+-1", "NaN", " 1", "1e", "e1", ".e1"]) {
      expect(decimal(text), text).toBeNaN();
    }
    expect(Object.is(decimal("-0"), -0)).toBe(true);
    expect(decimal("0.1") + decimal("0.2")).toBe(0.1 + 0.2);
  });
});
