/**
 * Alerts benchmark (not a test). Run: `npm run bench:alerts`.
 *
 * A SQLite store of BENCH_SYMBOLS synthetic CRYPTO instruments × BENCH_BARS h1 bars (a fixed
 * synthetic history: nothing depends on today's date, and every bar has closed).
 *
 * 1. Latency: BENCH_ALERTS alerts (BENCH_DISTINCT distinct queries) on the real service
 *    (`createServer`, default timings: the 100 ms settle included) with webhooks to a local
 *    receiver. For each of BENCH_RUNS new bars: the bar of every instrument is written in one
 *    `upsertBars`; timed from its commit to the last webhook POST of that bar received.
 *    Target ≤ 1 s on SQLite, idle machine. Floor: one read of the union plan's bars plus one
 *    evaluation of each distinct query at the new bar, measured in the same process.
 * 2. Sharing: BENCH_MANY alerts (BENCH_MANY_DISTINCT distinct queries, stream-only) evaluated by
 *    the engine in one round after a new bar: the round's time and the time per alert, beside
 *    the estimate without sharing (each alert reading its own bars and evaluating alone).
 *
 * Options (environment): BENCH_SYMBOLS (10000), BENCH_BARS (300), BENCH_ALERTS (100),
 * BENCH_DISTINCT (100), BENCH_RUNS (3), BENCH_MANY (1000), BENCH_MANY_DISTINCT (100).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { compile } from "../src/api.js";
import { issueApiKey } from "../src/accounts/keys.js";
import { AlertEngine } from "../src/alerts/engine.js";
import { unionOf } from "../src/alerts/evaluate.js";
import { createServer } from "../src/server/app.js";
import { fetchUniverse } from "../src/fetch/fetch.js";
import { HotTier } from "../src/store/hot-tier.js";
import { SqliteStore } from "../src/open/sqlite.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import { alertScreen, barBatch } from "./common.js";

const SYMBOLS = Number(process.env.BENCH_SYMBOLS ?? 10_000);
const BARS = Number(process.env.BENCH_BARS ?? 300);
const ALERTS = Number(process.env.BENCH_ALERTS ?? 100);
const DISTINCT = Number(process.env.BENCH_DISTINCT ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const MANY = Number(process.env.BENCH_MANY ?? 1000);
const MANY_DISTINCT = Number(process.env.BENCH_MANY_DISTINCT ?? 100);

const load = (): string => loadavg().map((x) => x.toFixed(1)).join(" ");
const ms = (x: number): string => `${x.toFixed(0)} ms`;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  console.log(`Node ${process.version}; load average ${load()}`);
  console.log(`${SYMBOLS} CRYPTO instruments × ${BARS} h1 bars; scenario 1: ${ALERTS} alerts (${DISTINCT} distinct queries), ${RUNS} bars; scenario 2: ${MANY} alerts (${MANY_DISTINCT} distinct)\n`);
  const dir = mkdtempSync(join(tmpdir(), "xql-bench-alerts-"));
  const store = new SqliteStore(join(dir, "xql.db"));
  const universe = syntheticUniverse({ market: "CRYPTO", symbols: SYMBOLS, timeframes: ["h1"], bars: BARS + RUNS + 2, seed: 7 });
  const t0 = performance.now();
  await store.upsertBars([barBatch(universe, 0, BARS)]);
  console.log(`store written: ${SYMBOLS * BARS} bars in ${ms(performance.now() - t0)}`);

  // ---- 1. latency: commit of one closed bar → last webhook POST received ----
  const received: { at: number; time: number }[] = [];
  const receiver = createHttpServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      received.push({ at: performance.now(), time: (JSON.parse(body) as { time: number }).time });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const app = createServer({ store, allowPrivateWebhooks: true });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const keys: string[] = [];
  const accounts: string[] = [];
  for (let a = 0; a < Math.ceil(ALERTS / 100); a++) {
    const issued = await issueApiKey(store, { tier: "plus", now: Date.now() });
    keys.push(issued.key);
    accounts.push(issued.record.accountId);
  }
  const created = performance.now();
  for (let n = 0; n < ALERTS; n++) {
    const response = await fetch(`${url}/xql/alerts`, {
      method: "POST",
      headers: { authorization: `Bearer ${keys[Math.floor(n / 100)]}`, "content-type": "application/json" },
      body: JSON.stringify({ query: alertScreen(n % DISTINCT), webhook: hook }),
    });
    if (response.status !== 201) throw new Error(`alert ${n}: ${response.status} ${await response.text()}`);
  }
  console.log(`${ALERTS} alerts created in ${ms(performance.now() - created)} (each with its baseline)`);

  const latencies: number[] = [];
  const writes: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const index = BARS + run;
    const time = universe[0]!.bars.h1!.time[index]!;
    const before = performance.now();
    await store.upsertBars([barBatch(universe, index, index + 1)]);
    const committed = performance.now();
    // Every alert evaluates the bar; those whose screen changed post once. Wait for both.
    while ((await store.alerts.alertHeads()).some((a) => a.lastTime !== time)) await new Promise((r) => setTimeout(r, 25));
    const made = (await Promise.all(accounts.map((id) => store.alerts.deliveriesAfter([id], 0, 0, 100_000)))).flat().filter((d) => (JSON.parse(d.body) as { time: number }).time === time).length;
    while (received.filter((r) => r.time === time).length < made) await new Promise((r) => setTimeout(r, 10));
    const posts = received.filter((r) => r.time === time);
    const done = posts.length === 0 ? performance.now() : Math.max(...posts.map((r) => r.at));
    writes.push(committed - before);
    latencies.push(done - committed);
    console.log(`bar ${run + 1}: write ${ms(committed - before)}, commit → last of ${posts.length} POSTs ${ms(done - committed)} (load ${load()})`);
  }
  await app.close();
  receiver.close();
  // Scenario 1's alerts go: scenario 2 has the store to itself.
  for (const account of accounts) for (const alert of await store.alerts.listAlerts(account)) await store.alerts.deleteAlert(account, alert.id);

  // The floor: one read of the union plan's bars, one evaluation of each distinct query.
  const compiled = Array.from({ length: Math.min(DISTINCT, ALERTS) }, (_, k) => compile(alertScreen(k)));
  const union = unionOf(compiled);
  const readStart = performance.now();
  const bars = await fetchUniverse(store, union.plan, { warmup: 300, fetch: union.fetch, cache: new HotTier(store) });
  const read = performance.now() - readStart;
  const evalStart = performance.now();
  for (const c of compiled) c.history(bars, { bars: 1 });
  const evaluate = performance.now() - evalStart;
  const floor = read + evaluate;
  console.log(`\nScenario 1 (${ALERTS} alerts, ${DISTINCT} distinct queries, ${SYMBOLS} instruments):`);
  console.log(`  commit → last webhook POST: median ${ms(median(latencies))} (runs: ${latencies.map(ms).join(", ")}); target ≤ 1,000 ms on an idle machine`);
  console.log(`  the write itself: median ${ms(median(writes))}`);
  console.log(`  floor: read ${ms(read)} + ${compiled.length} evaluations ${ms(evaluate)} = ${ms(floor)}; ratio ${(median(latencies) / floor).toFixed(2)}x (the rest: the 100 ms settle, commit, ${ALERTS} signed POSTs)`);

  // ---- 2. sharing: many alerts, few distinct queries, one round ----
  const engine = new AlertEngine({
    bars: store,
    alerts: store.alerts,
    clock: { now: () => Date.now() },
    compile: (text) => compile(text),
    warmup: 300,
    cache: new HotTier(store),
    allowPrivateWebhooks: true,
    // Rounds run when this bench asks, not on the write's own trigger.
    settleMs: 3_600_000,
  });
  const baselines = new Map<string, Awaited<ReturnType<AlertEngine["baseline"]>>>();
  const many: string[] = [];
  for (let a = 0; a < Math.ceil(MANY / 100); a++) many.push((await issueApiKey(store, { tier: "plus", now: Date.now() })).record.accountId);
  for (let n = 0; n < MANY; n++) {
    const query = alertScreen(1000 + (n % MANY_DISTINCT));
    if (!baselines.has(query)) baselines.set(query, await engine.baseline(compile(query)));
    const b = baselines.get(query)!;
    await store.alerts.createAlert(
      { id: `alrt_bench${n}`, accountId: many[Math.floor(n / 100)]!, name: `bench ${n}`, query, webhook: null, secret: "s", market: "CRYPTO", timeframe: "h1", createdAt: Date.now(), lastTime: b.time, matching: b.matching },
      100,
    );
  }
  engine.start();
  await engine.evaluate();
  const index = BARS + RUNS;
  await store.upsertBars([barBatch(universe, index, index + 1)]);
  const roundStart = performance.now();
  await engine.evaluate();
  const round = performance.now() - roundStart;
  await engine.stop();

  // Without sharing: each alert reads its own plan's bars and evaluates alone (measured on the distinct queries).
  const distinct = [...baselines.keys()].map((q) => compile(q));
  const aloneStart = performance.now();
  for (const c of distinct) {
    const own = await fetchUniverse(store, c.plan, { warmup: 300, fetch: c.fetch });
    c.history(own, { bars: 1 });
  }
  const alone = ((performance.now() - aloneStart) / distinct.length) * MANY;
  console.log(`\nScenario 2 (${MANY} alerts, ${MANY_DISTINCT} distinct queries, one new bar, load ${load()}):`);
  console.log(`  one round: ${ms(round)}, ${(round / MANY).toFixed(2)} ms per alert (reads shared per market and timeframe, evaluations per distinct query)`);
  console.log(`  without sharing (estimated from the distinct queries): ${ms(alone)}, ${(alone / MANY).toFixed(2)} ms per alert; sharing saves ${(alone / round).toFixed(1)}x`);

  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
