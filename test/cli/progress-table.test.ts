import { describe, expect, it } from "vitest";
import { Writable } from "node:stream";
import { progressBar } from "../../src/cli/progress.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decimalsOf, formatNumber, priceDecimals, renderTable } from "../../src/cli/table.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { xqlIn } from "./in-process.js";
import { databasePath } from "../../src/cli/store.js";

function stream(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  let text = "";
  const writable = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  (writable as { isTTY?: boolean }).isTTY = isTTY;
  return { stream: writable, text: () => text };
}

describe("progressBar", () => {
  it("draws on a terminal, ends the line, and always draws the last step", () => {
    const out = stream(true);
    // A clock that stands still: the second update falls within 100 ms of the first.
    const bar = progressBar("Writing", out.stream, () => 1_000);
    bar.update(0, 200);
    bar.update(1, 200); // within 100 ms of the previous draw: skipped
    bar.update(200, 200);
    bar.done();
    expect(out.text()).toBe(
      // Each draw clears the rest of the line (\x1b[K); rows/s appears once 50 ms have passed.
      `\rWriting [${"-".repeat(30)}]   0% 0/200\x1b[K\rWriting [${"#".repeat(30)}] 100% 200/200\x1b[K\n`,
    );
  });

  it("draws nothing when standard error is not a terminal", () => {
    const out = stream(false);
    const bar = progressBar("Writing", out.stream);
    bar.update(5, 10);
    bar.done();
    expect(out.text()).toBe("");
  });
});

describe("tables", () => {
  it("formats numbers for people", () => {
    expect(formatNumber(null)).toBe("-");
    expect(formatNumber(Number.NaN)).toBe("-");
    expect(formatNumber(42)).toBe("42");
    expect(formatNumber(1.0842317)).toBe("1.08423");
    expect(formatNumber(0.0000856276)).toBe("0.0000856276");
    expect(formatNumber(12345678.9)).toBe("12345679");
  });

  it("shows at least the decimals the instrument's prices are quoted in, and no more than the value has", () => {
    expect(formatNumber(101731.68, 2)).toBe("101731.68");
    expect(formatNumber(101731.6, 2)).toBe("101731.6");
    expect(formatNumber(101712.34567, 2)).toBe("101712.35");
    expect(formatNumber(1.0375312, 5)).toBe("1.03753");
    expect(formatNumber(57.8931234, 2)).toBe("57.8931");
    expect(formatNumber(0.00001234, 8)).toBe("0.00001234");
    expect(formatNumber(1234567.891, 2)).toBe("1234567.89");
    expect(decimalsOf(101731.68)).toBe(2);
    expect(decimalsOf(1.2e-7)).toBe(8);
    expect(decimalsOf(42)).toBe(0);
    expect(decimalsOf(0.1 + 0.2)).toBe(12);
    const bars = { time: [0, 1], open: [1.1, 1.2], high: [1.25, 1.3], low: [1.05, 1.1], close: [1.2, 1.23456], volume: [1, 1] };
    expect(priceDecimals(bars)).toBe(5);
    expect(priceDecimals(bars, 1)).toBe(5);
    expect(priceDecimals(undefined)).toBe(0);
  });

  it("xql run --format table prints a BTC close as the data has it (101731.68, not 101732), an average to its decimals, RSI to two, volume grouped", async () => {
    const dir = mkdtempSync(join(tmpdir(), "xql-table-"));
    try {
      const db = join(dir, "btc.db");
      const store = new SqliteStore(db);
      const closes = Array.from({ length: 30 }, (_, i) => Math.round((101000 + i * 25.37 - (i % 3 === 0 ? 40 : 0)) * 100) / 100);
      closes[29] = 101731.68;
      await store.upsertBars([
        {
          market: "CRYPTO",
          timeframe: "h1",
          symbols: [
            {
              symbol: "BTCUSDT",
              bars: {
                time: closes.map((_, i) => Date.UTC(2026, 0, 1, i)),
                open: closes,
                high: closes.map((c) => c + 12.5),
                low: closes.map((c) => c - 12.5),
                close: closes,
                volume: closes.map(() => 1.23456),
              },
            },
          ],
        },
      ]);
      await store.close();
      const query = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, sma(20), rsi(14), avg(volume, 5) * 1000000]\ntrue';
      const r = await xqlIn(["run", "-", "--db", db, "--format", "table"], { input: query });
      expect(r.stderr).toBe("");
      const row = r.stdout.split("\n").find((line) => line.startsWith("BTCUSDT"))!.trim().split(/\s+/);
      const mean = closes.slice(10).reduce((a, b) => a + b, 0) / 20;
      expect(row).toEqual(["BTCUSDT", "101731.68", mean.toFixed(2), expect.stringMatching(/^\d+\.\d{2}$/), "1,234,560"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("aligns text left and numbers right", () => {
    expect(renderTable(["symbol", "close"], [["EURUSD", "1.08"], ["BTCUSDT", "97000"]], [false, true])).toBe(
      ["symbol   close", "-------  -----", "EURUSD    1.08", "BTCUSDT  97000", ""].join("\n"),
    );
  });
});

describe("databasePath", () => {
  it("takes --db, else $XQL_DB, else one per-user file: $XDG_DATA_HOME/xql/xql.db, else ~/.local/share/xql/xql.db", () => {
    expect(databasePath("/a/b.db", { XQL_DB: "/c.db" })).toBe("/a/b.db");
    expect(databasePath("b.db", {}, "/work")).toBe("/work/b.db");
    expect(databasePath(undefined, { XQL_DB: "/c.db" })).toBe("/c.db");
    expect(databasePath(undefined, { HOME: "/home/ann" }, "/anywhere")).toBe("/home/ann/.local/share/xql/xql.db");
    expect(databasePath(undefined, { HOME: "/home/ann", XDG_DATA_HOME: "/data" })).toBe("/data/xql/xql.db");
    // A relative XDG_DATA_HOME is invalid under the XDG spec and ignored.
    expect(databasePath(undefined, { HOME: "/home/ann", XDG_DATA_HOME: "data" })).toBe("/home/ann/.local/share/xql/xql.db");
  });
});
