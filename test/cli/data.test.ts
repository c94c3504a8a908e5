import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SqliteStore } from "../../src/open/sqlite.js";
import { TIMEFRAMES } from "../../src/types.js";
import { tempDir } from "../kit/index.js";
import { xqlIn } from "./in-process.js";

/** `xql ...args` in this process, as every command runs (data included: it talks only through its CliIo). */
const xql = (args: readonly string[], options: { input?: string; cwd?: string } = {}) => xqlIn(args, options);

const T0 = Date.UTC(2026, 0, 5, 10);

describe("xql data", () => {
  let dir: string;
  let cleanup: () => void;
  beforeAll(() => ({ dir, cleanup } = tempDir()));
  afterAll(() => cleanup());

  it("imports a CSV file, idempotently, into the named market and timeframe", async () => {
    const db = join(dir, "import.db");
    const file = join(dir, "bars.csv");
    const rows = Array.from({ length: 50 }, (_, i) => `ACME,${new Date(T0 + i * 3_600_000).toISOString()},10,11,9,10.5,1000`);
    writeFileSync(file, ["symbol,time,open,high,low,close,volume", ...rows].join("\n"));
    for (let pass = 0; pass < 2; pass++) {
      const result = await xql(["data", "import", file, "--market", "stocks", "--timeframe", "h1", "--db", db]);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("Imported 50 h1 bars of 1 symbol into market STOCKS");
      // Not a terminal: no progress bar escapes; standard error names the format taken and the database made (once, after the write that keeps it).
      expect(result.stderr).toMatch(
        new RegExp(`^xql data import: read .+ as xql CSV \\(symbol,time,open,high,low,close,volume; [^\\n]*\\)\\n${pass === 0 ? "xql: created the database .+import\\.db\\n" : ""}$`),
      );
    }
    const store = new SqliteStore(db);
    expect(await store.barCount()).toBe(50);
    await store.close();
    const status = await xql(["data", "status", "--db", db]);
    expect(status.stdout).toMatch(/STOCKS\s+h1\s+1\s+50/);
  });

  it("deletes a symbol's bars, all of them or from a time on, and status stays readable", async () => {
    const db = join(dir, "delete.db");
    const file = join(dir, "delete.csv");
    const rows = ["ACME", "BETA"].flatMap((symbol) =>
      Array.from({ length: 10 }, (_, i) => `${symbol},${new Date(T0 + i * 3_600_000).toISOString()},10,11,9,10.5,1000`),
    );
    writeFileSync(file, rows.join("\n"));
    expect((await xql(["data", "import", file, "--market", "stocks", "--timeframe", "h1", "--db", db])).code).toBe(0);
    const partial = await xql(["data", "delete", "--symbol", "ACME", "--from", new Date(T0 + 6 * 3_600_000).toISOString(), "--db", db]);
    expect(partial.code).toBe(0);
    expect(partial.stdout).toContain("Deleted 4 bars of ACME (from 2026-01-05T16:00:00.000Z)");
    let store = new SqliteStore(db);
    const acme = (await store.series("STOCKS")).find((s) => s.symbol === "ACME" && s.timeframe === "h1")!;
    expect(acme).toMatchObject({ bars: 6, lastTime: T0 + 5 * 3_600_000, derived: false });
    // Its daily bar is derived again from the six h1 bars left: volume 6 × 1000.
    const [daily] = await store.latestBars({ market: "STOCKS", timeframe: "d", baseTimeframe: "d", series: ["volume"], count: 5 }).then((r) =>
      r.filter((x) => x.symbol === "ACME"),
    );
    expect(Array.from(daily!.bars.volume)).toEqual([6000]);
    store.close();
    const whole = await xql(["data", "delete", "--symbol", "BETA", "--market", "stocks", "--db", db]);
    expect(whole.stdout).toContain("Deleted 10 bars of BETA (market STOCKS)");
    store = new SqliteStore(db);
    expect([...new Set((await store.series()).map((s) => s.symbol))]).toEqual(["ACME"]);
    store.close();
    expect((await xql(["data", "delete", "--db", db])).code).toBe(2);
    expect((await xql(["data", "delete", "--symbol", "ACME", "--from", "soon", "--db", db])).stderr).toContain("--from: time 'soon'");
    expect((await xql(["data", "status", "--db", db])).stdout).toMatch(/STOCKS\s+h1\s+1\s+6/);
  });

  it("rejects a far-future time by line number, writing nothing", async () => {
    const db = join(dir, "future.db");
    const file = join(dir, "future.csv");
    writeFileSync(file, [`ACME,${T0},10,11,9,10.5,1000`, `ACME,8640000000000000,10,11,9,10.5,1000`].join("\n"));
    const result = await xql(["data", "import", file, "--market", "STOCKS", "--timeframe", "h1", "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/line 2: time '8640000000000000' is in the future: bars may open at most 2 days after now .*; nothing was written/);
  });

  it("reports a bad row by line number, writes nothing and exits 1", async () => {
    const db = join(dir, "bad.db");
    const file = join(dir, "bad.csv");
    writeFileSync(file, [`ACME,${T0},10,11,9,10.5,1000`, `ACME,${T0 + 3_600_000},10,9,9,10.5,1000`].join("\n"));
    const result = await xql(["data", "import", file, "--market", "STOCKS", "--timeframe", "h1", "--db", db]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("line 2: high 9 is below open, close or low; nothing was written");
    // The database this import would have created is not left behind empty, nor announced.
    expect(result.stderr).not.toContain("created the database");
    expect(readdirSync(dir).filter((name) => name.startsWith("bad.db"))).toEqual([]);
  });

  it("keeps a database that existed before a failed import, with its bars", async () => {
    const db = join(dir, "kept.db");
    const good = join(dir, "kept.csv");
    writeFileSync(good, `ACME,${T0},10,11,9,10.5,1000`);
    expect((await xql(["data", "import", good, "--market", "STOCKS", "--timeframe", "h1", "--db", db])).code).toBe(0);
    const bad = join(dir, "kept-bad.csv");
    writeFileSync(bad, `ACME,${T0 + 3_600_000},10,9,9,10.5,1000`);
    expect((await xql(["data", "import", bad, "--market", "STOCKS", "--timeframe", "h1", "--db", db])).code).toBe(1);
    const store = new SqliteStore(db);
    expect(await store.barCount()).toBe(1);
    await store.close();
  });

  it("refuses an import without --market or --timeframe (usage, exit 2)", async () => {
    const result = await xql(["data", "import", join(dir, "bars.csv"), "--db", join(dir, "x.db")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("data import needs --market M");
  });

  it("seeds the synthetic FOREX and CRYPTO universe at every timeframe", async () => {
    const db = join(dir, "seed.db");
    const result = await xql(["data", "seed", "--bars", "320", "--db", db]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Seeded [\d,]+ bars/);
    const store = new SqliteStore(db);
    const series = await store.series();
    await store.close();
    for (const market of ["FOREX", "CRYPTO"]) {
      for (const timeframe of TIMEFRAMES) {
        const held = series.filter((s) => s.market === market && s.timeframe === timeframe);
        expect(held.length, `${market} ${timeframe}`).toBeGreaterThan(market === "CRYPTO" ? 199 : 9);
        expect(held.every((s) => s.bars === 320)).toBe(true);
      }
    }
  });

  it("says 'no such file' with the name of a missing import file, not the system's ENOENT", async () => {
    const result = await xql(["data", "import", "missing.csv", "--market", "CRYPTO", "--timeframe", "h1", "--db", join(dir, "missing.db")], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("xql data: no such file: missing.csv\n");
    const directory = await xql(["data", "import", dir, "--market", "CRYPTO", "--timeframe", "h1", "--db", join(dir, "missing.db")]);
    expect(directory.stderr).toBe(`xql data: ${dir} is a directory, not a file\n`);
  });

  it("names the timeframe meant: --timeframe 1h is a usage error suggesting h1", async () => {
    const file = join(dir, "tf.csv");
    writeFileSync(file, `ACME,${T0},10,11,9,10.5,1000\n`);
    const result = await xql(["data", "import", file, "--market", "STOCKS", "--timeframe", "1h", "--db", join(dir, "tf.db")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Unknown timeframe '1h', did you mean 'h1'? Timeframes are m1 m5 m15 m30 h1 h4 d w");
    const del = await xql(["data", "delete", "--symbol", "ACME", "--timeframe", "daily", "--db", join(dir, "tf.db")]);
    expect(del.stderr).toContain("Unknown timeframe 'daily', did you mean 'd'?");
    const sync = await xql(["data", "sync", "binance", "--symbols", "BTC/USDT", "--timeframe", "1w", "--db", join(dir, "tf.db")]);
    expect(sync.code).toBe(2);
    expect(sync.stderr).toContain("weeks are derived from days: use --timeframe d");
  });

  it("parses every action's options strictly, with a did-you-mean", async () => {
    const typo = await xql(["data", "import", "x.csv", "--markt", "FOREX"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("xql data import: unknown option '--markt', did you mean '--market'?");
    const action = await xql(["data", "improt"]);
    expect(action.code).toBe(2);
    expect(action.stderr).toContain("unknown action 'improt', did you mean 'import'?");
    const extra = await xql(["data", "status", "extra", "--db", join(dir, "x.db")]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("xql data status takes no argument 'extra'");
    const seedBars = await xql(["data", "seed", "--bars", "0", "--db", join(dir, "x.db")]);
    expect(seedBars.stderr).toContain("--bars must be a positive integer, got '0'");
  });

  it("imports from standard input through the command's own streams", async () => {
    const db = join(dir, "stdin.db");
    const input = Array.from({ length: 5 }, (_, i) => `ACME,${T0 + i * 3_600_000},10,11,9,10.5,1000`).join("\n");
    const result = await xql(["data", "import", "-", "--market", "stocks", "--timeframe", "h1", "--db", db], { input });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Imported 5 h1 bars of 1 symbol into market STOCKS");
    expect(result.stderr).toContain("xql data import: read standard input as xql CSV");
  });

  it("prints help", async () => {
    const { code, stdout } = await xql(["data", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("xql data import FILE|- --market M [--timeframe TF] [--symbol S] [--tz ZONE]");
  });
});
