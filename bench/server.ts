/**
 * Service benchmark (not a test). Run: `npm run bench:server` (options below), which bundles
 * this file with tsup and runs it with node, as the service runs from its build.
 *
 * 1. validate throughput: POST /xql/validate of the service beside a bare Fastify route
 *    (text body, constant JSON answer) in the same run, same autocannon settings.
 * 2. run latency of the spec-shaped example (examples/multi-timeframe.xql) over the seeded
 *    universe, as `xql serve` seeds it: one client in sequence (p50/p99), then autocannon
 *    with several connections.
 * 3. the same over 10,000 CRYPTO instruments (h1, h4, d; the timeframes the query reads).
 * 4. fair use (issue 24): an ordinary caller's latency alone, then beside each flood — a
 *    `GET /xql/bars` flood, a validate flood from one free key, 64 KiB queries the cost guard
 *    refuses, heavy runs from five accounts, the history amplification (test/server/floods.ts) — over the seeded universe. The service
 *    runs in a worker thread here, so the flooders' own work does not take the service's
 *    thread (in the test they share it). Target: the ordinary caller's p99 < 500 ms on an idle
 *    machine.
 *
 * Options (environment): BENCH_SECONDS (validate, default 10), BENCH_CONNECTIONS (default 10),
 * BENCH_RUNS (sequential runs, default 300), BENCH_INSTRUMENTS (default 10000), BENCH_SKIP_LARGE=1,
 * BENCH_FLOOD_SECONDS (each flood, default 8), BENCH_ONLY_FLOODS=1 (seed, then section 4 alone).
 */
import autocannon from "autocannon";
import Fastify from "fastify";
import type { FastifyInstance } from "fastify";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";
import { FLOODS, ordinaryAlone, percentile, underFlood, type FloodTarget } from "../test/server/floods.js";
import { join } from "node:path";
import { compile } from "../src/api.js";
import { issueApiKey } from "../src/accounts/keys.js";
import { seedStore } from "../src/synthetic/seed.js";
import { SqliteStore } from "../src/open/sqlite.js";
import type { BarBatch } from "../src/store/store.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import { createServer } from "../src/server/index.js";
import type { Timeframe } from "../src/types.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const INSTRUMENTS = Number(process.env.BENCH_INSTRUMENTS ?? 10_000);
const VALIDATE_QUERY = readFileSync(new URL("../examples/oversold.xql", import.meta.url), "utf8");
const RUN_QUERY = readFileSync(new URL("../examples/multi-timeframe.xql", import.meta.url), "utf8");

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return `http://127.0.0.1:${address.port}`;
}

function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

const fmt = (ms: number): string => ms.toFixed(2);

/** `uptime`'s load averages (1, 5, 15 minutes): the floor every figure stands on. */
const loadAverage = (): string => loadavg().map((l) => l.toFixed(2)).join(", ");

/** In the worker: the service over `workerData.file`, its URL posted back; it stops when told. */
async function serveInWorker(): Promise<void> {
  const store = new SqliteStore((workerData as { file: string }).file);
  const app = createServer({ store, logger: false });
  const url = await listen(app);
  parentPort!.postMessage(url);
  parentPort!.once("message", () => void app.close().then(() => store.close()).then(() => process.exit(0)));
}

/** Section 4: the ordinary caller alone, then beside each flood, the service in a worker thread. */
async function floods(file: string, say: (line: string) => void): Promise<void> {
  const seconds = Number(process.env.BENCH_FLOOD_SECONDS ?? 8);
  const worker = new Worker(new URL(import.meta.url), { workerData: { file } });
  const url = await new Promise<string>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  const keys = new SqliteStore(file);
  try {
    const target: FloodTarget = {
      url,
      key: async (tier) => (await issueApiKey(keys, { tier, now: Date.now() })).key,
      market: "CRYPTO",
      timeframe: "h1",
      symbols: (await keys.series("CRYPTO")).filter((s) => s.timeframe === "h1").map((s) => s.symbol),
    };
    say("");
    say(`Fair use (issue 24): the service in a worker thread over the seeded universe (${target.symbols.length} CRYPTO symbols); each flood ${seconds} s; load before: ${loadAverage()}`);
    say("");
    say("| beside | ordinary caller's runs | p50 ms | p99 ms | max ms | p99 / alone | flood answers by status |");
    say("|---|---:|---:|---:|---:|---:|---|");
    const alone = await ordinaryAlone(target, seconds * 1000);
    const aloneP99 = percentile(alone, 99);
    say(`| nothing (alone) | ${alone.length} | ${fmt(percentile(alone, 50))} | ${fmt(aloneP99)} | ${fmt(alone.at(-1)!)} | 1.00 | |`);
    for (const kind of FLOODS) {
      const result = await underFlood(target, kind, seconds * 1000, 1000);
      const p99 = percentile(result.ordinary, 99);
      say(
        `| ${kind.name} | ${result.ordinary.length} | ${fmt(percentile(result.ordinary, 50))} | ${fmt(p99)} | ${fmt(result.ordinary.at(-1)!)} | ${(p99 / aloneP99).toFixed(2)} | ${JSON.stringify(result.statuses)} |`,
      );
    }
    say("");
    say(`Target: p99 < 500 ms beside every flood on an idle machine. Load after: ${loadAverage()}`);
  } finally {
    worker.postMessage("stop");
    await new Promise((resolve) => worker.once("exit", resolve));
    await keys.close();
  }
}

/** Sequential runs by one client: the latency a single caller sees. */
async function sequentialRuns(url: string, key: string, runs: number): Promise<{ p50: number; p99: number; mean: number; results: number }> {
  const headers = { authorization: `Bearer ${key}`, "content-type": "text/plain" };
  let results = 0;
  for (let i = 0; i < 10; i++) {
    const response = await fetch(`${url}/xql/run`, { method: "POST", body: RUN_QUERY, headers });
    if (response.status !== 200) throw new Error(`warm-up run answered ${response.status}: ${await response.text()}`);
    results = ((await response.json()) as { results: unknown[] }).results.length;
  }
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/xql/run`, { method: "POST", body: RUN_QUERY, headers });
    await response.arrayBuffer();
    times.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`run answered ${response.status}`);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length, results };
}

/** A cold run: the first after a write, reading every bar from SQLite. */
async function coldRun(url: string, key: string, store: SqliteStore): Promise<number> {
  await store.upsertBars([]); // a write: bumps the data version, so the cache is dropped
  const started = performance.now();
  const response = await fetch(`${url}/xql/run`, { method: "POST", body: RUN_QUERY, headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`cold run answered ${response.status}`);
  return performance.now() - started;
}

async function concurrentRuns(url: string, key: string, amount: number): Promise<autocannon.Result> {
  return cannon({
    url: `${url}/xql/run`,
    method: "POST",
    body: RUN_QUERY,
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    connections: CONNECTIONS,
    amount,
  });
}

/** `count` CRYPTO instruments (the synthetic list, extended with made-up names past it). */
function largeBatches(count: number, timeframes: Timeframe[], bars: number, end: number): BarBatch[] {
  const universe = syntheticUniverse({ market: "CRYPTO", symbols: count, timeframes, bars, end });
  return timeframes.map((timeframe) => ({
    market: "CRYPTO",
    timeframe,
    symbols: universe.map((instrument) => ({ symbol: instrument.symbol, bars: instrument.bars[timeframe]! })),
  }));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "xql-bench-"));
  const lines: string[] = [];
  const say = (line: string): void => {
    lines.push(line);
    console.log(line);
  };
  try {
    say(`Node ${process.version}, ${cpus().length} CPU (${cpus()[0]?.model ?? "?"}), ${new Date().toISOString().slice(0, 10)}, load ${loadAverage()}`);
    say(`autocannon: ${CONNECTIONS} connections; validate for ${SECONDS} s each`);
    compile(RUN_QUERY); // fail early on a broken example

    // ---- seeded universe ----
    const store = new SqliteStore(join(dir, "seeded.db"));
    let started = performance.now();
    const seeded = await seedStore(store);
    say(`Seeded universe: ${seeded.toLocaleString("en-US")} bars in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const symbols = new Set((await store.series("CRYPTO")).filter((s) => s.timeframe === "h1").map((s) => s.symbol)).size;
    if (process.env.BENCH_ONLY_FLOODS === "1") {
      await store.close();
      await floods(join(dir, "seeded.db"), say);
      return;
    }
    const app = createServer({ store, logger: false });
    const url = await listen(app);
    const validateKey = (await issueApiKey(store, { tier: "free", now: Date.now() })).key;

    const bare = Fastify({ logger: false });
    bare.post("/xql/validate", async () => ({ valid: true }));
    const bareUrl = await listen(bare);

    const validateOptions = (target: string, key?: string): autocannon.Options => ({
      url: `${target}/xql/validate`,
      method: "POST",
      body: VALIDATE_QUERY,
      headers: { "content-type": "text/plain", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    // Warm both up (JIT, connection pools), then measure: bare, service, bare, service.
    await cannon({ ...validateOptions(bareUrl), duration: 2 });
    await cannon({ ...validateOptions(url, validateKey), duration: 2 });
    const bareA = await cannon(validateOptions(bareUrl));
    const serviceA = await cannon(validateOptions(url, validateKey));
    const bareB = await cannon(validateOptions(bareUrl));
    const serviceB = await cannon(validateOptions(url, validateKey));
    // The same service with its query cache off: every request parses and plans.
    const uncachedApp = createServer({ store, logger: false, queryCacheBytes: 0 });
    const uncachedUrl = await listen(uncachedApp);
    const uncached = await cannon(validateOptions(uncachedUrl, validateKey));
    await uncachedApp.close();
    const bareRps = (bareA.requests.average + bareB.requests.average) / 2;
    const serviceRps = (serviceA.requests.average + serviceB.requests.average) / 2;
    if (serviceA.non2xx + serviceB.non2xx + uncached.non2xx > 0) throw new Error("validate answered non-2xx during the benchmark");
    say("");
    say("| validate | req/s (mean of 2) | p50 ms | p99 ms |");
    say("|---|---:|---:|---:|");
    say(`| bare Fastify route | ${Math.round(bareRps).toLocaleString("en-US")} | ${bareB.latency.p50} | ${bareB.latency.p99} |`);
    say(`| xql POST /xql/validate (auth + parse + plan) | ${Math.round(serviceRps).toLocaleString("en-US")} | ${serviceB.latency.p50} | ${serviceB.latency.p99} |`);
    say(`| ratio | ${((serviceRps / bareRps) * 100).toFixed(0)}% (target >= 70%) | | |`);
    say(`| xql POST /xql/validate, query cache off (every request parses and plans) | ${Math.round(uncached.requests.average).toLocaleString("en-US")} (${((uncached.requests.average / bareRps) * 100).toFixed(0)}%) | ${uncached.latency.p50} | ${uncached.latency.p99} |`);

    const runKey = (await issueApiKey(store, { tier: "plus", now: Date.now() })).key;
    const cold = await coldRun(url, runKey, store);
    const seq = await sequentialRuns(url, runKey, RUNS);
    const loadKey = (await issueApiKey(store, { tier: "plus", now: Date.now() })).key;
    const load = await concurrentRuns(url, loadKey, 4000);
    say("");
    say(`| run (examples/multi-timeframe.xql) | instruments | cold ms | p50 ms | p99 ms | under load: req/s, p50 / p99 ms |`);
    say("|---|---:|---:|---:|---:|---|");
    say(
      `| seeded universe | ${symbols} | ${fmt(cold)} | ${fmt(seq.p50)} | ${fmt(seq.p99)} | ${Math.round(load.requests.average)}, ${load.latency.p50} / ${load.latency.p99} (${CONNECTIONS} conn.) |`,
    );
    await app.close();
    await bare.close();
    store.close();

    // ---- 10,000 instruments ----
    if (process.env.BENCH_SKIP_LARGE !== "1") {
      const large = new SqliteStore(join(dir, "large.db"));
      const timeframes: Timeframe[] = ["h1", "h4", "d"];
      started = performance.now();
      const { written } = await large.upsertBars(largeBatches(INSTRUMENTS, timeframes, 320, Date.now()));
      const loadSeconds = (performance.now() - started) / 1000;
      const largeApp = createServer({ store: large, logger: false });
      const largeUrl = await listen(largeApp);
      const key = (await issueApiKey(large, { tier: "plus", now: Date.now() })).key;
      const largeCold = await coldRun(largeUrl, key, large);
      const largeSeq = await sequentialRuns(largeUrl, key, Math.min(RUNS, 100));
      const largeLoad = await concurrentRuns(largeUrl, (await issueApiKey(large, { tier: "plus", now: Date.now() })).key, 300);
      say(
        `| ${INSTRUMENTS.toLocaleString("en-US")} instruments (h1, h4, d; ${written.toLocaleString("en-US")} bars loaded in ${loadSeconds.toFixed(0)} s) | ${INSTRUMENTS} | ${fmt(largeCold)} | ${fmt(largeSeq.p50)} | ${fmt(largeSeq.p99)} | ${Math.round(largeLoad.requests.average)}, ${largeLoad.latency.p50} / ${largeLoad.latency.p99} (${CONNECTIONS} conn.) |`,
      );
      await largeApp.close();
      large.close();
    }
    say("");
    say(`Sequential: ${RUNS} runs by one client after 10 warm-up runs (100 for the large universe); cold = first run after a write (cache dropped, every bar read from SQLite).`);
    await floods(join(dir, "seeded.db"), say);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMainThread) await main();
else await serveInWorker();
