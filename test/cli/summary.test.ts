/** The table's summary line says what `meta` knows when nothing could be evaluated, never "as of no bars" while bars exist. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir } from "../kit/index.js";
import { xqlIn } from "./in-process.js";

const DAY = 86_400_000;
const START = Date.UTC(2026, 10, 23);

describe("xql run --format table, summary line", () => {
  let dir: string;
  let cleanup: () => void;
  let db: string;
  beforeAll(async () => {
    ({ dir, cleanup } = tempDir());
    db = join(dir, "m1.db");
    // Three days of m1 bars for three symbols: enough for m1, three daily bars derived.
    const count = (3 * DAY) / 60_000;
    const time = Array.from({ length: count }, (_, i) => START + i * 60_000);
    const prices = time.map((_, i) => 100 + Math.sin(i / 50));
    const store = new SqliteStore(db);
    await store.upsertBars([
      {
        market: "CRYPTO",
        timeframe: "m1",
        symbols: ["AAAUSDT", "BBBUSDT", "CCCUSDT"].map((symbol) => ({
          symbol,
          bars: { time, open: prices, high: prices.map((p) => p + 0.5), low: prices.map((p) => p - 0.5), close: prices, volume: prices.map(() => 10) },
        })),
      },
    ]);
    await store.close();
  });
  afterAll(() => cleanup());

  it("names the daily bars a d::sma(200) needs when every instrument is short of them", async () => {
    const r = await xqlIn(["run", "-", "--db", db, "--format", "table"], { input: 'market = "CRYPTO"\ntimeframe = m1\nclose > d::sma(200)' });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe("0 matches of 3 instruments (3 short history) · 3 instruments have fewer than 200 daily bars");
  });

  it("names every need when more than one source is short", async () => {
    const r = await xqlIn(["run", "-", "--db", db, "--format", "table", "--ceiling", "6000"], { input: 'market = "CRYPTO"\ntimeframe = m1\nrsi(5000) > 50 and close > d::sma(20)' });
    expect(r.stdout.trimEnd().split("\n").at(-1)).toMatch(/· 3 instruments have fewer than 20 daily bars or 5,001 m1 bars$/);
  });

  it("keeps the time of the data when something was evaluated", async () => {
    const r = await xqlIn(["run", "-", "--db", db, "--format", "table"], { input: 'market = "CRYPTO"\ntimeframe = m1\nclose > d::sma(2)' });
    expect(r.stdout.trimEnd().split("\n").at(-1)).toMatch(/of 3 instruments · as of 2026-11-25T23:59:00\.000Z$/);
  });
});
