import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compile, validate } from "../../src/api.js";
import { fetchCount } from "../../src/fetch/fetch.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
import { CRYPTO_SYMBOLS } from "../../src/synthetic/symbols.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir } from "../kit/index.js";
import { ROOT, spawnXql, xql } from "./run-cli.js";

const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close, rsi(14)]\nsort = rsi(14) asc\nlimit = 5\nrsi(14) < 50 and close > d::sma(20) * 0';

describe("xql serve and xql run over one database", () => {
  let dir: string;
  let cleanup: () => void;
  let db: string;
  beforeAll(() => {
    ({ dir, cleanup } = tempDir());
    db = join(dir, "xql.db");
  });
  afterAll(() => cleanup());

  it(
    "serve seeds an empty store on first start, answers a key made by keys create like xql run does, and stops on SIGTERM",
    async () => {
      const server = spawnXql(["serve", "--port", "0", "--db", db]);
      let stderr = "";
      let stdout = "";
      server.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
      const exited = new Promise<number | null>((resolve) => server.on("close", resolve));
      const url = await new Promise<string>((resolve, reject) => {
        server.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
          stderr += chunk;
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
          if (match) resolve(match[1]!);
        });
        server.on("close", () => reject(new Error(`serve exited early: ${stderr}`)));
      });
      try {
        expect(stderr).toMatch(/holds no bars; seeding/);
        expect(stderr).toMatch(/no API keys yet/);
        const store = new SqliteStore(db);
        const series = await store.series("CRYPTO");
        await store.close();
        expect(new Set(series.map((s) => s.symbol)).size).toBeGreaterThanOrEqual(200);
        expect(series.every((s) => s.bars >= 300)).toBe(true);
        // The seed ends at the current time: every timeframe's last bar holds "now".
        expect(Math.max(...series.filter((s) => s.timeframe === "h1").map((s) => s.lastTime))).toBeGreaterThan(Date.now() - 2 * 3_600_000);

        const health = await fetch(`${url}/health`);
        expect(health.status).toBe(200);

        const created = await xql(["keys", "create", "--tier", "free", "--db", db]);
        const key = created.stdout.trimEnd().split("\n").at(-1)!;
        const response = await fetch(`${url}/xql/run`, { method: "POST", body: QUERY, headers: { authorization: `Bearer ${key}` } });
        expect(response.status).toBe(200);
        expect(response.headers.get("x-ratelimit-remaining")).toBe("29");
        const body = await response.text();
        expect((JSON.parse(body) as { results: unknown[] }).results.length).toBeGreaterThan(0);

        const cli = await xql(["run", "-", "--db", db], { input: QUERY });
        expect(cli.code).toBe(0);
        expect(cli.stdout.trim()).toBe(body);
      } finally {
        server.kill("SIGTERM");
      }
      expect(await exited).toBe(0);
      expect(stderr).toContain("stopped (SIGTERM)");
      const logs = stdout.trim().split("\n").map((line) => JSON.parse(line) as { msg?: string });
      expect(logs.some((l) => l.msg === "run")).toBe(true);
      expect(stdout).not.toMatch(/xql_[0-9A-Za-z]{32}/);
    },
    60_000,
  );

  it("prints the 400 body on standard output and exits 1 for a bad query", async () => {
    const bad = 'market = "CRYPTO"\ntimeframe = h1\nrsi(14 < 30';
    const result = await xql(["run", "--db", db], { input: bad });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual(validate(bad));
  });

  it("prints a table for people", async () => {
    const result = await xql(["run", "-", "--format", "table", "--db", db], { input: QUERY });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^symbol\s+close\s+rsi\(14\)$/);
    expect(lines[1]).toMatch(/^-+\s+-+\s+-+$/);
    // The footer is the run's meta: shown (after limit) of matched, instruments, skipped, and the time of the data.
    expect(lines.at(-1)).toMatch(/^(\d+ match(es)?|\d+ shown of \d+ matches) of 264 instruments · as of \d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
  });

  it("runs over the in-memory synthetic universe with --synthetic, as the library does", async () => {
    const result = await xql(["run", "--synthetic"], { input: QUERY });
    expect(result.code).toBe(0);
    const { plan } = compile(QUERY);
    const bars = Math.max(...plan.sources.map((s) => fetchCount(s.minLookback, 300))) + 1;
    const universe = syntheticUniverse({ market: "CRYPTO", symbols: CRYPTO_SYMBOLS.length, timeframes: plan.sources.map((s) => s.timeframe), bars });
    expect(JSON.parse(result.stdout)).toEqual(compile(QUERY).run(universe));
    const again = await xql(["run", "--synthetic"], { input: QUERY });
    expect(again.stdout).toBe(result.stdout);
  });

  it("runs every example query in examples/", async () => {
    const { readdirSync } = await import("node:fs");
    const examples = readdirSync(join(ROOT, "examples")).filter((f) => f.endsWith(".xql"));
    expect(examples.length).toBeGreaterThanOrEqual(4);
    for (const file of examples) {
      const text = readFileSync(join(ROOT, "examples", file), "utf8");
      expect(validate(text), file).toEqual({ valid: true });
      const result = await xql(["run", join(ROOT, "examples", file), "--db", db]);
      expect(result.code, `${file}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout)).toHaveProperty("results");
    }
  }, 60_000);

  it.each(["run", "serve"])("xql %s --help", async (name) => {
    const { code, stdout } = await xql([name, "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain(`xql ${name}`);
  });
});
