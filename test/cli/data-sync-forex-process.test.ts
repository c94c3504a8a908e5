/**
 * `xql data sync oanda|dukascopy` as a real process against the local stand-ins: `kill -9` in
 * the middle leaves whole pages only and the next sync completes the run fetching nothing
 * twice (no duplicates, no gaps); SIGINT exits 0 within 2 s whatever the sync waits on (a hung
 * request, a Retry-After of 100000 s, the next close of `--follow`); without dukascopy-node the
 * command says which `npm install` adds it.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../src/open/sqlite.js";
import { tempDir, until } from "../kit/index.js";
import { OandaStandIn, servedPrices } from "../ingest/oanda-stand-in.js";
import { storedBars } from "../ingest/sync-helpers.js";
import { spawnXql } from "./run-cli.js";

/** The guard of a wait on another process (it starts Node, then syncs): generous under load. */
const PROCESS_GUARD_MS = 60_000;

const TOKEN = "process-test-token";
const MINUTE = 60_000;

let dir: string;
let cleanup: () => void;
let oanda: OandaStandIn | undefined;
const children: ChildProcess[] = [];
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await oanda?.stop();
  oanda = undefined;
  cleanup();
});

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** performance.now() when the process ended. */
  at: number;
}

function start(args: readonly string[], nodeArgs?: readonly string[]): { child: ChildProcess; exited: Promise<Exited>; stderr: () => string; stdout: () => string } {
  const child = spawnXql(args, { nodeArgs, env: { OANDA_API_TOKEN: TOKEN } });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin!.end();
  const exited = new Promise<Exited>((resolve) => child.on("exit", (code, signal) => resolve({ code, signal, stdout, stderr, at: performance.now() })));
  return { child, exited, stderr: () => stderr, stdout: () => stdout };
}

async function barCount(file: string): Promise<number> {
  let store: SqliteStore | undefined;
  try {
    store = new SqliteStore(file, { readonly: true });
    return await store.barCount();
  } catch {
    return 0;
  } finally {
    await store?.close();
  }
}

/** Sends SIGINT and resolves to the ms until the process has exited. */
async function interrupt(run: ReturnType<typeof start>): Promise<{ ms: number; exited: Exited }> {
  const sent = performance.now();
  run.child.kill("SIGINT");
  const exited = await run.exited;
  return { ms: exited.at - sent, exited };
}

// Each test starts processes that load the sources through tsx: tens of seconds on a loaded machine.
describe("xql data sync oanda in a process of its own", { timeout: 180_000 }, () => {
  it("after kill -9 holds whole pages only, and the next sync completes the run with no duplicate, no gap, nothing fetched twice", async () => {
    oanda = new OandaStandIn(TOKEN);
    oanda.allWeek = true;
    await oanda.start();
    const db = join(dir, "killed.db");
    const since = Math.floor(Date.now() / MINUTE) * MINUTE - 20 * 1440 * MINUTE;
    const args = ["data", "sync", "oanda", "--symbols", "EUR_USD", "--timeframe", "m1", "--since", new Date(since).toISOString(), "--api-url", oanda.url, "--db", db];
    // The second page is held unanswered: the process is killed while waiting for it.
    let requests = 0;
    oanda.onRequest = () => {
      if (++requests === 2) oanda!.failNext({ kind: "hang" });
    };
    const first = start(args);
    await until(() => requests >= 2, PROCESS_GUARD_MS);
    await until(async () => (await barCount(db)) > 0, PROCESS_GUARD_MS);
    first.child.kill("SIGKILL");
    expect((await first.exited).signal).toBe("SIGKILL");
    expect(oanda.served).toHaveLength(1);
    const page = oanda.served[0]!.complete;
    const store = new SqliteStore(db);
    let before: number[];
    try {
      before = (await storedBars(store, "EURUSD", "m1", "FOREX")).map((b) => b.time);
      expect(before).toEqual(page);
    } finally {
      await store.close();
    }

    oanda.onRequest = undefined;
    const second = await start(args).exited;
    expect(second.code, second.stderr).toBe(0);
    const again = oanda.served.slice(1).flatMap((s) => s.complete).filter((t) => before.includes(t));
    expect(again, "bars stored before the kill fetched again").toEqual([]);
    const reopened = new SqliteStore(db);
    try {
      const stored = await storedBars(reopened, "EURUSD", "m1", "FOREX");
      const last = stored.at(-1)!.time;
      expect(stored.map((b) => b.time)).toEqual(oanda.candleTimes("EUR_USD", "M1", since, last));
      for (const bar of stored.slice(0, 50)) expect(bar.close).toBe(Number(servedPrices("EUR_USD", "M1", bar.time, "bid").c));
    } finally {
      await reopened.close();
    }
  });

  it("SIGINT exits 0 within 2 s while a request hangs, while a Retry-After of 100000 s is waited, and while --follow waits for a close", async () => {
    oanda = new OandaStandIn(TOKEN);
    // The wall clock may fall on a weekend: bars in the last half hour whatever the day.
    oanda.allWeek = true;
    await oanda.start();
    const base = ["data", "sync", "oanda", "--symbols", "EUR_USD", "--timeframe", "m1", "--api-url", oanda.url];

    let received = 0;
    oanda.onRequest = () => void received++;
    oanda.failNext({ kind: "hang" });
    const hung = start([...base, "--since", "1d", "--db", join(dir, "hung.db")]);
    await until(() => received >= 1, PROCESS_GUARD_MS);
    const stopHung = await interrupt(hung);
    expect(stopHung.exited.code, stopHung.exited.stderr).toBe(0);
    expect(stopHung.ms).toBeLessThan(2000);
    expect(stopHung.exited.stdout).toMatch(/^Stopped after 0 m1 bars of 1 symbol from oanda/);

    oanda.failNext({ kind: "status", status: 429, retryAfter: "100000" });
    const limited = start([...base, "--since", "1d", "--db", join(dir, "limited.db")]);
    await until(() => limited.stderr().includes("waiting 5 min"), PROCESS_GUARD_MS);
    expect(limited.stderr()).toContain("xql data sync: oanda is limiting requests (HTTP 429); its Retry-After asks for 100000 s, more than a sync waits: waiting 5 min, then retrying EUR_USD m1 candles");
    const stopLimited = await interrupt(limited);
    expect(stopLimited.exited.code, stopLimited.exited.stderr).toBe(0);
    expect(stopLimited.ms).toBeLessThan(2000);

    const following = start([...base, "--since", "30m", "--follow", "--db", join(dir, "follow.db")]);
    await until(async () => (await barCount(join(dir, "follow.db"))) > 0, PROCESS_GUARD_MS);
    const stopFollowing = await interrupt(following);
    expect(stopFollowing.exited.code, stopFollowing.exited.stderr).toBe(0);
    expect(stopFollowing.ms).toBeLessThan(2000);
    expect(stopFollowing.exited.stdout).toMatch(/^(m1 bar of \d{4}-\d\d-\d\d \d\d:\d\d UTC: .*\n)*Stopped after [\d,]+ m1 bars of 1 symbol from oanda/);
  });

  it("says which npm install adds dukascopy-node when it is missing", async () => {
    const hide = `data:text/javascript,${encodeURIComponent(
      `import { register } from "node:module";
       register("data:text/javascript," + encodeURIComponent('export async function resolve(s, c, next) { if (s === "dukascopy-node") { const e = new Error("Cannot find package \\'dukascopy-node\\'"); e.code = "ERR_MODULE_NOT_FOUND"; throw e; } return next(s, c); }'));`,
    )}`;
    const result = await start(["data", "sync", "dukascopy", "--db", join(dir, "x.db")], ["--import", hide]).exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "xql data: the sync needs dukascopy-node, which `npm install xql` leaves out so that the library installs light. Install it beside xql: npm install dukascopy-node@^1.50.0\n",
    );
  });
});
