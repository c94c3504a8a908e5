/**
 * FOREX sync benchmark (not a test; issue 30). Run: `npm run bench:sync-forex`.
 *
 * 1. `data sync oanda`: a year of h1 for the 28 major pairs from the local OANDA stand-in
 *    (test/ingest/oanda-stand-in.ts: about 6,200 trading hours a pair, ≈ 175,000 candles) into
 *    a fresh SQLite file: rows/s written, and the requests made against the floor, ⌈candles /
 *    5,000⌉ per pair (OANDA's largest page), with where the time went (waiting for the
 *    stand-in, writing).
 * 2. `data sync dukascopy`: a month of m1 for EURUSD from the local Dukascopy stand-in
 *    (test/ingest/dukascopy-stand-in.ts) through dukascopy-node: rows/s, and the requests
 *    (one per UTC day of minutes: the floor), with the package's pause between its batches
 *    off, so the figure is the reading and writing, not the politeness.
 *
 * The clock is fixed (Wednesday 2025-11-12 13:25 UTC), so the figures do not depend on the
 * day the bench runs. State the machine's load beside the figures (`uptime`).
 *
 * Env: BENCH_DAYS (default 365), BENCH_PAIRS (default 28), BENCH_DUKA_DAYS (default 30).
 */
import { execSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as dukascopy from "dukascopy-node";
import { DukascopySource, dukascopyInstrument } from "../src/ingest/sync-dukascopy.js";
import { MAJOR_PAIRS, forexPairs } from "../src/ingest/sync-forex.js";
import { OandaSource, oandaInstrument } from "../src/ingest/sync-oanda.js";
import { type SyncClock, syncBars, systemSyncClock } from "../src/ingest/sync.js";
import { SqliteStore } from "../src/open/sqlite.js";
import { DukascopyStandIn } from "../test/ingest/dukascopy-stand-in.js";
import { OandaStandIn } from "../test/ingest/oanda-stand-in.js";

const DAYS = Number(process.env.BENCH_DAYS ?? 365);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 28);
const DUKA_DAYS = Number(process.env.BENCH_DUKA_DAYS ?? 30);
const NOW = Date.UTC(2025, 10, 12, 13, 25);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TOKEN = "bench-token";
const clock: SyncClock = { now: () => NOW, sleep: systemSyncClock.sleep };

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const dir = mkdtempSync(join(tmpdir(), "xql-bench-fx-"));

try {
  say(`load: ${execSync("uptime").toString().trim()}`);

  // 1. OANDA, h1, a year, 28 pairs.
  const oanda = new OandaStandIn(TOKEN, () => NOW);
  oanda.listed = NOW - DAYS * DAY - 30 * DAY;
  await oanda.start();
  const store = new SqliteStore(join(dir, "oanda.db"));
  const symbols = MAJOR_PAIRS.slice(0, PAIRS).map((p) => `${p.slice(0, 3)}_${p.slice(3)}`);
  const since = Math.floor((NOW - DAYS * DAY) / HOUR) * HOUR;
  const source = new OandaSource({ token: TOKEN, price: "bid", apiUrl: oanda.url, clock });
  const started = performance.now();
  const report = await syncBars({ source, store, pairs: forexPairs(symbols, oandaInstrument), timeframe: "h1", since, clock });
  const seconds = (performance.now() - started) / 1000;
  let floor = 0;
  for (const instrument of symbols) floor += Math.ceil(oanda.candleTimes(instrument, "H1", since, NOW).length / 5000);
  say(`1. oanda h1, ${DAYS} days × ${symbols.length} pairs: ${report.written.toLocaleString("en-US")} rows in ${seconds.toFixed(2)} s = ${Math.round(report.written / seconds).toLocaleString("en-US")} rows/s`);
  say(`   requests ${oanda.served.length} (floor ⌈candles/5,000⌉ per pair: ${floor}); waiting ${(report.fetchMs / 1000).toFixed(2)} s, writing ${(report.writeMs / 1000).toFixed(2)} s in ${report.writes} writes`);
  if (report.failed.length > 0) say(`   FAILED: ${report.failed.map((f) => `${f.symbol} (${f.reason})`).join(", ")}`);
  await store.close();
  await oanda.stop();

  // 2. Dukascopy, m1, a month, one pair.
  const duka = new DukascopyStandIn(() => NOW);
  await duka.start();
  const dukaStore = new SqliteStore(join(dir, "dukascopy.db"));
  const dukaSource = new DukascopySource(dukascopy, { price: "bid", apiUrl: duka.root, clock, pauseBetweenBatchesMs: 0 });
  const dukaSince = Math.floor((NOW - DUKA_DAYS * DAY) / DAY) * DAY;
  const dukaStarted = performance.now();
  const dukaReport = await syncBars({
    source: dukaSource,
    store: dukaStore,
    pairs: forexPairs(["EURUSD"], (base, quote) => dukascopyInstrument(dukascopy, base, quote)!),
    timeframe: "m1",
    since: dukaSince,
    clock,
  });
  const dukaSeconds = (performance.now() - dukaStarted) / 1000;
  say(`2. dukascopy m1, ${DUKA_DAYS} days × 1 pair: ${dukaReport.written.toLocaleString("en-US")} rows in ${dukaSeconds.toFixed(2)} s = ${Math.round(dukaReport.written / dukaSeconds).toLocaleString("en-US")} rows/s`);
  say(`   requests ${duka.requests.length} (floor, one per UTC day: ${Math.ceil((NOW - dukaSince) / DAY)}); waiting ${(dukaReport.fetchMs / 1000).toFixed(2)} s, writing ${(dukaReport.writeMs / 1000).toFixed(2)} s`);
  if (dukaReport.failed.length > 0) say(`   FAILED: ${dukaReport.failed.map((f) => `${f.symbol} (${f.reason})`).join(", ")}`);
  await dukaStore.close();
  await duka.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
