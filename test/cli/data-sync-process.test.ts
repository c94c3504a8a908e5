/**
 * `xql data sync` as a real process against the local Binance stand-in: `kill -9` in the middle
 * leaves whole pages only and the next sync fetches nothing twice; SIGINT finishes the batch in
 * hand and exits 0; a server in another process sees the synced bars on its next run (SQLite
 * and, when XQL_TEST_DATABASE_URL is set, PostgreSQL); without ccxt the command says which
 * `npm install` adds it.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hashApiKey, issueApiKey } from "../../src/accounts/keys.js";
import { createServer } from "../../src/server/index.js";
import { openStore, type Store } from "../../src/open/open.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import type { DataChange } from "../../src/store/store.js";
import type { ExchangeStandIn, StandInPair } from "../ingest/exchange-stand-in.js";
import { finalBar } from "../ingest/exchange-stand-in.js";
import { MINUTE, servedBars, standIn, storedBars } from "../ingest/sync-helpers.js";
import { freshDatabase } from "../scale/helpers.js";
import { Gate, tempDir, until, WITHOUT_POSTGRES, itUnless } from "../kit/index.js";
import { spawnXql } from "./run-cli.js";

/** The guard of a wait on another process (it starts Node, then syncs): generous under load. */
const PROCESS_GUARD_MS = 60_000;

let dir: string;
let cleanup: () => void;
let exchange: ExchangeStandIn | undefined;
const children: ChildProcess[] = [];
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  expect(exchange?.unanswered ?? []).toEqual([]);
  await exchange?.stop();
  exchange = undefined;
  cleanup();
});

const PAIRS: StandInPair[] = ["BTC", "ETH", "SOL", "XRP"].map((base) => ({ base, quote: "USDT" }));
const openMinute = (): number => Math.floor(Date.now() / MINUTE) * MINUTE;

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function start(args: readonly string[], nodeArgs?: readonly string[]): { child: ChildProcess; exited: Promise<Exited>; stderr: () => string } {
  const child = spawnXql(args, { nodeArgs });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdin!.end();
  const exited = new Promise<Exited>((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, exited, stderr: () => stderr };
}

/** Bars committed in `file` so far (0 before the sync has made it). */
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

// Each test starts one to three processes that load ccxt: minutes on a loaded machine.
describe("xql data sync in a process of its own", { timeout: 180_000 }, () => {
  it("after kill -9 holds whole pages only, and the next sync completes the run fetching nothing twice", async () => {
    exchange = await standIn(PAIRS);
    const gate = (exchange.klinesGate = new Gate());
    const db = join(dir, "killed.db");
    const since = openMinute() - 5500 * MINUTE;
    const args = ["data", "sync", "binance", "--quote", "USDT", "--timeframe", "m1", "--since", new Date(since).toISOString(), "--api-url", exchange.url, "--db", db];
    const first = start(args);
    // Killed once the first batch (the newest page of each pair) is committed and the second is
    // being answered: one of its pages answered, the others held by the exchange.
    try {
      await gate.holding(PAIRS.length, { timeoutMs: PROCESS_GUARD_MS, what: "the first batch asked" });
      gate.pass(PAIRS.length);
      await until(async () => (await barCount(db)) >= PAIRS.length * 1000, PROCESS_GUARD_MS);
      await gate.holding(PAIRS.length, { timeoutMs: PROCESS_GUARD_MS, what: "the second batch asked" });
      gate.pass(1);
      await until(() => exchange!.klines.length === PAIRS.length + 1, PROCESS_GUARD_MS);
    } finally {
      first.child.kill("SIGKILL");
    }
    const killed = await first.exited;
    expect(killed.signal).toBe("SIGKILL");
    const answeredBefore = exchange.klines.length;
    expect(answeredBefore).toBe(PAIRS.length + 1);

    const store = new SqliteStore(db);
    const storedAfterKill = new Map<string, Set<number>>();
    try {
      for (const { base, quote } of PAIRS) {
        const symbol = `${base}${quote}`;
        const stored = await storedBars(store, symbol);
        storedAfterKill.set(symbol, new Set(stored.map((b) => b.time)));
        expect(stored).toEqual(servedBars(symbol, stored.map((b) => b.time)));
      }
      // Nothing half-written: each answered page is in the store whole or not at all.
      for (const page of exchange.klines) {
        const held = page.closed.filter((t) => storedAfterKill.get(page.symbol)!.has(t)).length;
        expect([0, page.closed.length], `${page.symbol} from ${page.startTime}`).toContain(held);
      }
    } finally {
      await store.close();
    }

    // The pages held for the killed process go nowhere (its connections are gone); the next sync is answered at once.
    gate.open();
    const second = await start(args).exited;
    expect(second.code, second.stderr).toBe(0);
    const reopened = new SqliteStore(db);
    try {
      for (const { base, quote } of PAIRS) {
        const symbol = `${base}${quote}`;
        const again = exchange.klines.slice(answeredBefore).filter((k) => k.symbol === symbol).flatMap((k) => k.closed).filter((t) => storedAfterKill.get(symbol)!.has(t));
        expect(again, `${symbol}: bars stored before the kill fetched again`).toEqual([]);
        const stored = await storedBars(reopened, symbol);
        expect(stored).toEqual(servedBars(symbol, exchange.closedTimes(symbol, "1m", since, stored.at(-1)!.time)));
        expect(stored.length).toBeGreaterThanOrEqual(5500);
      }
    } finally {
      await reopened.close();
    }
  });

  it("SIGINT finishes the batch in hand and exits 0; while --follow waits for a close it exits at once", async () => {
    exchange = await standIn(PAIRS);
    const gate = (exchange.klinesGate = new Gate());
    const db = join(dir, "sigint.db");
    const since = openMinute() - 4000 * MINUTE;
    const args = ["data", "sync", "binance", "--quote", "USDT", "--timeframe", "m1", "--since", new Date(since).toISOString(), "--follow", "--api-url", exchange.url, "--db", db];
    const busy = start(args);
    // SIGINT comes with the batch in hand (the newest page of each pair asked): one page answered,
    // the others held until the process has taken the signal.
    try {
      await gate.holding(PAIRS.length, { timeoutMs: PROCESS_GUARD_MS, what: "the first batch asked" });
      gate.pass(1);
      await until(() => exchange!.klines.length === 1, PROCESS_GUARD_MS);
      busy.child.kill("SIGINT");
      await until(() => busy.stderr().includes("stopping after the batch in hand"), { timeoutMs: PROCESS_GUARD_MS, what: "the process taking SIGINT" });
    } finally {
      gate.open();
    }
    const stopped = await busy.exited;
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stderr).toContain("xql data sync: SIGINT: stopping after the batch in hand (Ctrl-C again stops at once)");
    expect(stopped.stdout).toMatch(/^Stopped after [\d,]+ m1 bars of 4 symbols from binance/);
    const answered = exchange.klines.length;
    expect(answered).toBe(PAIRS.length);
    const store = new SqliteStore(db);
    try {
      for (const page of exchange.klines) expect((await storedBars(store, page.symbol)).map((b) => b.time)).toEqual(page.closed);
    } finally {
      await store.close();
    }

    // Caught up (a few minutes to fetch), then waiting for the next close.
    const idle = start(["data", "sync", "binance", "--symbols", "BTC/USDT", "--timeframe", "m1", "--since", "5m", "--follow", "--api-url", exchange.url, "--db", join(dir, "idle.db")]);
    await until(async () => (await barCount(join(dir, "idle.db"))) >= 5, PROCESS_GUARD_MS);
    idle.child.kill("SIGINT");
    const idleExit = await idle.exited;
    expect(idleExit.code, idleExit.stderr).toBe(0);
    expect(idleExit.stdout).toMatch(/^(m1 bar of \d{4}-\d\d-\d\d \d\d:\d\d UTC: .*\n)*Stopped after \d+ m1 bars of 1 symbol from binance/);
  });

  it("says which npm install adds ccxt when it is missing", async () => {
    const hide = `data:text/javascript,${encodeURIComponent(
      `import { register } from "node:module";
       register("data:text/javascript," + encodeURIComponent('export async function resolve(s, c, next) { if (s === "ccxt") { const e = new Error("Cannot find package \\'ccxt\\'"); e.code = "ERR_MODULE_NOT_FOUND"; throw e; } return next(s, c); }'));`,
    )}`;
    const result = await start(["data", "sync", "binance", "--symbols", "BTC/USDT", "--db", join(dir, "x.db")], ["--import", hide]).exited;
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      "xql data: the sync needs ccxt, which `npm install xql` leaves out so that the library installs light. Install it beside xql: npm install ccxt@^4.5.0\n",
    );
  });

  for (const backend of ["SQLite", "PostgreSQL"] as const) {
    const url = process.env.XQL_TEST_DATABASE_URL;
    itUnless(backend === "PostgreSQL" ? WITHOUT_POSTGRES : undefined, `a server on ${backend} sees the bars a sync in another process wrote, on its next run`, async () => {
      exchange = await standIn(PAIRS.slice(0, 2));
      let database: string;
      let drop: (() => Promise<void>) | undefined;
      if (backend === "PostgreSQL") ({ url: database, drop } = await freshDatabase(url!));
      else database = join(dir, "served.db");
      const store: Store = await openStore(database);
      const app = createServer({ store });
      await app.listen({ port: 0, host: "127.0.0.1" });
      const changes: DataChange[] = [];
      const stopWatching = store.watch((change) => changes.push(change));
      try {
        const address = app.server.address() as { port: number };
        const issued = await issueApiKey(store, { tier: "plus", now: Date.now() });
        expect((await store.findKeyByHash(hashApiKey(issued.key)))?.scope).toBe("run");
        const run = async () => {
          const response = await fetch(`http://127.0.0.1:${address.port}/xql/run`, {
            method: "POST",
            headers: { authorization: `Bearer ${issued.key}` },
            body: 'market = "CRYPTO"\ntimeframe = m1\ncolumns = [close]\ntrue',
          });
          expect(response.status).toBe(200);
          return ((await response.json()) as { results: { symbol: string; columns: { close: number } }[] }).results;
        };
        // Twice, so the answer is in the results cache.
        expect(await run()).toEqual([]);
        expect(await run()).toEqual([]);

        const synced = await start(["data", "sync", "binance", "--quote", "USDT", "--timeframe", "m1", "--since", "30m", "--api-url", exchange.url, "--db", database]).exited;
        expect(synced.code, synced.stderr).toBe(0);
        const results = await run();
        expect(results.map((r) => r.symbol)).toEqual(["BTCUSDT", "ETHUSDT"]);
        for (const result of results) {
          const last = (await storedBars(store, result.symbol)).at(-1)!.time;
          expect(result.columns.close).toBe(Number(finalBar(result.symbol, last).close));
        }
        // And the store told its watchers (the alerts, the caches) of the other process's writes.
        await until(() => changes.some((c) => c.origin === "remote"), 10_000);
      } finally {
        stopWatching();
        await app.close();
        await store.close();
        await drop?.();
      }
    });
  }
});
