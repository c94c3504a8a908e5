/**
 * A run during an import: `xql data import` in a child process writes a large CSV into the same
 * SQLite file the server reads. The import holds the bars file's write lock for its whole
 * (atomic) transaction; runs read from WAL snapshots and write only the quota file, so they
 * answer from the last committed data at once: no 500, no multi-second wait. The test stops
 * the import (SIGSTOP) while it holds the lock, runs, and lets it go on: the runs are inside
 * its transaction by construction, not by racing it.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { spawnXql } from "../cli/run-cli.js";
import { startServer, type Running } from "./helpers.js";
import { until } from "../kit/index.js";

const QUERY = 'market = "FOREX"\ntimeframe = h1\ncolumns = [close]\nsort = close desc\nclose > 440 and d::close > 0';

let server: Running | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

/** 40 symbols × 8,000 m1 bars ending an hour ago: 320,000 rows. */
function bigCsv(file: string): void {
  const end = Math.floor((Date.now() - 3_600_000) / 60_000) * 60_000;
  const lines = ["symbol,time,open,high,low,close,volume"];
  for (let s = 0; s < 40; s++) {
    for (let i = 0; i < 8000; i++) {
      const price = 100 + s + (i % 50) / 10;
      lines.push(`IMP${s},${end - (7999 - i) * 60_000},${price},${price + 1},${price - 1},${price},${1000 + i}`);
    }
  }
  writeFileSync(file, lines.join("\n"));
}

/** True while another connection holds the database's write lock (the import's transaction). */
function writeLocked(probe: Database.Database): boolean {
  try {
    probe.exec("BEGIN IMMEDIATE");
    probe.exec("ROLLBACK");
    return false;
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) return true;
    throw error;
  }
}

describe("a run during an import", () => {
  it("answers 200 at once from the last committed data while `xql data import` holds the write lock", async () => {
    server = await startServer();
    const { key } = await server.key("plus");
    const csv = join(server.dir, "big.csv");
    bigCsv(csv);
    const probe = new Database(server.file);
    probe.pragma("busy_timeout = 0");
    const child = spawnXql(["data", "import", csv, "--market", "IMPORT", "--timeframe", "m1", "--db", server.file]);
    let stderr = "";
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdout!.resume();
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    let done = false;
    void exited.then(() => (done = true));
    const during: { status: number; ms: number }[] = [];
    const other: { status: number; ms: number }[] = [];
    /** One run and a health check, timed; `during` when the import holds the write lock meanwhile. */
    const runOnce = async (into: typeof during): Promise<void> => {
      const started = performance.now();
      const response = await server!.post("/xql/run", QUERY, key);
      await response.arrayBuffer();
      into.push({ status: response.status, ms: performance.now() - started });
      const health = await server!.get("/health");
      expect(health.status).toBe(200);
    };
    await runOnce(other);
    try {
      // The import is stopped (SIGSTOP) once it is seen holding the write lock, so the runs below
      // all happen inside its transaction however fast or slow this machine is; a lock seen just
      // as it was let go is looked for again.
      for (;;) {
        await until(() => done || writeLocked(probe), { what: "the import holding the write lock" });
        expect(done, `the import ended before it was seen holding the write lock: ${stderr}`).toBe(false);
        child.kill("SIGSTOP");
        if (writeLocked(probe)) break;
        child.kill("SIGCONT");
      }
      for (let i = 0; i < 3; i++) await runOnce(during);
      // Still inside the import's transaction: every run above answered from a WAL snapshot.
      expect(writeLocked(probe)).toBe(true);
      child.kill("SIGCONT");
      expect(await exited, stderr).toBe(0);
      await runOnce(other);
    } finally {
      probe.close();
      child.kill("SIGCONT");
      child.kill();
    }
    const all = [...during, ...other];
    const slowest = Math.max(...all.map((r) => r.ms));
    const duringMs = during.map((r) => r.ms).sort((a, b) => a - b);
    console.log(
      `run during an import: ${during.length} runs while the import held the write lock (median ${duringMs[Math.floor(duringMs.length / 2)]?.toFixed(1)} ms, slowest ${duringMs.at(-1)?.toFixed(1)} ms), ${other.length} otherwise; slowest of all ${slowest.toFixed(1)} ms`,
    );
    expect(all.every((r) => r.status === 200)).toBe(true);
    // Answered while the stopped import held the write lock: a run that waited for it would never be.
    expect(during.length).toBe(3);
    // The import landed whole, and runs see it now.
    const store = server.store;
    // 40 imported m1 series, and every coarser timeframe derived from them (7 more each).
    const series = await store.series("IMPORT");
    expect(series.filter((s) => s.timeframe === "m1").length).toBe(40);
    expect(series.length).toBe(320);
  }, 120_000);
});
