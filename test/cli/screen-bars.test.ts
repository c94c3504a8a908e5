/**
 * `xql run` and `xql history` read their bars one way (src/cli/screen-bars.ts) and their counts
 * through one `positiveInteger`: history's latest bar is exactly what run reports, on the
 * synthetic universe and on a store file, and both refuse the same malformed numbers.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { positiveInteger, UsageError } from "../../src/cli/command.js";
import { tempDir } from "../kit/index.js";
import { xqlIn } from "./in-process.js";

const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, ema(close, 20)]\nsort = close desc\nclose > ema(close, 20)';

const { dir, cleanup } = tempDir("xql-screen-bars-");
afterAll(cleanup);

/** run's rows, and history's matches at its latest bar, for the same bars. */
async function runAndLatestHistory(source: string[]): Promise<{ run: unknown[]; history: unknown[] }> {
  const run = await xqlIn(["run", ...source, "--format", "json"], { input: QUERY });
  expect(run.code, run.stderr).toBe(0);
  const history = await xqlIn(["history", ...source, "--bars", "1", "--format", "json"], { input: QUERY });
  expect(history.code, history.stderr).toBe(0);
  const matches = (JSON.parse(history.stdout) as { matches: { symbol: string; columns: unknown }[] }).matches;
  const rows = (JSON.parse(run.stdout) as { results: { symbol: string; columns: unknown }[] }).results;
  const bySymbol = (a: { symbol: string }, b: { symbol: string }): number => (a.symbol < b.symbol ? -1 : 1);
  return {
    run: rows.map((r) => ({ symbol: r.symbol, columns: r.columns })).sort(bySymbol),
    history: matches.map((m) => ({ symbol: m.symbol, columns: m.columns })).sort(bySymbol),
  };
}

describe("run and history share their bars", () => {
  it("over --synthetic: history's one bar is run's result", async () => {
    const { run, history } = await runAndLatestHistory(["--synthetic"]);
    expect(run.length).toBeGreaterThan(0);
    expect(history).toEqual(run);
  });

  it("over a store file: history's one bar is run's result", async () => {
    const db = join(dir, "bars.db");
    const store = new SqliteStore(db);
    const instruments = syntheticUniverse({ market: "CRYPTO", symbols: 8, timeframes: ["h1"], bars: 400, seed: 5 });
    await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: instruments.map((i) => ({ symbol: i.symbol, bars: i.bars.h1! })) }]);
    await store.close();
    const { run, history } = await runAndLatestHistory(["--db", db]);
    expect(run.length).toBeGreaterThan(0);
    expect(history).toEqual(run);
  });

  it("refuses --synthetic with --db in both, naming the command", async () => {
    for (const command of ["run", "history"]) {
      const r = await xqlIn([command, "--synthetic", "--db", join(dir, "x.db")], { input: QUERY });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`xql ${command}: --synthetic uses no database; drop --db`);
    }
  });

  it("checks --ceiling before reading the query", async () => {
    for (const command of ["run", "history"]) {
      // No input at all: a usage error must not wait for standard input.
      const r = await xqlIn([command, "--synthetic", "--ceiling", "0"]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`xql ${command}: --ceiling must be a positive integer, got '0'`);
    }
  });
});

describe("positiveInteger", () => {
  it("reads digits only, up to the maximum", () => {
    expect(positiveInteger("history", "bars", undefined, 1000)).toBeUndefined();
    expect(positiveInteger("history", "bars", "1000", 1000)).toBe(1000);
    expect(positiveInteger("run", "ceiling", "9007199254740991")).toBe(Number.MAX_SAFE_INTEGER);
    for (const text of ["0", "-1", "1e3", "0x10", "2.0", " 5", "", "1001"]) {
      expect(() => positiveInteger("history", "bars", text, 1000), text).toThrow(UsageError);
    }
    expect(() => positiveInteger("history", "bars", "1001", 1000)).toThrow("xql history: --bars must be an integer from 1 to 1000, got '1001'");
    expect(() => positiveInteger("run", "ceiling", "9007199254740992")).toThrow("xql run: --ceiling must be a positive integer, got '9007199254740992'");
  });
});
