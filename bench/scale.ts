/**
 * Scale-out bench: PostgreSQL + Redis behind the service.
 *
 * 1. Bulk import of 10,000 CRYPTO instruments (h1) into PostgreSQL and into SQLite.
 * 2. Run latency over those 10,000 instruments, one client in sequence: cold (every run
 *    reads the bars from the store: the fetch cache off) on PostgreSQL and on SQLite, and
 *    warm (the cache on, so a run reads only the data version) on PostgreSQL + Redis.
 * 3. Throughput of `run` against one replica and against two replicas (separate processes
 *    sharing the database and Redis), autocannon with the same total connections.
 *
 * Needs the servers of `scripts/services.sh start`:
 *   eval "$(scripts/services.sh start | grep ^export)" && npx tsx bench/scale.ts
 * Env: BENCH_INSTRUMENTS (10000), BENCH_BARS (310), BENCH_RUNS (20 cold, 5x warm),
 * BENCH_SECONDS (10), BENCH_CONNECTIONS (10). Writes into a database of its own, dropped at the end.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import pg from "pg";
import { createServer } from "../src/server/index.js";
import type { FastifyInstance } from "fastify";
import { FallbackKeyStore } from "../src/accounts/key-fallback.js";
import { issueApiKey } from "../src/accounts/keys.js";
import { PostgresStore } from "../src/open/postgres.js";
import { RedisQuotaStore } from "../src/accounts/redis.js";
import { SqliteStore } from "../src/open/sqlite.js";
import type { KeyStore, QuotaStore } from "../src/accounts/accounts.js";
import type { BarBatch, BarStore } from "../src/store/store.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";

const INSTRUMENTS = Number(process.env.BENCH_INSTRUMENTS ?? 10_000);
const BARS = Number(process.env.BENCH_BARS ?? 310);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const RUN_QUERY = readFileSync(new URL("../examples/oversold.xql", import.meta.url), "utf8");
const DATABASE_URL = process.env.XQL_TEST_DATABASE_URL;
const REDIS_URL = process.env.XQL_TEST_REDIS_URL;

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const ms = (value: number): string => `${value.toFixed(1)} ms`;

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: "127.0.0.1" });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return `http://127.0.0.1:${address.port}`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

async function sequentialRuns(url: string, key: string, runs: number): Promise<{ p50: number; p99: number; results: number }> {
  const headers = { authorization: `Bearer ${key}` };
  let results = 0;
  const times: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const started = performance.now();
    const response = await fetch(`${url}/xql/run`, { method: "POST", body: RUN_QUERY, headers });
    const body = (await response.json()) as { results: unknown[] };
    if (response.status !== 200) throw new Error(`run answered ${response.status}: ${JSON.stringify(body)}`);
    results = body.results.length;
    if (i >= 2) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99), results };
}

function cannon(options: autocannon.Options): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

function batches(): BarBatch[] {
  const universe = syntheticUniverse({ market: "CRYPTO", symbols: INSTRUMENTS, timeframes: ["h1"], bars: BARS, end: Date.now() });
  return [{ market: "CRYPTO", timeframe: "h1", symbols: universe.map((i) => ({ symbol: i.symbol, bars: i.bars.h1! })) }];
}

async function keyFor(store: KeyStore): Promise<string> {
  return (await issueApiKey(store, { tier: "plus", now: Date.now() })).key;
}

/** Child mode: one replica on the shared database and Redis; prints its URL. */
async function replica(): Promise<void> {
  const store = await PostgresStore.open(DATABASE_URL!);
  const quota = await RedisQuotaStore.open(REDIS_URL!, { prefix: process.env.BENCH_PREFIX });
  const app = createServer({ store, keys: new FallbackKeyStore(store), quota });
  say(`URL ${await listen(app)}`);
  process.once("SIGTERM", () => {
    void app.close().then(async () => {
      quota.close();
      await store.close();
      process.exit(0);
    });
  });
}

async function startReplicas(count: number, databaseUrl: string, prefix: string): Promise<{ urls: string[]; children: ChildProcess[] }> {
  const children: ChildProcess[] = [];
  const urls = await Promise.all(
    Array.from({ length: count }, () => {
      const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--replica"], {
        env: { ...process.env, XQL_TEST_DATABASE_URL: databaseUrl, BENCH_PREFIX: prefix },
        stdio: ["ignore", "pipe", "inherit"],
      });
      children.push(child);
      return new Promise<string>((resolve, reject) => {
        let out = "";
        child.stdout!.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const match = /URL (\S+)/.exec(out);
          if (match) resolve(match[1]!);
        });
        child.once("exit", (code) => reject(new Error(`replica exited with ${code}`)));
      });
    }),
  );
  return { urls, children };
}

async function stopReplicas(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          child.removeAllListeners("exit");
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        }),
    ),
  );
}

/**
 * Two load generators of half the connections each, each with a key of its own (a plus
 * account allows 4,500 runs a day), aimed at the one replica or one at each of two.
 */
async function throughput(urls: string[], keys: string[]): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const targets = [urls[0]!, urls[1 % urls.length]!];
  const results = await Promise.all(
    targets.map((url, i) =>
      cannon({
        url: `${url}/xql/run`,
        method: "POST",
        body: RUN_QUERY,
        headers: { authorization: `Bearer ${keys[i]}` },
        connections: Math.max(1, Math.round(CONNECTIONS / 2)),
        duration: SECONDS,
      }),
    ),
  );
  return {
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    p50: Math.max(...results.map((r) => r.latency.p50)),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    errors: results.reduce((sum, r) => sum + r.non2xx + r.errors + r.timeouts, 0),
  };
}

async function main(): Promise<void> {
  if (!DATABASE_URL || !REDIS_URL) {
    say('bench/scale: set XQL_TEST_DATABASE_URL and XQL_TEST_REDIS_URL (eval "$(scripts/services.sh start | grep ^export)")');
    process.exitCode = 2;
    return;
  }
  const name = `xql_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const prefix = `xql:bench:${name}:`;
  say(`# XQL scale-out bench — Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}`);
  say(`universe: ${INSTRUMENTS.toLocaleString("en-US")} CRYPTO instruments × ${BARS} h1 bars; query examples/oversold.xql`);

  const postgres = await PostgresStore.open(databaseUrl);
  const sqlite = new SqliteStore(":memory:");
  const redis = await RedisQuotaStore.open(REDIS_URL, { prefix });
  try {
    const data = batches();
    const rows = INSTRUMENTS * BARS;
    let started = performance.now();
    await postgres.upsertBars(data);
    const pgImport = performance.now() - started;
    started = performance.now();
    await sqlite.upsertBars(data);
    const liteImport = performance.now() - started;
    say(`import ${rows.toLocaleString("en-US")} bars: PostgreSQL ${(pgImport / 1000).toFixed(1)} s (${Math.round(rows / (pgImport / 1000)).toLocaleString("en-US")} bars/s), SQLite ${(liteImport / 1000).toFixed(1)} s`);

    const serve = async (
      label: string,
      stores: { bars: BarStore; keys: KeyStore; quota: QuotaStore },
      cache: boolean,
      runs: number,
    ): Promise<void> => {
      const app = createServer({ ...stores, cache: cache ? undefined : false });
      const at = await listen(app);
      const result = await sequentialRuns(at, await keyFor(stores.keys), runs);
      await app.close();
      say(`${label}: p50 ${ms(result.p50)}, p99 ${ms(result.p99)} (${runs} runs, ${result.results} results)`);
    };
    await serve("run, cold, PostgreSQL + Redis", { bars: postgres, keys: postgres, quota: redis }, false, RUNS);
    await serve("run, cold, SQLite (embedded)", { bars: sqlite, keys: sqlite, quota: sqlite }, false, RUNS);
    await serve("run, warm, PostgreSQL + Redis", { bars: postgres, keys: postgres, quota: redis }, true, RUNS * 5);
    await serve("run, warm, SQLite (embedded)", { bars: sqlite, keys: sqlite, quota: sqlite }, true, RUNS * 5);

    say(`throughput: autocannon, ${CONNECTIONS} connections in all, ${SECONDS} s, warm cache, separate replica processes`);
    for (const count of [1, 2]) {
      const { urls, children } = await startReplicas(count, databaseUrl, prefix);
      try {
        const keys = [await keyFor(postgres), await keyFor(postgres)];
        // Warm each replica's fetch cache first: the first run reads every bar.
        for (const at of urls) await sequentialRuns(at, await keyFor(postgres), 1);
        const measured = await throughput(urls, keys);
        say(`${count} replica${count > 1 ? "s" : ""}: ${measured.rps.toFixed(1)} runs/s, p50 ${measured.p50} ms, p99 ${measured.p99} ms, non-200 ${measured.errors}`);
      } finally {
        await stopReplicas(children);
      }
    }
  } finally {
    redis.close();
    await postgres.close();
    sqlite.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv.includes("--replica")) {
  replica().catch((error: unknown) => {
    process.stderr.write(`replica: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
} else {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
