/** `xql history` through the real command line (a child process), over a real SQLite file. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { join } from "node:path";
import { SqliteStore } from "../../src/open/sqlite.js";
import { compile, syntheticUniverse } from "../../src/index.js";
import { seedSmallUniverse, NOW } from "../server/helpers.js";
import { barOpen, tempDir } from "../kit/index.js";
import { xql } from "./run-cli.js";
import { CRYPTO_SYMBOLS } from "../../src/synthetic/symbols.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nclose > 495 and d::close > 0';
const HOUR = 3_600_000;
let temp: { dir: string; cleanup(): void };
let db: string;

beforeAll(async () => {
  temp = tempDir();
  db = join(temp.dir, "xql.db");
  const store = new SqliteStore(db);
  await seedSmallUniverse(store);
  store.close();
});
afterAll(() => temp.cleanup());

describe("xql history", () => {
  it("prints the body of POST /xql/history for a query on standard input", async () => {
    const r = await xql(["history", "-", "--bars", "10", "--db", db], { input: QUERY });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const body = JSON.parse(r.stdout) as { matches: { time: number; symbol: string }[]; stats: { bars: number; matches: number } };
    const latest = barOpen("h1", NOW);
    expect(body.matches.map((m) => [m.time, m.symbol])).toEqual([3, 2, 1, 0].map((ago) => [latest - ago * HOUR, "EURUSD"]));
    expect(body.stats).toMatchObject({ bars: 10, matches: 4 });
  });

  it("prints matches per day and the forward statistics with --format table", async () => {
    const r = await xql(["history", "-", "--bars", "30", "--format", "table", "--db", db], { input: QUERY });
    expect(r.code).toBe(0);
    const day = new Date(barOpen("h1", NOW)).toISOString().slice(0, 10);
    expect(r.stdout).toMatch(new RegExp(`${day}\\s+4\\s+EURUSD`));
    expect(r.stdout).toMatch(/1 bar\s+3\s+[0-9.]+\s+[0-9.]+\s+1\n/);
    expect(r.stdout).toMatch(/20 bars\s+0\s+-\s+-\s+-/);
    expect(r.stdout).toContain("4 matches on 1 symbol; 3 instruments");
  });

  it("prints one CSV line per match with --format csv", async () => {
    const r = await xql(["history", "-", "--bars", "10", "--format", "csv", "--db", db], { input: QUERY });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe("time,symbol,close");
    expect(lines.slice(1)).toEqual([496, 497, 498, 499].map((c, i) => `${new Date(barOpen("h1", NOW) - (3 - i) * HOUR).toISOString()},EURUSD,${c}`));
  });

  it("with --synthetic equals the library over the synthetic universe", async () => {
    const q = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [rsi(14)]\nrsi(14) < 35';
    const r = await xql(["history", "-", "--synthetic", "--bars", "50"], { input: q });
    expect(r.code).toBe(0);
    const c = compile(q);
    // The CLI's universe: every CRYPTO symbol, max(minLookback, warmup 300) + 50 bars.
    const universe = syntheticUniverse({ market: "CRYPTO", symbols: CRYPTO_SYMBOLS.length, timeframes: ["h1"], bars: 300 + 50 });
    const expected = c.history(universe, { bars: 50 });
    expect(expected.stats.matches).toBeGreaterThan(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(expected)));
  });

  it("refuses a bad window or an unknown option with exit 2, a query error with exit 1 and the 400 body", async () => {
    const bad = await xql(["history", "-", "--bars", "0", "--db", db], { input: QUERY });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--bars must be an integer from 1 to 1000");
    const unknown = await xql(["history", "-", "--barz", "5", "--db", db], { input: QUERY });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/barz/);
    const invalid = await xql(["history", "-", "--db", db], { input: 'market = "FOREX"\ntimeframe = h1\nrsi(14 < 30' });
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toMatchObject({ valid: false, error: { type: "syntax" } });
  });
});
