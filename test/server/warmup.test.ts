/**
 * Warm-up through the real service (issue 10, item 4): rsi(200), ema(200) and atr(200) screened
 * over HTTP on a seeded SQLite file agree with the values computed over the whole history to
 * 1e-4 relative. The service fetches `compile(q).fetch` bars (lookback plus convergence), not
 * the 300 it used to, where rsi(200) was points off.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/open/sqlite.js";
import { seedStore } from "../../src/synthetic/seed.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
import { compile } from "../../src/index.js";
import { tempDir } from "../kit/index.js";
import { NOW, startServer, type Running } from "./helpers.js";

const ALL = 4000;
const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [rsi(200), ema(200), atr(200)]\ntrue';

describe("warm-up through the service", () => {
  const temp = tempDir();
  const file = join(temp.dir, "xql.db");
  let server: Running;

  beforeAll(async () => {
    const store = new SqliteStore(file);
    await seedStore(store, { bars: ALL, end: NOW, timeframes: ["h1"] });
    store.close();
    server = await startServer({ file, dir: temp.dir, seed: false });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    temp.cleanup();
  });

  it("fetches more than 300 bars for these calls", () => {
    expect(compile(QUERY).fetch[0]!.bars).toBeGreaterThan(2900);
    expect(compile(QUERY).fetch[0]!.bars).toBeLessThan(ALL);
  });

  it("rsi(200), ema(200), atr(200) agree with the whole history to 1e-4 relative", async () => {
    const { key } = await server.key();
    const response = await server.post("/xql/run", QUERY, key);
    expect(response.status).toBe(200);
    const { results } = (await response.json()) as { results: { symbol: string; columns: Record<string, number> }[] };
    // The whole history, computed in memory from the same seeded universe.
    const universe = syntheticUniverse({ market: "CRYPTO", symbols: results.length, timeframes: ["h1"], bars: ALL, end: NOW });
    const whole = compile(QUERY).run(universe).results;
    expect(results.length).toBeGreaterThan(5);
    expect(results.map((r) => r.symbol)).toEqual(whole.map((r) => r.symbol));
    let checked = 0;
    results.forEach((row, i) => {
      for (const column of ["rsi(200)", "ema(200)", "atr(200)"]) {
        const want = whole[i]!.columns[column]!;
        const got = row.columns[column]!;
        expect(Math.abs(got - want) / Math.abs(want), `${row.symbol} ${column}: ${got} vs ${want}`).toBeLessThanOrEqual(1e-4);
        checked++;
      }
    });
    expect(checked).toBe(results.length * 3);
  });
});
