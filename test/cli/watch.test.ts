/**
 * `xql watch FILE` in-process over a real SQLite file, with bars written by another connection
 * (as `xql data sync --follow` in another process writes them): one line per enter and exit as
 * each bar closes, NDJSON with --format json, exit 0 when stopped.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/open/sqlite.js";
import { Signal, tempDir, until } from "../kit/index.js";
import { xqlIn } from "./in-process.js";

const HOUR = 3_600_000;
/** Thirty hours back from the last whole hour: every bar written has closed. */
const START = Math.floor(Date.now() / HOUR) * HOUR - 30 * HOUR;
const QUERY = 'market = "CRYPTO"\ntimeframe = h1\ncolumns = [close]\nclose > 100\n';

function bar(hour: number, close: number) {
  return { time: [START + hour * HOUR], open: [close], high: [close], low: [close], close: [close], volume: [1] };
}

describe("xql watch", () => {
  const temp = tempDir();
  afterAll(() => temp.cleanup());

  it.each(["json", "table"] as const)("prints the enters and exits of each closing bar written by another connection (--format %s)", async (format) => {
    const db = join(temp.dir, `${format}.db`);
    const file = join(temp.dir, "screen.xql");
    writeFileSync(file, QUERY);
    const writer = new SqliteStore(db);
    await writer.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: bar(0, 150) }, { symbol: "BBB", bars: bar(0, 50) }] }]);
    const stop = new AbortController();
    let stderr = "";
    let printed = "";
    const written = new Signal();
    const watching = xqlIn(["watch", file, "--db", db, "--format", format], {
      stop: stop.signal,
      onStderr: (text) => {
        stderr = text;
        written.notify();
      },
      onStdout: (text) => {
        printed = text;
        written.notify();
      },
    });
    let stdout = "";
    try {
      await until(() => stderr.includes("waiting for bars to close"), { signal: written });
      expect(stderr).toContain(`CRYPTO h1, 1 matching at ${new Date(START).toISOString().replace("T", " ").slice(0, 16)} UTC (AAA)`);
      await writer.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: bar(1, 150) }, { symbol: "BBB", bars: bar(1, 120) }] }]);
      // Two bars at once: each is evaluated, in order.
      await writer.upsertBars([
        { market: "CRYPTO", timeframe: "h1", symbols: [{ symbol: "AAA", bars: { time: [START + 2 * HOUR, START + 3 * HOUR], open: [90, 90], high: [90, 90], low: [90, 90], close: [90, 95], volume: [1, 1] } }, { symbol: "BBB", bars: { time: [START + 2 * HOUR, START + 3 * HOUR], open: [130, 10], high: [130, 10], low: [130, 10], close: [130, 10], volume: [1, 1] } }] },
      ]);
      // The three events of bars 1 to 3 (checked below), printed as each bar closes.
      await until(() => printed.split("\n").length > 3, { signal: written, what: "three lines of events" });
    } finally {
      stop.abort("SIGINT");
      const result = await watching;
      expect(result.code).toBe(0);
      stdout = result.stdout;
      await writer.close();
    }
    const lines = stdout.trimEnd().split("\n");
    if (format === "json") {
      expect(lines.map((l) => JSON.parse(l))).toEqual([
        { time: START + HOUR, timeframe: "h1", symbol: "BBB", kind: "enter", columns: { close: 120 } },
        // Exits carry the columns at their bar (decisions §7): the values that stopped the match.
        { time: START + 2 * HOUR, timeframe: "h1", symbol: "AAA", kind: "exit", columns: { close: 90 } },
        { time: START + 3 * HOUR, timeframe: "h1", symbol: "BBB", kind: "exit", columns: { close: 10 } },
      ]);
    } else {
      const at = (h: number) => `${new Date(START + h * HOUR).toISOString().replace("T", " ").slice(0, 16)} UTC`;
      expect(lines).toEqual([`${at(1)}  enter  BBB  close=120`, `${at(2)}  exit   AAA  close=90`, `${at(3)}  exit   BBB  close=10`]);
    }
  });

  it("refuses csv, a missing FILE, and reports a bad query like run does", async () => {
    expect((await xqlIn(["watch", "x.xql", "--format", "csv"])).code).toBe(2);
    expect((await xqlIn(["watch"])).stderr).toContain("xql watch needs the query");
    const db = join(temp.dir, "bad.db");
    const input = 'market = "CRYPTO"\ntimeframe = h1\nrsi(14 < 30';
    const json = await xqlIn(["watch", "-", "--db", db, "--format", "json"], { input });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, error: { type: "syntax" } });
    const table = await xqlIn(["watch", "-", "--db", db], { input });
    expect(table.code).toBe(1);
    expect(table.stderr).toContain("^");
  });
});
