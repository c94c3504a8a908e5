/**
 * Live-data benchmark (not a test; issue 20). Run: `npm run bench:sync`.
 *
 * 1. `data sync` catch-up: 300 pairs × one day of m1 (432,000 bars) from the local Binance
 *    stand-in (test/ingest/exchange-stand-in.ts) through the real ccxt into a fresh SQLite
 *    file: bars/s, and where the time goes — waiting for the exchange (requests through ccxt's
 *    rate limiter) against writing. Floors: ccxt's limiter alone (Binance spot klines cost
 *    0.4 × 50 ms, so requests × 20 ms), and one upsertBars of the same 432,000 bars.
 * 2. `--follow` with 300 pairs on the wall clock: for each close, how long after it the last
 *    pair's bar was committed, against the settling delay plus the time spent on requests
 *    (the target: within 5 s of the close plus the request time).
 * 3. `POST /xql/bars` with one bar for each of 10,000 series, on SQLite: the round trip of
 *    each push (the first creates the series; later ones append the next minute), against
 *    the target of 500 ms and the floor of parsing the body plus one upsertBars of its bars.
 *
 * Env: BENCH_PAIRS (default 300), BENCH_FOLLOW_ROUNDS (default 2; 0 skips part 2, which
 * waits for real closes), BENCH_PUSH_SERIES (default 10000), BENCH_PUSHES (default 5).
 */
import { execSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { issueApiKey } from "../src/accounts/keys.js";
import { parsePush } from "../src/ingest/push.js";
import { openExchange } from "../src/ingest/sync-exchange.js";
import { choosePairs } from "../src/ingest/sync-symbols.js";
import { type FollowRound, syncBars } from "../src/ingest/sync.js";
import { createServer } from "../src/server/index.js";
import { SqliteStore } from "../src/open/sqlite.js";
import { DEFAULT_MARKETS } from "../src/types.js";
import { ExchangeStandIn } from "../test/ingest/exchange-stand-in.js";

const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const FOLLOW_ROUNDS = Number(process.env.BENCH_FOLLOW_ROUNDS ?? 2);
const PUSH_SERIES = Number(process.env.BENCH_PUSH_SERIES ?? 10_000);
const PUSHES = Number(process.env.BENCH_PUSHES ?? 5);
const MINUTE = 60_000;
/** Binance spot klines: cost 0.4 of ccxt's 50 ms rate limit per request. */
const LIMITER_MS_PER_REQUEST = 0.4 * 50;

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const fmt = (n: number, digits = 0): string => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const dir = mkdtempSync(join(tmpdir(), "xql-bench-sync-"));
const bases = Array.from({ length: PAIRS }, (_, i) => `C${String(i).padStart(3, "0")}`);
const exchange = new ExchangeStandIn(bases.map((base, i) => ({ base, quote: "USDT", quoteVolume: 1e9 - i })));

async function catchUp(): Promise<void> {
  const store = new SqliteStore(join(dir, "catch-up.db"));
  const binance = await openExchange("binance", { apiUrl: exchange.url });
  const pairs = choosePairs("binance", await binance.spotMarkets(), { kind: "quote", quote: "USDT" });
  const open = Math.floor(Date.now() / MINUTE) * MINUTE;
  const started = performance.now();
  const report = await syncBars({ source: binance, store, pairs, timeframe: "m1", since: open - 1440 * MINUTE });
  const wall = performance.now() - started;
  const floor = report.requests * LIMITER_MS_PER_REQUEST;
  say(`1. data sync catch-up: ${PAIRS} pairs × 1 day of m1 into SQLite`);
  say(`   ${fmt(report.written)} bars in ${fmt(wall / 1000, 1)} s = ${fmt(report.written / (wall / 1000))} bars/s; ${report.requests} requests, ${report.writes} writes`);
  say(`   waiting for the exchange ${fmt(report.fetchMs / 1000, 1)} s (${fmt((100 * report.fetchMs) / wall)} %), writing ${fmt(report.writeMs / 1000, 1)} s (${fmt((100 * report.writeMs) / wall)} %)`);
  say(`   floor, ccxt's limiter alone: ${fmt(floor / 1000, 1)} s; wall / floor = ${fmt(wall / floor, 2)}`);

  // The write floor: the same bars in one upsertBars call on a fresh file.
  const copy = new SqliteStore(join(dir, "write-floor.db"));
  const bars = await store.latestBars({ market: "CRYPTO", timeframe: "m1", baseTimeframe: "m1", series: ["open", "high", "low", "close", "volume"], count: 2000 });
  const t = performance.now();
  await copy.upsertBars([{ market: "CRYPTO", timeframe: "m1", symbols: bars }]);
  const writeFloor = performance.now() - t;
  say(`   floor, one upsertBars of the same bars: ${fmt(writeFloor / 1000, 2)} s; sync's writes / floor = ${fmt(report.writeMs / writeFloor, 2)}`);
  await copy.close();
  await store.close();
}

async function follow(): Promise<void> {
  if (FOLLOW_ROUNDS <= 0) return;
  const store = new SqliteStore(join(dir, "follow.db"));
  const binance = await openExchange("binance", { apiUrl: exchange.url });
  const pairs = choosePairs("binance", await binance.spotMarkets(), { kind: "quote", quote: "USDT" });
  const controller = new AbortController();
  const rounds: FollowRound[] = [];
  say(`2. --follow with ${PAIRS} pairs on the wall clock, ${FOLLOW_ROUNDS} closes (waits for them)`);
  await syncBars({
    source: binance,
    store,
    pairs,
    timeframe: "m1",
    since: Math.floor(Date.now() / MINUTE) * MINUTE - 5 * MINUTE,
    follow: true,
    signal: controller.signal,
    onRound: (round) => {
      rounds.push(round);
      if (rounds.length >= FOLLOW_ROUNDS) controller.abort();
    },
  });
  for (const round of rounds) {
    say(
      `   close ${new Date(round.close).toISOString().slice(11, 16)} UTC: ${round.written} bars of ${round.symbols} pairs, last committed ${fmt(round.lagMs / 1000, 1)} s after the close ` +
        `(requests ${fmt(round.fetchMs / 1000, 1)} s, floor ${fmt((PAIRS * LIMITER_MS_PER_REQUEST) / 1000, 1)} s through the limiter; writes ${fmt(round.writeMs / 1000, 2)} s; settle 2.0 s); ` +
        `lag − request time = ${fmt((round.lagMs - round.fetchMs) / 1000, 1)} s (target ≤ 5 s)`,
    );
  }
  await store.close();
}

async function push(): Promise<void> {
  const store = new SqliteStore(join(dir, "push.db"));
  const app = createServer({ store });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.server.address() as { port: number };
  const { key } = await issueApiKey(store, { tier: "plus", scope: "write", now: Date.now() });
  const open = Math.floor(Date.now() / MINUTE) * MINUTE;
  const body = (minute: number): string => {
    const lines: string[] = [];
    for (let s = 0; s < PUSH_SERIES; s++) {
      const price = 100 + (s % 977) / 10;
      lines.push(JSON.stringify({ market: "CRYPTO", timeframe: "m1", symbol: `P${s}USDT`, time: open - (PUSHES + 1 - minute) * MINUTE, open: price, high: price + 1, low: price - 1, close: price + 0.5, volume: 10 + minute }));
    }
    return `${lines.join("\n")}\n`;
  };
  const times: number[] = [];
  for (let k = 0; k < PUSHES; k++) {
    const text = body(k);
    const t = performance.now();
    const response = await fetch(`http://127.0.0.1:${port}/xql/bars`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/x-ndjson" }, body: text });
    const answer = (await response.json()) as { written: number };
    times.push(performance.now() - t);
    if (response.status !== 200 || answer.written !== PUSH_SERIES) throw new Error(`push ${k}: ${response.status} ${JSON.stringify(answer)}`);
  }
  // Floor: parsing the same body and one upsertBars of its bars, in this process, without HTTP.
  const floorStore = new SqliteStore(join(dir, "push-floor.db"));
  const floors: number[] = [];
  const parses: number[] = [];
  for (let k = 0; k < PUSHES; k++) {
    const text = body(k);
    const t = performance.now();
    // Unbounded and without turns: the floor is the parse's own work.
    const parsed = await parsePush("ndjson", text, {}, Date.now(), { markets: DEFAULT_MARKETS, perPush: Number.POSITIVE_INFINITY, stored: async () => new Set(), turn: async () => {} });
    parses.push(performance.now() - t);
    await floorStore.upsertBars(parsed.batches);
    floors.push(performance.now() - t);
  }
  say(`3. POST /xql/bars, one m1 bar for each of ${fmt(PUSH_SERIES)} series (NDJSON, ${fmt(body(0).length / 1024 / 1024, 1)} MiB), SQLite`);
  say(`   first push (creates the series) ${fmt(times[0]!)} ms; appends: median ${fmt(median(times.slice(1)))} ms, max ${fmt(Math.max(...times.slice(1)))} ms (target ≤ 500 ms)`);
  say(`   floor, parse + one upsertBars in-process: first ${fmt(floors[0]!)} ms, appends median ${fmt(median(floors.slice(1)))} ms; push / floor = ${fmt(median(times.slice(1)) / median(floors.slice(1)), 2)}`);
  say(`   of which parsing and checking the body: median ${fmt(median(parses))} ms; the rest is the store's upsertBars`);
  await floorStore.close();
  await app.close();
  await store.close();
}

say(`xql bench:sync — ${new Date().toISOString().slice(0, 10)} is not used; load average: ${execSync("uptime").toString().trim().replace(/^.*load average: /, "")}`);
await exchange.start();
try {
  await catchUp();
  await follow();
  await push();
} finally {
  await exchange.stop();
  rmSync(dir, { recursive: true, force: true });
}
say(`load average after: ${execSync("uptime").toString().trim().replace(/^.*load average: /, "")}`);
