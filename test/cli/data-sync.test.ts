/**
 * `xql data sync` on the command line, in-process (main(argv, io)), with the real ccxt
 * against the local Binance stand-in on the wall clock: options, messages, progress on a
 * terminal, and a stop request finishing the batch in hand.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/open/sqlite.js";
import { Gate, barOpen, rampBars, tempDir, until } from "../kit/index.js";
import type { ExchangeStandIn } from "../ingest/exchange-stand-in.js";
import { MINUTE, servedBars, standIn, storedBars } from "../ingest/sync-helpers.js";
import { xqlIn } from "./in-process.js";

let dir: string;
let cleanup: () => void;
let exchange: ExchangeStandIn | undefined;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(async () => {
  expect(exchange?.unanswered ?? []).toEqual([]);
  await exchange?.stop();
  exchange = undefined;
  cleanup();
});

const openMinute = (): number => Math.floor(Date.now() / MINUTE) * MINUTE;

describe("xql data sync", () => {
  it("syncs the named pairs at --timeframe from --since, says what it does and what it did", async () => {
    exchange = await standIn([
      { base: "BTC", quote: "USDT" },
      { base: "ETH", quote: "USDT" },
    ]);
    const db = join(dir, "sync.db");
    const since = openMinute() - 1200 * MINUTE;
    const started = Date.now();
    const result = await xqlIn(["data", "sync", "binance", "--symbols", "BTC/USDT,ETH/USDT", "--timeframe", "m1", "--since", new Date(since).toISOString(), "--api-url", exchange.url, "--db", db]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      `xql data sync: binance at ${exchange.url}, 2 pairs, m1 bars since ${new Date(since).toISOString().slice(0, 16).replace("T", " ")} UTC, into market CRYPTO of ${db}\n`,
    );
    expect(result.stdout).toMatch(/^Synced 2,4\d\d m1 bars of 2 symbols from binance into market CRYPTO \(.+sync\.db\) in [\d.]+ s: \d+ requests \([\d.]+ s waiting for binance\), \d+ writes \([\d.]+ s\)\n$/);
    const store = new SqliteStore(db);
    try {
      for (const symbol of ["BTCUSDT", "ETHUSDT"]) {
        const stored = await storedBars(store, symbol);
        const last = stored.at(-1)!.time;
        // Every bar closed when the sync began, and any that closed while it ran, each as served.
        expect(last).toBeGreaterThanOrEqual(Math.floor(started / MINUTE) * MINUTE - MINUTE);
        expect(stored).toEqual(servedBars(symbol, exchange.closedTimes(symbol, "1m", since, last)));
      }
    } finally {
      await store.close();
    }
  });

  it("--quote with --top on daily bars, and a progress bar on a terminal", async () => {
    exchange = await standIn([
      { base: "BTC", quote: "USDT", quoteVolume: 5e9 },
      { base: "USDC", quote: "USDT", quoteVolume: 9e9 },
      { base: "ETH", quote: "USDT", quoteVolume: 3e9 },
      { base: "DOGE", quote: "USDT", quoteVolume: 1e9 },
    ]);
    const db = join(dir, "top.db");
    const result = await xqlIn(["data", "sync", "binance", "--quote", "USDT", "--top", "2", "--timeframe", "d", "--since", "10d", "--api-url", exchange.url, "--db", db], { tty: true });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("2 pairs quoted in USDT (the 2 most traded over 24 h), d bars since");
    expect(result.stderr).toMatch(/\rSyncing \[#+-*\] +\d+% /);
    const store = new SqliteStore(db);
    try {
      const symbols = [...new Set((await store.series("CRYPTO")).map((s) => s.symbol))];
      expect(symbols).toEqual(["BTCUSDT", "ETHUSDT"]);
      expect((await storedBars(store, "BTCUSDT", "d")).length).toBe(10);
    } finally {
      await store.close();
    }
  });

  it("a stop request (Ctrl-C) finishes the batch in hand, writes it, and exits 0", async () => {
    exchange = await standIn([
      { base: "BTC", quote: "USDT" },
      { base: "ETH", quote: "USDT" },
      { base: "SOL", quote: "USDT" },
    ]);
    const gate = (exchange.klinesGate = new Gate());
    const controller = new AbortController();
    exchange.onKlines = () => controller.abort("SIGINT");
    const db = join(dir, "stop.db");
    const since = openMinute() - 3000 * MINUTE;
    const syncing = xqlIn(["data", "sync", "binance", "--quote", "USDT", "--timeframe", "m1", "--since", new Date(since).toISOString(), "--follow", "--api-url", exchange.url, "--db", db], {
      stop: controller.signal,
    });
    try {
      // The batch in hand: the newest page of each pair, asked together and held. The first
      // answer brings the stop (onKlines); the other two go once it has come.
      await gate.holding(3, { what: "the newest page of each of the three pairs asked" });
      gate.pass(1);
      await until(() => controller.signal.aborted, { what: "the stop request" });
    } finally {
      gate.open();
    }
    const result = await syncing;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("xql data sync: SIGINT: stopping after the batch in hand (Ctrl-C again stops at once)");
    expect(result.stdout).toMatch(/^Stopped after 3,000 m1 bars of 3 symbols/);
    // The batch in hand was the newest page of each pair: all three answered and written, no more asked.
    expect(exchange.klines).toHaveLength(3);
    const store = new SqliteStore(db);
    try {
      for (const served of exchange.klines) expect((await storedBars(store, served.symbol)).map((b) => b.time)).toEqual(served.closed);
    } finally {
      await store.close();
    }
  });

  it("warns when the pairs hold the synthetic seed's bars, which a sync would only extend", async () => {
    exchange = await standIn([{ base: "BTC", quote: "USDT" }]);
    const db = join(dir, "seeded.db");
    // What the seed writes for each pair: among every timeframe, weeks imported as such.
    const seeded = new SqliteStore(db);
    await seeded.upsertBars([{ market: "CRYPTO", timeframe: "w", symbols: [{ symbol: "BTCUSDT", bars: rampBars("w", 10, barOpen("w", Date.now()) - 7 * 86_400_000) }] }]);
    await seeded.close();
    const result = await xqlIn(["data", "sync", "binance", "--symbols", "BTC/USDT", "--timeframe", "d", "--since", "3d", "--api-url", exchange.url, "--db", db]);
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      "xql data sync: warning: 1 of these pairs (BTCUSDT) hold weekly bars imported as such, as the synthetic seed writes them; the sync only adds bars after and before them. For real data, sync into a database of its own (--db)",
    );
  });

  it("refuses what it cannot do with a usage error that says what was meant", async () => {
    exchange = await standIn([{ base: "BTC", quote: "USDT" }]);
    const db = join(dir, "usage.db");
    const cases: [string[], string][] = [
      [[], "data sync needs a SOURCE: oanda or dukascopy (FOREX), or a ccxt exchange id such as binance, bybit, okx or kraken"],
      [["binance"], "data sync needs --symbols A/B,C/D or --quote Q (e.g. --quote USDT --top 50)"],
      [["binance", "--symbols", "BTC/USDT", "--quote", "USDT"], "data sync takes --symbols or --quote, not both"],
      [["binance", "--symbols", "BTC/USDT", "--top", "5"], "--top N goes with --quote Q"],
      [["binance", "--quote", "USDT", "--top", "0"], "--top must be a positive integer, got '0'"],
      [["binanse", "--symbols", "BTC/USDT"], "ccxt knows no exchange 'binanse', did you mean 'binance'?"],
      [["binance", "--symbols", "BTC/USDT", "--since", "last week"], "--since: time 'last week' is neither milliseconds since the epoch nor ISO 8601; give a date (2026-10-01) or an age (30d, 12h, 90m, 2w)"],
      [["binance", "--symbols", "BTC/USDT", "--since", "2999-01-01"], "--since 2999-01-01 is in the future"],
      [["binance", "--symbols", "BTC/USDT", "--timeframe", "h2"], "Unknown timeframe 'h2', did you mean 'h1'? Timeframes are m1 m5 m15 m30 h1 h4 d"],
      [["binance", "--symbols", "BTC/USDT", "--api-url", "not a url"], "--api-url 'not a url' is not a URL"],
      [["binance", "--symbols", "BTC/USDC", "--api-url", exchange.url], "binance has no spot pair 'BTC/USDC', did you mean 'BTC/USDT'?"],
      [["binance", "--symbols", "BTC/USDT", "--folow"], "xql data sync: unknown option '--folow', did you mean '--follow'?"],
      [["binance", "--symbols", "BTC/USDT", "--since", "3d", "--until", "5d"], "--until 5d is not after --since 3d"],
      [["binance", "--symbols", "BTC/USDT", "--until", "1d", "--follow"], "--until ends a backfill and --follow keeps going: choose one"],
      [["binance", "--symbols", "BTC/USDT", "--price", "mid"], "--price is for the FOREX sources (oanda, dukascopy)"],
    ];
    for (const [args, message] of cases) {
      const result = await xqlIn(["data", "sync", ...args, "--db", db]);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toContain(message);
    }
  });

  it("is in xql data --help", async () => {
    const { code, stdout } = await xqlIn(["data", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("xql data sync EXCHANGE (--symbols A/B,C/D | --quote Q [--top N]) [--timeframe TF]");
    for (const option of ["--symbols", "--quote", "--top", "--since", "--follow", "--api-url"]) expect(stdout).toContain(option);
  });
});
