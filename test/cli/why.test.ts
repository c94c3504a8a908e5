/**
 * `xql why` in process over a real SQLite file: the tree for people (its exact text, a golden
 * output) and JSON equal to the library's answer over the same bars.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { fetchUniverse } from "../../src/fetch/fetch.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { barOpen, tempDir } from "../kit/index.js";
import { NOW, seedSmallUniverse } from "../server/helpers.js";
import { xqlIn } from "./in-process.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nlet up = close > 495\nup and d::close > 0 and not (close[1] > 1000)';
let temp: { dir: string; cleanup(): void };
let db: string;

beforeAll(async () => {
  temp = tempDir();
  db = join(temp.dir, "xql.db");
  const store = new SqliteStore(db);
  await seedSmallUniverse(store);
  await store.close();
});
afterAll(() => temp.cleanup());

describe("xql why", () => {
  it("prints the tree for people", async () => {
    const r = await xqlIn(["why", "-", "--symbol", "EURUSD", "--db", db], { input: QUERY });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const latest = new Date(barOpen("h1", NOW)).toISOString().slice(0, 16).replace("T", " ");
    const lines = r.stdout.split("\n");
    expect(lines[0]).toBe(`EURUSD at ${latest} UTC: matches`);
    expect(lines.slice(1, 4)).toEqual(["✓ up and d::close > 0 and not close[1] > 1000", "  ✓ up", "    ✓ close > 495"]);
    expect(lines[4]).toBe("        close = 499");
    expect(lines[5]).toBe("        495 = 495");
    expect(lines[6]).toBe("  ✓ d::close > 0");
    expect(lines[7]).toMatch(/^ {6}d::close = \d+ {2}\(bar of \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);
    expect(lines[9]).toBe("  ✓ not close[1] > 1000");
    expect(lines[10]).toBe("    ✗ close[1] > 1000");
    expect(lines.at(-2)).toBe("columns: close = 499");
  });

  it("prints JSON equal to the library's why over the store's bars, and fails clearly without bars", async () => {
    const r = await xqlIn(["why", "-", "--symbol", "GBPUSD", "--format", "json", "--at", new Date(barOpen("h1", NOW) - 3_600_000).toISOString(), "--db", db], { input: QUERY });
    expect(r.code).toBe(0);
    const store = new SqliteStore(db);
    try {
      const compiled = compile(QUERY);
      const universe = await fetchUniverse(store, compiled.plan, { fetch: compiled.fetch, symbols: ["GBPUSD"], extraBaseBars: 3 });
      expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(compiled.why(universe[0]!, { at: barOpen("h1", NOW) - 3_600_000 }))));
    } finally {
      await store.close();
    }
    const none = await xqlIn(["why", "-", "--symbol", "NOPE", "--db", db], { input: QUERY });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe("xql why: No bars for NOPE on FOREX h1\n");
    expect((await xqlIn(["why", "-", "--db", db], { input: QUERY })).code).toBe(2);
  });
});
