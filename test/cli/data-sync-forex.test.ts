/**
 * `xql data sync oanda|dukascopy` on the command line, in-process (main(argv, io)), against the
 * local stand-ins on the wall clock: the token from OANDA_API_TOKEN only and never shown,
 * what it says it does and did, usage mistakes, and `xql data status` naming each series' feed.
 */
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir } from "../kit/index.js";
import { DukascopyStandIn } from "../ingest/dukascopy-stand-in.js";
import { OandaStandIn } from "../ingest/oanda-stand-in.js";
import { storedBars } from "../ingest/sync-helpers.js";
import { xqlIn } from "./in-process.js";

const TOKEN = "0123456789abcdef-secret-token";
const ENV = { HOME: "/nonexistent-home-for-xql-tests", OANDA_API_TOKEN: TOKEN };

let dir: string;
let cleanup: () => void;
let oanda: OandaStandIn | undefined;
let dukascopy: DukascopyStandIn | undefined;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(async () => {
  await oanda?.stop();
  await dukascopy?.stop();
  oanda = undefined;
  dukascopy = undefined;
  cleanup();
});

describe("xql data sync oanda|dukascopy", () => {
  it("syncs OANDA's candles with the token from OANDA_API_TOKEN, says what it did, and status names the feed", async () => {
    oanda = new OandaStandIn(TOKEN);
    await oanda.start();
    const db = join(dir, "fx.db");
    const result = await xqlIn(["data", "sync", "oanda", "--symbols", "EUR_USD,usdjpy", "--timeframe", "h1", "--price", "mid", "--since", "10d", "--api-url", oanda.url, "--db", db], { env: ENV });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`\nxql data sync: oanda at ${oanda.url}, 2 pairs, h1 \\(mid\\) bars since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, into market FOREX of .*fx\\.db\\n$`));
    expect(result.stdout).toMatch(/^Synced [\d,]+ h1 bars of 2 symbols from oanda into market FOREX \(.+fx\.db\) in [\d.]+ s: 2 requests \([\d.]+ s waiting for oanda\), 1 writes \([\d.]+ s\)\n$/);
    expect(result.stdout + result.stderr).not.toContain(TOKEN);
    const store = new SqliteStore(db);
    try {
      expect((await storedBars(store, "USDJPY", "h1", "FOREX")).length).toBeGreaterThan(100);
    } finally {
      await store.close();
    }
    const status = await xqlIn(["data", "status", "--db", db]);
    expect(status.stdout).toMatch(/FOREX\s+h1\s+2\s+[\d,]+\s+\S+ \S+\s+\S+ \S+\s+imported\s+oanda mid \d{4}-\d\d-\d\d \d\d:\d\d\n/);
    // Derived timeframes came from the same bars: no feed of their own.
    expect(status.stdout).toMatch(/FOREX\s+d\s+2\s+.*derived\s*\n/);
    // Another side on the same series would mix them: refused, saying what to do.
    const mixed = await xqlIn(["data", "sync", "oanda", "--symbols", "EUR_USD", "--timeframe", "h1", "--price", "bid", "--api-url", oanda.url, "--db", db], { env: ENV });
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain(
      "EURUSD h1 holds mid bars (from oanda); a sync with --price bid would mix the two sides in one series. Sync --price mid, sync into another --db, or delete them first: xql data delete --symbol EURUSD --market FOREX --timeframe h1",
    );
    const json = JSON.parse((await xqlIn(["data", "status", "--format", "json", "--db", db])).stdout) as { series: { timeframe: string; feeds: unknown[] }[] };
    expect(json.series.find((s) => s.timeframe === "h1")!.feeds).toEqual([{ source: "oanda", price: "mid", symbols: 2, lastSync: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }]);
  });

  it("without OANDA_API_TOKEN says which variable to set; a refused token says so without showing it", async () => {
    oanda = new OandaStandIn("the-right-token");
    await oanda.start();
    const db = join(dir, "fx.db");
    const missing = await xqlIn(["data", "sync", "oanda", "--api-url", oanda.url, "--db", db]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      "xql data: OANDA_API_TOKEN is not set: the sync reads OANDA's token from it (never from a flag). Create a token in your OANDA account (Manage API Access), then: export OANDA_API_TOKEN=...\n",
    );
    const refused = await xqlIn(["data", "sync", "oanda", "--symbols", "EUR_USD", "--api-url", oanda.url, "--db", db], { env: ENV });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/\nxql data: OANDA refused the token in OANDA_API_TOKEN \(HTTP 401: '\{"errorMessage":"Insufficient authorization to perform request\."\}'\); check it is a v20 API token of a practice account \(--live for a live account's\)\n$/);
    expect(refused.stderr + refused.stdout).not.toContain(TOKEN);
  });

  it("syncs Dukascopy's history with no account", async () => {
    dukascopy = new DukascopyStandIn();
    await dukascopy.start();
    const db = join(dir, "duka.db");
    const result = await xqlIn(["data", "sync", "dukascopy", "--symbols", "EUR-USD", "--timeframe", "m5", "--since", "2d", "--api-url", dukascopy.root, "--db", db]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Synced [\d,]+ m5 bars of 1 symbol from dukascopy into market FOREX/);
    expect(dukascopy.requests.every((r) => r.startsWith("/v1/candles/minute/EUR-USD/BID"))).toBe(true);
  });

  it("refuses what it cannot do with a usage error that says what was meant", async () => {
    const db = join(dir, "usage.db");
    const cases: [string[], string][] = [
      [["oanda", "--price", "last"], "--price must be bid, ask or mid"],
      [["oanda", "--price", "mdi"], "--price must be bid, ask or mid (did you mean 'mid'?)"],
      [["oanda", "--symbols", "USDEUR"], "--symbols: 'USDEUR' is written the other way round by the market: did you mean EURUSD?"],
      [["oanda", "--symbols", "EUR_US"], "--symbols: 'EUR_US' is not a currency pair: write it EUR_USD, EUR-USD or EURUSD"],
      [["oanda", "--quote", "USD"], "--quote is for exchanges; oanda takes --symbols EUR_USD,USDJPY (default the 28 majors)"],
      [["oanda", "--timeframe", "d"], "FOREX days are derived from h1 or h4 on the 17:00 New York session: use --timeframe h1 (or h4)"],
      [["oanda", "--live", "--api-url", "http://127.0.0.1:9"], "--live and --api-url both choose the host: give one"],
      [["dukascopy", "--live"], "--live is for oanda: Dukascopy's history needs no account"],
      [["dukascopy", "--symbols", "EURXYZ"], "--symbols: Dukascopy has no instrument EURXYZ"],
      [["oandaa", "--symbols", "EUR_USD"], "did you mean 'oanda'?"],
    ];
    for (const [args, message] of cases) {
      const result = await xqlIn(["data", "sync", ...args, "--db", db], { env: ENV });
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toContain(message);
    }
  });
});
