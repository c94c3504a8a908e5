/**
 * `importBars` over files made here in every format (decisions §2 Data, issue 12): detection,
 * the sentence naming the format, µs Binance times, HistData's EST, MetaTrader's --tz, the
 * generic CSV, .gz, stdin, and the first bad line named with nothing written.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { importBars } from "../../src/ingest/importer.js";
import { openStore, type Store } from "../../src/open/open.js";
import { zoneConverter } from "../../src/ingest/formats.js";
import { tempDir } from "../kit/index.js";
import { RAW_SERIES } from "../../src/types.js";

const H = 3_600_000;
const T0 = Date.UTC(2026, 0, 2, 0, 0); // a Friday

describe("importBars formats", () => {
  let dir: string;
  let cleanup: () => void;
  let store: Store;
  beforeEach(async () => {
    ({ dir, cleanup } = tempDir());
    store = await openStore(join(dir, "xql.db"));
  });
  afterEach(async () => {
    await store.close();
    cleanup();
  });

  const h1 = async (market: string, symbol: string) =>
    (await store.latestBars({ market, timeframe: "h1", baseTimeframe: "h1", series: RAW_SERIES, count: 1000 })).find(
      (s) => s.symbol === symbol,
    )!.bars;

  it("Binance dumps in ms and in µs: symbol and timeframe from the file name", async () => {
    const line = (t: number, i: number, us: boolean) =>
      [us ? t * 1000 : t, 100 + i, 102 + i, 99 + i, 101 + i, 10 + i, (us ? (t + H) * 1000 : t + H) - 1, 1000, 5, 1, 1, 0].join(",");
    const ms = join(dir, "BTCUSDT-1h-2026-01.csv");
    writeFileSync(ms, Array.from({ length: 30 }, (_, i) => line(T0 + i * H, i, false)).join("\n") + "\n");
    const us = join(dir, "ETHUSDT-1h-2026-01.csv");
    writeFileSync(us, Array.from({ length: 30 }, (_, i) => line(T0 + i * H, i, true)).join("\n"));
    const a = await importBars(store, ms, { market: "CRYPTO" });
    const b = await importBars(store, us, { market: "CRYPTO" });
    expect(a).toMatchObject({ format: "binance", bars: 30, symbols: 1, timeframe: "h1", market: "CRYPTO" });
    expect(a.formatDescription).toMatch(/^Binance kline dump/);
    expect(b).toMatchObject({ format: "binance", bars: 30 });
    const btc = await h1("CRYPTO", "BTCUSDT");
    const eth = await h1("CRYPTO", "ETHUSDT");
    expect(Array.from(eth.time)).toEqual(Array.from(btc.time));
    expect(btc.time[0]).toBe(T0);
    expect(Array.from(btc.close).slice(0, 3)).toEqual([101, 102, 103]);
    expect(btc.volume[29]).toBe(39);
  });

  it("MetaTrader exports, tab or comma, UTC by default and shifted by --tz", async () => {
    const rows = Array.from({ length: 5 }, (_, i) => {
      const d = new Date(T0 + i * H);
      const date = `${d.getUTCFullYear()}.${String(d.getUTCMonth() + 1).padStart(2, "0")}.${String(d.getUTCDate()).padStart(2, "0")}`;
      const time = `${String(d.getUTCHours()).padStart(2, "0")}:00:00`;
      return [date, time, 1.1 + i / 100, 1.2 + i / 100, 1.0 + i / 100, 1.15 + i / 100, 100 + i, 0, 12];
    });
    const tab = join(dir, "EURUSD60.tsv");
    writeFileSync(tab, ["<DATE>\t<TIME>\t<OPEN>\t<HIGH>\t<LOW>\t<CLOSE>\t<TICKVOL>\t<VOL>\t<SPREAD>", ...rows.map((r) => r.join("\t"))].join("\r\n"));
    const result = await importBars(store, tab, { market: "FOREX", timeframe: "h1", symbol: "EURUSD" });
    expect(result.format).toBe("metatrader");
    expect(result.formatDescription).toContain("tab-separated");
    expect(result.formatDescription).toContain("UTC");
    const eur = await h1("FOREX", "EURUSD");
    expect(eur.time[0]).toBe(T0);
    expect(eur.volume[4]).toBe(104); // tick volume, as the real volume is 0
    const comma = join(dir, "GBPUSD60.csv");
    writeFileSync(comma, rows.map((r) => r.join(",")).join("\n"));
    await importBars(store, comma, { market: "FOREX", timeframe: "h1", symbol: "GBPUSD", tz: "+02:00" });
    expect((await h1("FOREX", "GBPUSD")).time[0]).toBe(T0 - 2 * H);
  });

  it("HistData ASCII: EST without daylight saving by default (UTC−05:00 in summer too)", async () => {
    const file = join(dir, "DAT_ASCII_EURUSD_M1_2026.csv");
    const july = Date.UTC(2026, 6, 1, 0, 0);
    const lines = [
      "20260102 000000;1.1000;1.1010;1.0990;1.1005;0",
      "20260102 000100;1.1005;1.1012;1.1001;1.1010;0",
      "20260701 000000;1.2000;1.2010;1.1990;1.2005;0",
    ];
    writeFileSync(file, lines.join("\n"));
    const result = await importBars(store, file, { market: "FOREX" });
    expect(result).toMatchObject({ format: "histdata", timeframe: "m1", symbols: 1, bars: 3 });
    expect(result.formatDescription).toContain("EST");
    const m1 = (await store.latestBars({ market: "FOREX", timeframe: "m1", baseTimeframe: "m1", series: ["close"], count: 10 }))[0]!;
    expect(m1.symbol).toBe("EURUSD");
    expect(Array.from(m1.bars.time)).toEqual([T0 + 5 * H, T0 + 5 * H + 60_000, july + 5 * H]);
    // --tz UTC reads the same wall times as UTC.
    writeFileSync(join(dir, "x.csv"), lines[0]!);
    await importBars(store, join(dir, "x.csv"), { market: "OTHER", timeframe: "m1", symbol: "EURUSD", tz: "UTC" });
    expect((await store.latestBars({ market: "OTHER", timeframe: "m1", baseTimeframe: "m1", series: ["close"], count: 10 }))[0]!.bars.time[0]).toBe(T0);
  });

  it("IANA zones follow daylight saving", () => {
    const athens = zoneConverter("Europe/Athens");
    expect(athens.convert(Date.UTC(2026, 0, 2, 12))).toBe(Date.UTC(2026, 0, 2, 10)); // EET, UTC+2
    expect(athens.convert(Date.UTC(2026, 6, 2, 12))).toBe(Date.UTC(2026, 6, 2, 9)); // EEST, UTC+3
    expect(() => zoneConverter("Mars/Olympus")).toThrow(/Unknown time zone/);
  });

  it("generic CSV with --columns and --time-format s, with a header; gzip from stdin", async () => {
    const text = ["ts;o;h;l;c;ignored;v", ...Array.from({ length: 4 }, (_, i) => `${(T0 + i * H) / 1000};1;2;0.5;1.5;x;${i}`)].join("\n");
    const result = await importBars(store, "-", {
      market: "crypto",
      timeframe: "h1",
      symbol: "SOLUSDT",
      columns: ["time", "open", "high", "low", "close", "-", "volume"],
      timeFormat: "s",
      stdin: Readable.from([gzipSync(Buffer.from(text))]),
    });
    expect(result).toMatchObject({ format: "generic", bars: 4, rows: 4 });
    expect(result.formatDescription).toContain("times as s");
    const sol = await h1("CRYPTO", "SOLUSDT");
    expect(Array.from(sol.volume)).toEqual([0, 1, 2, 3]);
  });

  it("our CSV, gzipped on disk", async () => {
    const file = join(dir, "bars.csv.gz");
    writeFileSync(file, gzipSync(Buffer.from(`symbol,time,open,high,low,close,volume\nXAUUSD,${T0},1,2,0.5,1.5,7\n`)));
    const result = await importBars(store, file, { market: "FOREX", timeframe: "h1" });
    expect(result).toMatchObject({ format: "xql", bars: 1 });
  });

  it("names the first bad line and writes nothing", async () => {
    const file = join(dir, "ADAUSDT-1h-2026-01.csv");
    const good = (i: number) => [T0 + i * H, 1, 2, 0.5, 1.5, 3, T0 + (i + 1) * H - 1, 0, 0, 0, 0, 0].join(",");
    writeFileSync(file, [good(0), good(1), [T0 + 2 * H, 1, 0.4, 0.5, 1.5, 3, 0, 0, 0, 0, 0, 0].join(","), good(3)].join("\n"));
    await expect(importBars(store, file, { market: "CRYPTO" })).rejects.toThrow("line 3: high 0.4 is below open, close or low");
    expect(await store.barCount()).toBe(0);
    const offGrid = join(dir, "DOTUSDT-1h-2026-01.csv");
    writeFileSync(offGrid, [T0 + 60_000, 1, 2, 0.5, 1.5, 3, 0, 0, 0, 0, 0, 0].join(","));
    await expect(importBars(store, offGrid, { market: "CRYPTO" })).rejects.toThrow(/line 1: time .* is not the open time of a h1 bar/);
  });

  it("asks for --symbol when the format has no symbol column, and says when it cannot tell the format", async () => {
    const file = join(dir, "export.csv");
    writeFileSync(file, "2026.01.02,00:00,1,2,0.5,1.5,10,0,0\n");
    await expect(importBars(store, file, { market: "FOREX", timeframe: "h1" })).rejects.toThrow(/MetaTrader export.*give --symbol S/);
    writeFileSync(file, "what,is,this\n");
    await expect(importBars(store, file, { market: "FOREX", timeframe: "h1", symbol: "X" })).rejects.toThrow(/line 1: cannot tell the format/);
  });
});
