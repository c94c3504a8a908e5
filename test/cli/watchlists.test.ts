/**
 * `xql watchlists` and `watchlist = "name"` on the command line, in process over a real SQLite
 * file: the store's local lists, and run/history over them equal to the whole market's
 * filtered; an unknown list is the plan error with exit 1.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir } from "../kit/index.js";
import { seedSmallUniverse } from "../server/helpers.js";
import { xqlIn } from "./in-process.js";

const BODY = "columns = [close]\nclose > 0";
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

describe("xql watchlists", () => {
  it("sets, lists and deletes the store's lists", async () => {
    expect(await xqlIn(["watchlists", "set", "majors", "EURUSD,GBPUSD", "NOPE", "--db", db])).toMatchObject({ code: 0, stdout: "saved majors: 3 symbols\n" });
    expect(await xqlIn(["watchlists", "set", "majors", "EURUSD,GBPUSD,NOPE", "--db", db])).toMatchObject({ code: 0, stdout: "replaced majors: 3 symbols\n" });
    const listed = await xqlIn(["watchlists", "list", "--format", "json", "--db", db]);
    expect((JSON.parse(listed.stdout) as { watchlists: { name: string; symbols: string[] }[] }).watchlists.map((w) => [w.name, w.symbols])).toEqual([
      ["majors", ["EURUSD", "GBPUSD", "NOPE"]],
    ]);
    const table = await xqlIn(["watchlists", "list", "--db", db]);
    expect(table.stdout).toMatch(/majors\s+3\s+EURUSD GBPUSD NOPE/);
    expect((await xqlIn(["watchlists", "set", "Bad Name", "EURUSD", "--db", db])).code).toBe(2);
    expect((await xqlIn(["watchlists", "set", "x", "A,A", "--db", db])).stderr).toContain("Duplicate symbol 'A'");
    expect(await xqlIn(["watchlists", "set", "gone", "EURUSD", "--db", db])).toMatchObject({ code: 0 });
    expect(await xqlIn(["watchlists", "delete", "gone", "--db", db])).toMatchObject({ code: 0, stdout: "deleted gone\n" });
    expect((await xqlIn(["watchlists", "delete", "gone", "--db", db])).code).toBe(1);
  });

  it("runs and histories over a list as the whole market filtered; an unknown list exits 1", async () => {
    await xqlIn(["watchlists", "set", "pair", "EURUSD", "NOPE", "--db", db]);
    const header = 'market = "FOREX"\ntimeframe = h1\n';
    const whole = JSON.parse((await xqlIn(["run", "-", "--db", db], { input: header + BODY })).stdout) as { results: { symbol: string }[] };
    const run = await xqlIn(["run", "-", "--db", db], { input: `${header}watchlist = "pair"\n${BODY}` });
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { results: { symbol: string }[]; meta: { instruments: number; skipped: { noData: number } } };
    expect(body.results).toEqual(whole.results.filter((r) => r.symbol === "EURUSD"));
    expect(body.meta).toMatchObject({ instruments: 2, skipped: { noData: 1 } });
    const wholeHistory = JSON.parse((await xqlIn(["history", "-", "--bars", "5", "--db", db], { input: header + BODY })).stdout) as { matches: { symbol: string }[] };
    const history = JSON.parse((await xqlIn(["history", "-", "--bars", "5", "--db", db], { input: `${header}watchlist = "pair"\n${BODY}` })).stdout) as typeof wholeHistory;
    expect(history.matches).toEqual(wholeHistory.matches.filter((m) => m.symbol === "EURUSD"));
    const unknown = await xqlIn(["run", "-", "--db", db], { input: `${header}watchlist = "nope"\n${BODY}` });
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.stdout)).toEqual({ valid: false, error: { type: "plan", message: "Unknown watchlist 'nope'" } });
    const synthetic = await xqlIn(["run", "-", "--synthetic"], { input: `${header}watchlist = "pair"\n${BODY}` });
    expect(synthetic.code).toBe(1);
  });
});
