/**
 * The service, the CLI and the library agree when the base bar closes far past the data
 * (issue 24.4): base `d` (or `w`) with an `m1::` or `m5::` prefix over m1 bars that end at
 * 00:30 UTC. The store's read of m1 used to look for blocks back from the base bar's close
 * (midnight), found none, and reported every instrument `noData`; the library, on the same
 * bars, matched. One rule now (src/alignment.ts) for both.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { RAW_SERIES, type Bars, type Instrument } from "../../src/types.js";
import { xqlIn } from "../cli/in-process.js";
import { tempDir } from "../kit/index.js";
import { startServer, type Running } from "./helpers.js";

/** m1 bars of three symbols, 2,000 each, the last opening at 00:29 UTC (the day's bar closes at midnight). */
const END = Date.UTC(2026, 10, 20, 0, 30);
function m1Bars(seed: number): Bars {
  const n = 2000;
  const time = new Float64Array(n);
  const open = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  const close = new Float64Array(n);
  const volume = new Float64Array(n);
  let price = 100 + seed;
  for (let i = 0; i < n; i++) {
    time[i] = END - (n - i) * 60_000;
    open[i] = price;
    price += Math.sin(i * 0.37 + seed) * 0.5;
    close[i] = price;
    high[i] = Math.max(open[i]!, close[i]!) + 0.1;
    low[i] = Math.min(open[i]!, close[i]!) - 0.1;
    volume[i] = 10 + ((i * 7 + seed) % 13);
  }
  return { time, open, high, low, close, volume };
}

const QUERIES = [
  'market = "CRYPTO"\ntimeframe = d\ncolumns = [m1::close, m1::sma(20)]\nsort = m1::close desc\nm1::close > 0',
  'market = "CRYPTO"\ntimeframe = w\ncolumns = [m5::close]\nm5::close > m5::close[1] or m5::close <= m5::close[1]',
];

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("base d or w with an m1:: or m5:: prefix past the data", () => {
  it("gives the same results in the library, the CLI and the service", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const file = join(dir, "xql.db");
      const store = new SqliteStore(file);
      await store.upsertBars([
        { market: "CRYPTO", timeframe: "m1", symbols: ["BTCUSDT", "ETHUSDT", "SOLUSDT"].map((symbol, k) => ({ symbol, bars: m1Bars(k) })) },
      ]);
      // The library over every bar the store holds (the m1 bars and the timeframes it derived).
      const universe: Instrument[] = [];
      for (const symbol of await store.symbols("CRYPTO")) {
        const bars: Instrument["bars"] = {};
        for (const timeframe of ["m1", "m5", "d", "w"] as const) {
          const [read] = await store.latestBars({ market: "CRYPTO", timeframe, baseTimeframe: timeframe, series: RAW_SERIES, count: 100_000, symbols: [symbol] });
          if (read) bars[timeframe] = read.bars;
        }
        universe.push({ symbol, bars });
      }
      await store.close();

      server = await startServer({ file, dir, seed: false });
      const { key } = await server.key("plus");
      for (const query of QUERIES) {
        const library = compile(query).run(universe);
        expect(library.results.map((r) => r.symbol).sort(), query).toEqual(["BTCUSDT", "ETHUSDT", "SOLUSDT"]);
        const served = (await (await server.post("/xql/run", query, key)).json()) as typeof library;
        expect(served.results, query).toEqual(library.results);
        expect(served.meta.skipped).toEqual({ shortHistory: 0, noData: 0 });
        const queryFile = join(dir, "query.xql");
        writeFileSync(queryFile, query);
        const cli = await xqlIn(["run", "--db", file, queryFile]);
        expect(cli.code, cli.stderr).toBe(0);
        expect((JSON.parse(cli.stdout) as typeof library).results, query).toEqual(library.results);
      }
    } finally {
      await server?.stop();
      server = undefined;
      cleanup();
    }
  });
});
