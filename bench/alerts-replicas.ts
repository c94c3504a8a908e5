/**
 * Alert rounds shared by replicas (benchmark, not a test). Run: `npm run bench:alerts-replicas`
 * with PostgreSQL and Redis up (`eval "$(scripts/services.sh start | grep ^export)"`).
 *
 * For each replica count N of BENCH_REPLICAS: a fresh database holding BENCH_SYMBOLS synthetic
 * CRYPTO instruments × BENCH_BARS h1 bars (a fixed synthetic history: every bar has closed),
 * N `xql serve` processes on it (the sources through tsx), BENCH_ALERTS stream-only alerts over BENCH_DISTINCT distinct screens. Then
 * BENCH_ROUNDS times: the next bar of every instrument is written in one transaction (from this
 * process, as a feed would); timed from its commit to the moment the replicas' `/metrics` count
 * every (alert, bar) committed, with the CPU each replica spent (`process_cpu_seconds_total`).
 * With N ≥ 2, one replica is then killed (SIGKILL) and the time until the survivors hold every
 * screen is the takeover (at most about 1.25 × BENCH_LEASE_SECONDS plus a round).
 *
 * The target (docs/performance.md): the wall time of a round falls with N while the CPU summed
 * over the replicas stays near one replica's; takeover under 30 s.
 *
 * Options (environment): BENCH_SYMBOLS (10000), BENCH_BARS (300), BENCH_ALERTS (1000),
 * BENCH_DISTINCT (100), BENCH_ROUNDS (3), BENCH_REPLICAS (1,2,3), BENCH_LEASE_SECONDS (15).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { issueApiKey } from "../src/accounts/keys.js";
import { PostgresStore } from "../src/open/postgres.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import type { Instrument } from "../src/types.js";
import { alertScreen, barBatch, loadAverage, median } from "./common.js";

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 10_000);
const BARS = Number(process.env.BENCH_BARS ?? 300);
const ALERTS = Number(process.env.BENCH_ALERTS ?? 1000);
const DISTINCT = Number(process.env.BENCH_DISTINCT ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const REPLICAS = (process.env.BENCH_REPLICAS ?? "1,2,3").split(",").map(Number);
const LEASE_SECONDS = Number(process.env.BENCH_LEASE_SECONDS ?? 15);
const DATABASE_URL = process.env.XQL_TEST_DATABASE_URL;
const REDIS_URL = process.env.XQL_TEST_REDIS_URL;

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const ms = (x: number): string => `${x.toFixed(0)} ms`;

interface Replica {
  child: ChildProcess;
  url: string;
  metrics: string;
  exited: Promise<unknown>;
}

/** `xql serve` on the database, with /metrics; resolves once it listens. */
async function serve(databaseUrl: string): Promise<Replica> {
  // The sources through tsx, so the bench measures this checkout (a dist/ may be stale).
  const args = ["--import", "tsx", `${ROOT}src/cli/main.ts`];
  const child = spawn(
    process.execPath,
    [...args, "serve", "--port", "0", "--db", databaseUrl, "--redis", REDIS_URL!, "--metrics-port", "0", "--lease-seconds", String(LEASE_SECONDS), "--quiet"],
    { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] },
  );
  const exited = new Promise((resolve) => child.on("close", resolve));
  let stderr = "";
  const { url, metrics } = await new Promise<{ url: string; metrics: string }>((resolve, reject) => {
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const listening = /listening on (http:\/\/[^ ]+)/.exec(stderr);
      const at = /metrics on (http:\/\/\S+\/metrics)/.exec(stderr);
      if (listening && at) resolve({ url: listening[1]!, metrics: at[1]! });
    });
    child.on("close", () => reject(new Error(`xql serve exited: ${stderr}`)));
  });
  return { child, url, metrics, exited };
}

function sample(text: string, series: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

async function scrape(replica: Replica): Promise<{ evaluations: number; held: number; cpu: number }> {
  const text = await (await fetch(replica.metrics)).text();
  return { evaluations: sample(text, "xql_alert_evaluations_total"), held: sample(text, "xql_alert_screens_held"), cpu: sample(text, "process_cpu_seconds_total") };
}

async function waitFor(check: () => Promise<boolean>, what: string, limitMs = 600_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`bench: ${what} did not happen within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `xql_bench_${randomBytes(5).toString("hex")}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

async function scenario(n: number, universe: Instrument[]): Promise<void> {
  const db = await freshDatabase();
  const store = await PostgresStore.open(db.url);
  const replicas: Replica[] = [];
  try {
    await store.upsertBars([barBatch(universe, 0, BARS)]);
    const keys: string[] = [];
    for (let a = 0; a < Math.ceil(ALERTS / 100); a++) keys.push((await issueApiKey(store, { tier: "plus", now: Date.now() })).key);
    for (let i = 0; i < n; i++) replicas.push(await serve(db.url));
    for (let k = 0; k < ALERTS; k++) {
      const response = await fetch(`${replicas[k % n]!.url}/xql/alerts`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys[Math.floor(k / 100)]}`, "content-type": "application/json" },
        body: JSON.stringify({ query: alertScreen(k % DISTINCT) }),
      });
      if (response.status !== 201) throw new Error(`alert ${k}: ${response.status} ${await response.text()}`);
    }
    const screens = Math.min(ALERTS, DISTINCT);
    const held = async () => (await Promise.all(replicas.map(scrape))).map((s) => s.held);
    await waitFor(async () => (await held()).reduce((a, b) => a + b, 0) === screens, "balance");

    const walls: number[] = [];
    const cpus: number[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = await Promise.all(replicas.map(scrape));
      await store.upsertBars([barBatch(universe, BARS + round, BARS + round + 1)]);
      const committed = performance.now();
      const target = before.reduce((a, s) => a + s.evaluations, 0) + ALERTS;
      let after = before;
      await waitFor(async () => {
        after = await Promise.all(replicas.map(scrape));
        return after.reduce((a, s) => a + s.evaluations, 0) >= target;
      }, `round ${round}`);
      walls.push(performance.now() - committed);
      cpus.push(after.map((s, i) => (s.cpu - before[i]!.cpu) * 1000));
    }
    const shares = (await held()).join("/");
    const cpuEach = replicas.map((_, i) => median(cpus.map((c) => c[i]!)));
    console.log(
      `${n} replica${n === 1 ? " " : "s"}: round ${ms(median(walls))} (median of ${ROUNDS}; ${walls.map(ms).join(", ")}), ` +
        `CPU per replica ${cpuEach.map(ms).join(" / ")} (sum ${ms(cpuEach.reduce((a, b) => a + b, 0))}), screens held ${shares}`,
    );

    if (n >= 2) {
      const victim = replicas.pop()!;
      victim.child.kill("SIGKILL");
      await victim.exited;
      const killed = performance.now();
      await waitFor(async () => (await held()).reduce((a, b) => a + b, 0) === screens, "takeover");
      console.log(`  takeover after SIGKILL: ${ms(performance.now() - killed)} (lease ${LEASE_SECONDS} s), screens held ${(await held()).join("/")}`);
    }
  } finally {
    for (const replica of replicas) replica.child.kill("SIGTERM");
    await Promise.all(replicas.map((r) => r.exited));
    await store.close();
    await db.drop();
  }
}

async function main(): Promise<void> {
  if (!DATABASE_URL || !REDIS_URL) {
    console.log('bench/alerts-replicas: set XQL_TEST_DATABASE_URL and XQL_TEST_REDIS_URL (eval "$(scripts/services.sh start | grep ^export)")');
    process.exitCode = 1;
    return;
  }
  console.log(`Node ${process.version}; ${loadAverage()}`);
  console.log(`${SYMBOLS} CRYPTO instruments × ${BARS} h1 bars; ${ALERTS} alerts over ${DISTINCT} distinct screens; ${ROUNDS} bars per replica count\n`);
  const universe = syntheticUniverse({ market: "CRYPTO", symbols: SYMBOLS, timeframes: ["h1"], bars: BARS + ROUNDS, seed: 7 });
  for (const n of REPLICAS) await scenario(n, universe);
}

await main();
