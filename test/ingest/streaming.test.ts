/**
 * A streaming import of a file larger than its memory bound (issue 19), in a child process
 * whose peak RSS is asserted: 1,200,000 bars in a 300 MB file (each line padded with a column
 * the import skips) go into the store, derived timeframes included, while the importer holds
 * at most 256 MB; on SQLite, and on PostgreSQL when XQL_TEST_DATABASE_URL is set.
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/open/open.js";
import { freshDatabase } from "../scale/helpers.js";
import { tempDir } from "../kit/index.js";

const ROWS = 1_200_000;
const CHILD = fileURLToPath(new URL("../../bench/data-import.ts", import.meta.url));
const TSX = new URL("../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const OPTIONS = { market: "CRYPTO", timeframe: "m1", symbol: "BIGFILE", columns: ["time", "open", "high", "low", "close", "volume", "-"], timeFormat: "ms" };

const { dir, cleanup } = tempDir("xql-streaming-");
const file = join(dir, "big.csv");

beforeAll(async () => {
  const out = createWriteStream(file);
  const pad = "x".repeat(200);
  const t0 = Date.UTC(2021, 0, 4);
  let lines: string[] = [];
  for (let i = 0; i < ROWS; i++) {
    const o = 100 + (i % 1000) / 100;
    lines.push(`${t0 + i * 60_000};${o};${o + 1};${o - 1};${o + 0.5};${i % 97};${pad}`);
    if (lines.length === 20_000) {
      if (!out.write(`${lines.join("\n")}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
      lines = [];
    }
  }
  out.end();
  await new Promise<void>((resolve) => out.once("finish", () => resolve()));
}, 120_000);
afterAll(cleanup);

function importInChild(database: string): { rows: number; seconds: number; maxRssMb: number } {
  const run = spawnSync(process.execPath, ["--import", TSX, CHILD, file, database, JSON.stringify(OPTIONS)], { encoding: "utf8" });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { rows: number; seconds: number; maxRssMb: number };
}

describe("a streaming import larger than its memory bound", () => {
  it("is a file larger than 256 MB", () => {
    expect(statSync(file).size).toBeGreaterThan(256 * 1024 * 1024);
  });

  const targets: [string, () => Promise<{ url: string; drop?: () => Promise<void> }>][] = [["SQLite", async () => ({ url: join(dir, "big.db") })]];
  const url = process.env.XQL_TEST_DATABASE_URL;
  if (url) targets.push(["PostgreSQL", () => freshDatabase(url)]);
  for (const [name, target] of targets) {
    it(`goes into ${name} with the importer's peak RSS under 256 MB`, async () => {
      const { url: database, drop } = await target();
      try {
        const result = importInChild(database);
        expect(result.rows).toBe(ROWS);
        expect(result.maxRssMb).toBeLessThan(256);
        const store = await openStore(database);
        try {
          expect(await store.barCount()).toBe(ROWS);
          const series = await store.series("CRYPTO");
          expect(series.map((s) => [s.timeframe, s.derived]).sort()).toEqual([["d", true], ["h1", true], ["h4", true], ["m1", false], ["m15", true], ["m30", true], ["m5", true], ["w", true]]);
          expect(series.find((s) => s.timeframe === "h1")!.bars).toBe(ROWS / 60);
        } finally {
          await store.close();
        }
      } finally {
        await drop?.();
      }
    }, 600_000);
  }
});
