/**
 * `POST /xql/bars` against the memory of a real `xql serve` process (decisions §14): one push,
 * accepted or refused, grows the server's resident memory by at most 256 MB. Read from the
 * kernel's own account of the process (`/proc/<pid>/status`: VmHWM, the peak resident set),
 * so the peak counts, not what is left after a collection.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir, describeUnless } from "../kit/index.js";
import { spawnXql, xql } from "../cli/run-cli.js";

const MB = 1024 * 1024;
const DAY = 86_400_000;
const MINUTE = 60_000;

/** Starts a new peak: the kernel's VmHWM is reset to the current resident set (`clear_refs` 5). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

/** Resident (VmRSS) and peak resident (VmHWM) bytes of a process, from the kernel. */
function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]) * 1024;
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

describeUnless(process.platform === "linux" ? undefined : "it reads the server's memory from /proc (Linux only)", "POST /xql/bars and the server's memory", () => {
  const { dir, cleanup } = tempDir();
  const db = join(dir, "xql.db");
  let url = "";
  let server: ReturnType<typeof spawnXql>;
  let key = "";
  beforeAll(async () => {
    const created = await xql(["keys", "create", "--tier", "plus", "--scope", "write", "--db", db]);
    key = created.stdout.trimEnd().split("\n").at(-1)!;
    server = spawnXql(["serve", "--port", "0", "--db", db]);
    let stderr = "";
    url = await new Promise<string>((resolve, reject) => {
      server.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
        stderr += chunk;
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stderr);
        if (match) resolve(match[1]!);
      });
      server.on("close", () => reject(new Error(`serve exited early: ${stderr}`)));
    });
  }, 120_000);
  afterAll(async () => {
    const exited = new Promise((resolve) => server.on("close", resolve));
    server.kill("SIGTERM");
    await exited;
    cleanup();
  });

  it("refuses a 14 MB push of one bar for each of 350,000 new symbols, growing the process by less than 256 MB", async () => {
    const day = Math.floor(Date.now() / DAY) * DAY - DAY;
    const time = new Date(day).toISOString().replace(".000Z", "Z");
    const lines = ["symbol,time,open,high,low,close,volume"];
    for (let i = 0; i < 350_000; i++) lines.push(`NEW${i},${time},1,2,1,1,1`);
    const body = `${lines.join("\n")}\n`;
    expect(body.length).toBeGreaterThan(13 * 1000 * 1000);
    expect(body.length).toBeLessThan(16 * MB);
    // A small push first: the write path's code and connections are in place before the baseline.
    const warm = await fetch(`${url}/xql/bars?market=CRYPTO&timeframe=d`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
      body: `symbol,time,open,high,low,close,volume\nWARMUSDT,${time},1.5,2.5,1.25,2,1000\n`,
    });
    expect(warm.status).toBe(200);
    resetPeak(server.pid!);
    const before = memoryOf(server.pid!);

    const response = await fetch(`${url}/xql/bars?market=CRYPTO&timeframe=d`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
      body,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: "the push would create 350,000 new series; one push creates at most 10,000; nothing was written",
      line: 0,
    });
    const after = memoryOf(server.pid!);
    expect(after.peak - before.rss).toBeLessThan(256 * MB);
    // Nothing of it was written, and the server still answers.
    expect((await fetch(`${url}/health`)).status).toBe(200);
    const store = new SqliteStore(db, { readonly: true });
    try {
      const symbols = await store.symbols("CRYPTO");
      expect(symbols).toContain("WARMUSDT");
      expect(symbols.filter((s) => s.startsWith("NEW"))).toEqual([]);
    } finally {
      await store.close();
    }
  }, 120_000);

  it("accepts a push of one m1 bar for each of 10,000 new symbols (the most one push creates; 80,000 series with the derived ones), growing the process by less than 256 MB", async () => {
    const time = new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 2 * MINUTE).toISOString();
    const lines = ["symbol,time,open,high,low,close,volume"];
    for (let i = 0; i < 10_000; i++) lines.push(`MANY${i}USDT,${time},1.5,2.5,1.25,2,1000`);
    resetPeak(server.pid!);
    const before = memoryOf(server.pid!);
    const response = await fetch(`${url}/xql/bars?market=CRYPTO&timeframe=m1`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" },
      body: `${lines.join("\n")}\n`,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ written: 10_000, replaced: 0, symbols: 10_000 });
    const after = memoryOf(server.pid!);
    expect(after.peak - before.rss).toBeLessThan(256 * MB);
  }, 120_000);
});
