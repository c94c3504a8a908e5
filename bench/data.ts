/**
 * Data engine benchmark (not a test; issue 19). Run: `npm run bench:data`, which bundles this
 * file and its import child with tsup and runs them with node, as the CLI and the service run
 * from their build. Independent of today's date: every bar lies in 2023–2024.
 *
 * Prints the machine's load average first and last. For SQLite and, when XQL_TEST_DATABASE_URL
 * is set, PostgreSQL (`scripts/services.sh start`):
 *
 * 1. Runs of examples/multi-timeframe.xql (h1, h4, d; 300 bars fetched per source) over N
 *    CRYPTO instruments (default 10,000): the evaluation alone (bars already in memory); from the
 *    hot tier once warm; the first run after the service's own write and after another
 *    process's write (one closed h1 bar appended to every instrument); the first run after a
 *    start (a new store object and tier). Beside them the floor: one contiguous copy
 *    (`Float64Array.prototype.set`) of the bytes the run reads, and for the first run after a
 *    start the same copy into memory the process has not touched yet.
 * 2. Appending one closed h1 bar to each of N series whose h4, d and w are derived; beside it the
 *    floor (`data-floor.ts`): the database alone rewriting the catalog rows an append rewrites.
 * 3. Imports through the CLI's importer in a child process (its own peak RSS, `VmHWM` on
 *    Linux): a 1,000,000-row multi-symbol CSV (100 symbols × 10,000 h1 bars), a wide one
 *    (10,000 symbols × 100 h1 bars, time after time: every series open at once, the case the
 *    100-symbol file does not show) and a 525,600-row Binance 1-minute dump of one year, all
 *    written by the bench.
 *
 * Targets of issue 31, printed beside each figure: one bar appended to 10,000 series ≤ 250 ms
 * on SQLite and ≤ 500 ms on PostgreSQL; the first run after it ≤ 300 ms; the import of the
 * 10,000-symbol CSV at most 256 MB peak RSS.
 *
 * Env: BENCH_INSTRUMENTS (default 10000), BENCH_RUNS (default 7), BENCH_SKIP_IMPORT=1,
 * BENCH_SKIP_RUNS=1; the import files' sizes (a check on tiny input): BENCH_IMPORT_ROWS (the
 * multi-symbol CSV, default 1000000), BENCH_WIDE_SYMBOLS (default 10000) and BENCH_WIDE_BARS
 * (default 100), BENCH_BINANCE_ROWS (default 525600).
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "../src/api.js";
import { fetchUniverse } from "../src/fetch/fetch.js";
import { HotTier } from "../src/store/hot-tier.js";
import { openStore, type Store } from "../src/open/open.js";
import type { BarBatch } from "../src/store/store.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import type { Bars, Instrument, Timeframe } from "../src/types.js";
import { freshDatabase } from "../test/scale/helpers.js";
import { postgresFloor, sqliteFloor } from "./data-floor.js";

const N = Number(process.env.BENCH_INSTRUMENTS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const WIDE_SYMBOLS = Number(process.env.BENCH_WIDE_SYMBOLS ?? 10_000);
const WIDE_BARS = Number(process.env.BENCH_WIDE_BARS ?? 100);
const BINANCE_ROWS = Number(process.env.BENCH_BINANCE_ROWS ?? 525_600);
/** Issue 31's targets: an append of one bar to 10,000 series per backend, the first run after it, an import's peak RSS. */
const TARGET = { append: { SQLite: 250, PostgreSQL: 500 } as Record<string, number>, firstRun: 300, importMb: 256 };
const QUERY = readFileSync(new URL("../examples/multi-timeframe.xql", import.meta.url), "utf8");
const TIMEFRAMES: Timeframe[] = ["h1", "h4", "d"];
const BARS = 310;
/** Every bar of the bench lies before this: 2024-12-02 13:00 UTC. */
const END = Date.UTC(2024, 11, 2, 13);
const H = 3_600_000;

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (x: number): string => `${x.toFixed(1)} ms`;
const load = (): string => loadavg().map((x) => x.toFixed(2)).join(" ");

function universeBatches(market: string, timeframes: Timeframe[], bars: number): BarBatch[] {
  const universe = syntheticUniverse({ market: "CRYPTO", symbols: N, timeframes, bars, end: END });
  return timeframes.map((timeframe) => ({ market, timeframe, symbols: universe.map((i) => ({ symbol: i.symbol, bars: i.bars[timeframe]! })) }));
}

/** Doubles a run reads: per source, per instrument, its bars × (time + the plan's series). */
function bytesRead(universe: Instrument[], plan: ReturnType<typeof compile>["plan"]): number {
  let values = 0;
  for (const instrument of universe) {
    for (const source of plan.sources) {
      const bars = instrument.bars[source.timeframe];
      if (bars) values += bars.time.length * (1 + source.series.length);
    }
  }
  return values * 8;
}

/** The floor: one contiguous copy of `bytes` (median of RUNS). */
function copyFloor(bytes: number): number {
  const n = bytes / 8;
  const from = new Float64Array(n).map((_, i) => i);
  const to = new Float64Array(n);
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    to.set(from);
    samples.push(performance.now() - t);
  }
  if (to[n - 1] !== n - 1) throw new Error("copy");
  return median(samples);
}

/**
 * The floor of a first run after a start: one copy of `bytes` into memory the process has not
 * touched yet (a new array each time), which pays the operating system's first touch of every
 * page; on this project's virtual machines that, not the copy, is most of it.
 */
function freshCopyFloor(bytes: number): number {
  const n = bytes / 8;
  const from = new Float64Array(n).map((_, i) => i);
  const samples: number[] = [];
  for (let r = 0; r < 3; r++) {
    const t = performance.now();
    const to = new Float64Array(n);
    to.set(from);
    samples.push(performance.now() - t);
    if (to[n - 1] !== n - 1) throw new Error("copy");
  }
  return median(samples);
}

/** One closed h1 bar for every instrument of `market`, after `last`. */
function nextBars(market: string, symbols: readonly string[], time: number): BarBatch[] {
  const one = (price: number): Bars => ({
    time: [time],
    open: [price],
    high: [price + 1],
    low: [price - 1],
    close: [price + 0.5],
    volume: [10],
  });
  return [{ market, timeframe: "h1", symbols: symbols.map((symbol, i) => ({ symbol, bars: one(100 + (i % 50)) })) }];
}

async function runs(name: string, open: () => Promise<Store>): Promise<void> {
  let store = await open();
  const other = await open();
  try {
    let t = performance.now();
    const { written } = await store.upsertBars(universeBatches("CRYPTO", TIMEFRAMES, BARS));
    say(`${name}: wrote ${written.toLocaleString("en-US")} bars (${N} instruments × h1, h4, d × ${BARS}) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const q = compile(QUERY);
    const options = { fetch: q.fetch };
    // Cold fetch (no tier): the instruments in memory for the evaluation alone and the floor.
    const universe = await fetchUniverse(store, q.plan, options);
    const evaluation: number[] = [];
    for (let r = 0; r < RUNS; r++) {
      t = performance.now();
      q.run(universe);
      evaluation.push(performance.now() - t);
    }
    const bytes = bytesRead(universe, q.plan);
    const floor = copyFloor(bytes);
    const evalAlone = median(evaluation);
    say(`${name}: evaluation alone ${ms(evalAlone)}; the floor, one copy of the ${(bytes / 1e6).toFixed(1)} MB a run reads: ${ms(floor)}`);

    const timed = async (tier: HotTier): Promise<number> => {
      const start = performance.now();
      const lease = tier.lease();
      try {
        q.run(await fetchUniverse(store, q.plan, { ...options, cache: tier, lease }));
        return performance.now() - start;
      } finally {
        lease.release();
      }
    };

    // First run after a start: a new store object and an empty tier.
    await store.close();
    store = await open();
    let tier = new HotTier(store);
    tier.watch();
    const first = await timed(tier);
    const warm: number[] = [];
    for (let r = 0; r < RUNS; r++) warm.push(await timed(tier));
    const hot = median(warm);
    const fresh = freshCopyFloor(bytes);
    say(`${name}: the floor after a start, one copy of those bytes into untouched memory: ${ms(fresh)}`);
    say(`${name}: first run after a start ${ms(first)} (${(first / floor).toFixed(0)}× the floor, ${(first / fresh).toFixed(1)}× the floor after a start); from the hot tier ${ms(hot)} = ${(hot / evalAlone).toFixed(2)}× the evaluation alone (${(hot / floor).toFixed(0)}× the floor)`);

    // The first run after a write: the service's own, then another process's.
    const symbols = universe.map((i) => i.symbol);
    let next = END;
    const afterLocal: number[] = [];
    const afterRemote: number[] = [];
    for (let r = 0; r < Math.max(3, Math.floor(RUNS / 2)); r++) {
      await store.upsertBars(nextBars("CRYPTO", symbols, next));
      next += H;
      afterLocal.push(await timed(tier));
      await other.upsertBars(nextBars("CRYPTO", symbols, next));
      next += H;
      afterRemote.push(await timed(tier));
    }
    say(
      `${name}: first run after a write of one bar to each instrument: the service's own ${ms(median(afterLocal))}, another process's ${ms(median(afterRemote))} ` +
        `(target ≤ ${TARGET.firstRun} ms at 10,000; tier: ${JSON.stringify(tier.stats())})`,
    );
    // And it still matches a cold read.
    const cold = JSON.stringify(q.run(await fetchUniverse(store, q.plan, options)));
    const fromTier = JSON.stringify(q.run(await fetchUniverse(store, q.plan, { ...options, cache: tier })));
    if (cold !== fromTier) throw new Error(`${name}: the hot tier differs from a cold read`);
    tier.close();
    tier = new HotTier(store);
  } finally {
    await other.close();
    await store.close();
  }
}

/** A fresh database of one backend: its store, and the floor of an append to it (`data-floor.ts`). */
interface Backend {
  open: () => Promise<Store>;
  floor: (market: string) => Promise<{ rows: number; ms: number }>;
}

async function appends(name: string, { open, floor }: Backend): Promise<void> {
  const store = await open();
  try {
    const market = "APPEND";
    await store.upsertBars(universeBatches(market, ["h1"], 300));
    const symbols = (await store.symbols(market)).slice(0, N);
    const samples: number[] = [];
    let next = END;
    for (let r = 0; r < Math.max(RUNS, 20); r++) {
      const batches = nextBars(market, symbols, next);
      next += H;
      const t = performance.now();
      await store.upsertBars(batches);
      samples.push(performance.now() - t);
    }
    samples.sort((a, b) => a - b);
    say(
      `${name}: append one closed h1 bar to each of ${symbols.length.toLocaleString("en-US")} series (h4, d, w derived): median ${ms(median(samples))}, ` +
        `fastest ${ms(samples[0]!)}, slowest ${ms(samples.at(-1)!)} over ${samples.length} appends (target ≤ ${TARGET.append[name]} ms at 10,000)`,
    );
  } finally {
    await store.close();
  }
  const { rows, ms: floorMs } = await floor("APPEND");
  say(`${name}: its floor, the ${rows.toLocaleString("en-US")} catalog rows an append rewrites written back as they are in one transaction, nothing else: ${ms(floorMs)}`);
}

/** Writes the import files: a multi-symbol xql CSV, a wide one (every symbol at each time) and a Binance 1-minute dump of 2024. */
async function importFiles(dir: string): Promise<{ csv: string; wide: string; binance: string }> {
  const csv = join(dir, "multi-symbol.csv");
  const wide = join(dir, "wide.csv");
  const binance = join(dir, "BTCUSDT-1m-2024.csv");
  const write = async (file: string, rows: number, line: (i: number) => string): Promise<void> => {
    const out = createWriteStream(file);
    let chunk: string[] = [];
    for (let i = 0; i < rows; i++) {
      chunk.push(line(i));
      if (chunk.length === 10_000) {
        if (!out.write(`${chunk.join("\n")}\n`)) await new Promise<void>((resolve) => out.once("drain", () => resolve()));
        chunk = [];
      }
    }
    out.end(chunk.length > 0 ? `${chunk.join("\n")}\n` : "");
    await new Promise<void>((resolve) => out.once("finish", () => resolve()));
  };
  const price = (i: number): [number, number, number, number] => {
    const o = Math.round((100 + 20 * Math.sin(i / 500) + (i % 7)) * 100) / 100;
    const c = Math.round((o + ((i % 5) - 2) * 0.1) * 100) / 100;
    return [o, Math.max(o, c) + 0.25, Math.min(o, c) - 0.25, c];
  };
  const t0 = Date.UTC(2023, 0, 2);
  await write(csv, IMPORT_ROWS, (i) => {
    const symbol = `SYM${String(Math.floor(i / 10_000)).padStart(3, "0")}`;
    const [o, h, l, c] = price(i);
    return `${symbol},${t0 + (i % 10_000) * H},${o},${h},${l},${c},${1000 + (i % 97)}`;
  });
  await write(wide, WIDE_SYMBOLS * WIDE_BARS, (i) => {
    const symbol = `W${String(i % WIDE_SYMBOLS).padStart(5, "0")}`;
    const [o, h, l, c] = price(i);
    return `${symbol},${t0 + Math.floor(i / WIDE_SYMBOLS) * H},${o},${h},${l},${c},${1000 + (i % 97)}`;
  });
  const y0 = Date.UTC(2024, 0, 1);
  await write(binance, BINANCE_ROWS, (i) => {
    const [o, h, l, c] = price(i);
    const t = y0 + i * 60_000;
    return `${t},${o.toFixed(2)},${h.toFixed(2)},${l.toFixed(2)},${c.toFixed(2)},${(10 + (i % 13)).toFixed(5)},${t + 59_999},1234.5,42,5.5,678.9,0`;
  });
  return { csv, wide, binance };
}

function importChild(name: string, file: string, db: string, options: object, targetMb?: number): void {
  const child = join(dirname(fileURLToPath(import.meta.url)), "data-import.js");
  const run = spawnSync(process.execPath, [child, file, db, JSON.stringify(options)], { encoding: "utf8", env: process.env });
  if (run.status !== 0) throw new Error(`${name}: import child failed: ${run.stderr}`);
  const { rows, seconds, maxRssMb } = JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { rows: number; seconds: number; maxRssMb: number };
  const target = targetMb === undefined ? "" : ` (target ≤ ${targetMb} MB)`;
  say(`import ${name}: ${rows.toLocaleString("en-US")} rows in ${seconds.toFixed(2)} s = ${Math.round(rows / seconds).toLocaleString("en-US")} rows/s, peak RSS ${maxRssMb} MB${target}`);
}

async function main(): Promise<void> {
  say(`load average ${load()} (1, 5, 15 min); ${N.toLocaleString("en-US")} instruments`);
  const dir = mkdtempSync(join(tmpdir(), "xql-bench-data-"));
  const url = process.env.XQL_TEST_DATABASE_URL;
  const drops: (() => Promise<void>)[] = [];
  try {
    const backends: [string, () => Promise<Backend>][] = [
      [
        "SQLite",
        async () => {
          const file = join(dir, `bench-${Math.random().toString(36).slice(2)}.db`);
          return { open: () => openStore(file), floor: async (market) => sqliteFloor(file, market) };
        },
      ],
    ];
    if (url) {
      backends.push([
        "PostgreSQL",
        async () => {
          const fresh = await freshDatabase(url);
          drops.push(fresh.drop);
          return { open: () => openStore(fresh.url), floor: (market) => postgresFloor(fresh.url, market) };
        },
      ]);
    } else say("PostgreSQL: skipped (XQL_TEST_DATABASE_URL not set; `scripts/services.sh start` prints it)");
    if (!process.env.BENCH_SKIP_RUNS) {
      for (const [name, make] of backends) {
        await runs(name, (await make()).open);
        await appends(name, await make());
      }
    }
    if (!process.env.BENCH_SKIP_IMPORT) {
      const { csv, wide, binance } = await importFiles(dir);
      const count = (n: number): string => n.toLocaleString("en-US");
      for (const [name] of backends) {
        for (const [label, file, options, targetMb] of [
          [`${count(IMPORT_ROWS)}-row multi-symbol CSV`, csv, { market: "CRYPTO", timeframe: "h1" }, undefined],
          [`${count(WIDE_SYMBOLS)}-symbol CSV (${count(WIDE_BARS)} h1 bars each, every symbol at each time)`, wide, { market: "CRYPTO", timeframe: "h1" }, TARGET.importMb],
          [`${count(BINANCE_ROWS)}-row Binance 1-minute dump`, binance, { market: "CRYPTO" }, undefined],
        ] as const) {
          let target = join(dir, `import-${Math.random().toString(36).slice(2)}.db`);
          if (name !== "SQLite") {
            const fresh = await freshDatabase(url!);
            drops.push(fresh.drop);
            target = fresh.url;
          }
          importChild(`${label} (${name})`, file, target, options, targetMb);
        }
      }
    }
  } finally {
    for (const drop of drops) await drop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
  say(`load average ${load()} at the end`);
}

await main();
