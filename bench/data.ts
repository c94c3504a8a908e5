/**
 * Data benchmark (not a test; issue 12). Run: `npm run bench:data`.
 *
 * 1. Cold and warm runs of examples/multi-timeframe.xql (h1, h4, d; 300 bars fetched per
 *    source) over N CRYPTO instruments on SQLite, and on PostgreSQL when
 *    XQL_TEST_DATABASE_URL is set. Cold: fetch by plan from the store (packed blocks) and
 *    evaluate, no cache; warm: the same with the fetch cache already holding the reads.
 *    Beside them, the memory-copy limit: copying the same bytes (every column the cold fetch
 *    returned) from memory into new typed arrays.
 * 2. Import throughput (rows/s) per file format, through the same importer the CLI uses.
 *
 * Env: BENCH_SIZES (default "264,10000"), BENCH_RUNS (default 7), BENCH_IMPORT_ROWS (default 200000).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { compile } from "../src/api.js";
import { importBars } from "../src/ingest/importer.js";
import { fetchUniverse } from "../src/store/fetch.js";
import { HotTier } from "../src/store/hot-tier.js";
import { openStore, type Store } from "../src/store/open.js";
import type { BarBatch } from "../src/store/store.js";
import { syntheticUniverse } from "../src/synthetic/synthetic.js";
import type { Bars, Instrument, Timeframe } from "../src/types.js";
import { freshDatabase } from "../test/scale/helpers.js";

const SIZES = (process.env.BENCH_SIZES ?? "264,10000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const IMPORT_ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 200_000);
const QUERY = readFileSync(new URL("../examples/multi-timeframe.xql", import.meta.url), "utf8");
const TIMEFRAMES: Timeframe[] = ["h1", "h4", "d"];
const BARS = 310;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const say = (line: string): void => void process.stdout.write(`${line}\n`);

function batches(n: number): BarBatch[] {
  const universe = syntheticUniverse({ market: "CRYPTO", symbols: n, timeframes: TIMEFRAMES, bars: BARS, end: Date.UTC(2026, 10, 20, 13, 25) });
  return TIMEFRAMES.map((timeframe) => ({
    market: "CRYPTO",
    timeframe,
    symbols: universe.map((i) => ({ symbol: i.symbol, bars: i.bars[timeframe]! })),
  }));
}

/** Copies every column of `universe` from one flat buffer into fresh typed arrays: the memory-copy limit of a fetch. */
function copyLimit(universe: Instrument[]): { ms: number; bytes: number } {
  const shapes: number[] = [];
  const seen = new Set<Float64Array>(); // unread series are one shared NaN column: not bytes read
  for (const i of universe) {
    for (const b of Object.values(i.bars) as Bars[]) {
      for (const c of Object.values(b) as Float64Array[]) {
        if (seen.has(c)) continue;
        seen.add(c);
        shapes.push(c.length);
      }
    }
  }
  const total = shapes.reduce((s, n) => s + n, 0);
  const source = new Float64Array(total).map((_, i) => i);
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    let at = 0;
    const out: Float64Array[] = [];
    for (const n of shapes) {
      const c = new Float64Array(n);
      c.set(source.subarray(at, at + n));
      at += n;
      out.push(c);
    }
    samples.push(performance.now() - t);
    if (out.length !== shapes.length) throw new Error("copy");
  }
  return { ms: median(samples), bytes: total * 8 };
}

async function runs(name: string, store: Store, n: number): Promise<void> {
  const q = compile(QUERY);
  const cold: number[] = [];
  const coldFetch: number[] = [];
  let universe: Instrument[] = [];
  let first = "";
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    universe = await fetchUniverse(store, q.plan);
    const f = performance.now();
    const result = q.run(universe);
    cold.push(performance.now() - t);
    coldFetch.push(f - t);
    const text = JSON.stringify(result);
    if (r === 0) first = text;
    else if (text !== first) throw new Error("cold runs differ");
  }
  const cache = new HotTier(store);
  await fetchUniverse(store, q.plan, { cache });
  const warm: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const t = performance.now();
    const result = q.run(await fetchUniverse(store, q.plan, { cache }));
    warm.push(performance.now() - t);
    if (JSON.stringify(result) !== first) throw new Error("warm differs from cold");
  }
  const limit = copyLimit(universe);
  say(
    `${name.padEnd(10)} ${String(n).padStart(6)} instruments: cold ${median(cold).toFixed(1)} ms (fetch ${median(coldFetch).toFixed(1)} ms), ` +
      `warm ${median(warm).toFixed(1)} ms; memory copy of the same ${(limit.bytes / 1e6).toFixed(1)} MB ${limit.ms.toFixed(1)} ms ` +
      `(cold fetch / copy = ${(median(coldFetch) / limit.ms).toFixed(1)}x)`,
  );
}

async function backend(name: string, open: () => Promise<{ store: Store; done: () => Promise<void> }>): Promise<void> {
  for (const n of SIZES) {
    const { store, done } = await open();
    try {
      const t = performance.now();
      const { written: rows } = await store.upsertBars(batches(n));
      say(`${name.padEnd(10)} ${String(n).padStart(6)} instruments: wrote ${rows.toLocaleString("en-US")} bars in ${((performance.now() - t) / 1000).toFixed(1)} s`);
      await runs(name, store, n);
    } finally {
      await done();
    }
  }
}

async function imports(dir: string): Promise<void> {
  const hours = IMPORT_ROWS;
  const t0 = Date.UTC(2020, 0, 6);
  const H = 3_600_000;
  const row = (i: number): [number, number, number, number, number, number] => {
    const o = 100 + Math.sin(i / 50) * 10;
    return [t0 + i * H, o, o + 1, o - 1, o + 0.5, 1000 + (i % 97)];
  };
  const pad = (x: number): string => String(x).padStart(2, "0");
  const files: [string, string, Parameters<typeof importBars>[2]][] = [];
  const lines = (f: (i: number) => string): string => Array.from({ length: hours }, (_, i) => f(i)).join("\n") + "\n";
  writeFileSync(join(dir, "xql.csv"), lines((i) => { const r = row(i); return `BENCH,${r.join(",")}`; }));
  files.push(["xql CSV", join(dir, "xql.csv"), { market: "X1", timeframe: "h1" }]);
  writeFileSync(join(dir, "BENCHUSDT-1h-2020-01.csv"), lines((i) => { const r = row(i); return [r[0] * 1000, r[1], r[2], r[3], r[4], r[5], r[0] * 1000 + H * 1000 - 1, 0, 1, 0, 0, 0].join(","); }));
  files.push(["Binance µs", join(dir, "BENCHUSDT-1h-2020-01.csv"), { market: "X2" }]);
  writeFileSync(join(dir, "mt.tsv"), lines((i) => {
    const r = row(i);
    const d = new Date(r[0]);
    return [`${d.getUTCFullYear()}.${pad(d.getUTCMonth() + 1)}.${pad(d.getUTCDate())}`, `${pad(d.getUTCHours())}:00:00`, r[1], r[2], r[3], r[4], r[5], 0, 1].join("\t");
  }));
  files.push(["MetaTrader", join(dir, "mt.tsv"), { market: "X3", timeframe: "h1", symbol: "BENCH" }]);
  writeFileSync(join(dir, "hd.csv"), lines((i) => {
    const r = row(i);
    const d = new Date(r[0] - 5 * H);
    return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())} ${pad(d.getUTCHours())}0000;${r.slice(1).join(";")}`;
  }));
  files.push(["HistData", join(dir, "hd.csv"), { market: "X4", timeframe: "h1", symbol: "BENCH" }]);
  writeFileSync(join(dir, "generic.csv.gz"), gzipSync(lines((i) => { const r = row(i); return [r[0] / 1000, ...r.slice(1)].join(";"); })));
  files.push(["generic .gz", join(dir, "generic.csv.gz"), { market: "X5", timeframe: "h1", symbol: "BENCH", columns: ["time", "open", "high", "low", "close", "volume"], timeFormat: "s" }]);
  const store = await openStore(join(dir, "import.db"));
  try {
    for (const [name, file, options] of files) {
      const t = performance.now();
      const result = await importBars(store, file, options);
      const s = (performance.now() - t) / 1000;
      say(`import ${name.padEnd(12)} ${result.rows.toLocaleString("en-US")} rows in ${s.toFixed(2)} s = ${Math.round(result.rows / s).toLocaleString("en-US")} rows/s (SQLite, with derivation and blocks)`);
    }
  } finally {
    await store.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "xql-bench-data-"));
  try {
    let k = 0;
    await backend("SQLite", async () => {
      const store = await openStore(join(dir, `bench-${k++}.db`));
      return { store, done: () => store.close() };
    });
    const url = process.env.XQL_TEST_DATABASE_URL;
    if (url) {
      await backend("PostgreSQL", async () => {
        const fresh = await freshDatabase(url);
        const store = await openStore(fresh.url);
        return { store, done: async () => { await store.close(); await fresh.drop(); } };
      });
    } else {
      say("PostgreSQL: skipped (XQL_TEST_DATABASE_URL not set)");
    }
    await imports(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

void main();
