/**
 * One number per bar (decisions §9; src/eval/anchor.ts): the anchor rule's properties, and the
 * defining property — for random queries and random stored series (gaps, flat stretches, a
 * store holding more older bars) in a real SQLite store, the value at base bar t is identical
 * (through JSON, as every body travels) across the service's run on the store cut after t, the
 * service's history at windows 1/10/100/1000, `xql run` and `xql history` on the store, and the
 * library over each source's bars from `compile(q).anchor(tf, t)`.
 */
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { compile, historyAnchoredAsync, runAnchoredAsync } from "../../src/api.js";
import { anchorTime } from "../../src/eval/anchor.js";
import { truncateInstrument } from "../../src/eval/truncate.js";
import { fetchAnchored, fetchUniverse } from "../../src/fetch/fetch.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { TIMEFRAME_MS, type Bars, type Instrument, type Timeframe } from "../../src/types.js";
import { xqlIn } from "../cli/in-process.js";
import { HOUR, MONDAY, prng, tempDir, tickWalk, type ArrayBars } from "../kit/index.js";
import { CROSSINGS, FAMILIES, cutBars, gappedSeries } from "./stored-series.js";
import { startServer } from "../server/helpers.js";

const HEAD = 'market = "CRYPTO"\ntimeframe = h1\n';

describe("the anchor rule", () => {
  it("leaves between F and 2F closed bars of every source on a gapless series, decided by t alone", () => {
    const sources: Timeframe[] = ["m5", "h1", "h4", "d", "w"];
    fc.assert(
      fc.property(
        fc.constantFrom<Timeframe>("m15", "h1", "h4", "d"),
        fc.constantFrom(...sources),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 0, max: 200_000 }),
        (base, tf, F, step) => {
          const db = TIMEFRAME_MS[base];
          const D = TIMEFRAME_MS[tf];
          const t = MONDAY + 3000 * TIMEFRAME_MS.w + step * db;
          const a = anchorTime("CRYPTO", base, tf, F, t);
          expect(a % (F * D)).toBe(0);
          // A gapless CRYPTO series: bars on the grid (weeks open on Mondays, 1970-01-05).
          const origin = tf === "w" ? 4 * TIMEFRAME_MS.d : 0;
          const first = Math.ceil((a - origin) / D) * D + origin;
          // Closed by t's close: open + D ≤ t + db.
          const last = Math.floor((t + db - D - origin) / D) * D + origin;
          const count = (last - first) / D + 1;
          expect(count).toBeGreaterThanOrEqual(F);
          // At most 2F, plus a finer source's bars inside the base bar.
          expect(count).toBeLessThanOrEqual(2 * F + Math.max(0, db / D - 1));
        },
      ),
      { numRuns: 2000, seed: 9 },
    );
  });

  it("is exported as compile(q).anchor, per source of the plan", () => {
    const q = compile(`${HEAD}columns = [d::ema(close, 5)]\nrsi(14) < 30`);
    const t = Date.UTC(2026, 11, 1, 10);
    const F = q.fetch[0]!.bars;
    expect(q.anchor("h1", t)).toBe(Math.floor((t - F * HOUR) / (F * HOUR)) * F * HOUR);
    const Fd = q.fetch.find((f) => f.timeframe === "d")!.bars;
    // A coarser source measures from its latest bar that can have closed by t's close.
    const own = t + HOUR - TIMEFRAME_MS.d;
    expect(q.anchor("d", t)).toBe(Math.floor((own - Fd * TIMEFRAME_MS.d) / (Fd * TIMEFRAME_MS.d)) * Fd * TIMEFRAME_MS.d);
    // FOREX reaches back 1.5 times as far.
    const fx = compile('market = "FOREX"\ntimeframe = h1\nrsi(14) < 30');
    const Ffx = fx.fetch[0]!.bars;
    expect(fx.anchor("h1", t)).toBe(Math.floor((t - 1.5 * Ffx * HOUR) / (Ffx * HOUR)) * Ffx * HOUR);
    expect(() => q.anchor("w", t)).toThrow(RangeError);
    expect(() => q.anchor("h1", Number.NaN)).toThrow(RangeError);
  });
});


/** A real SQLite store file holding every symbol's bars with open time in [from, to). */
async function storeOf(file: string, market: string, symbols: readonly { symbol: string; bars: ArrayBars }[], from: number, to: number): Promise<void> {
  const store = new SqliteStore(file);
  try {
    const held = symbols.map(({ symbol, bars }) => ({ symbol, bars: cutBars(bars, from, to) })).filter((s) => s.bars.time.length > 0);
    await store.upsertBars([{ market, timeframe: "h1", symbols: held }]);
  } finally {
    await store.close();
  }
}

type Columns = Record<string, number | null>;
const json = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** The library over each source's bars from `anchor(tf, t)`, cut at t's close: symbol → columns at t. */
function libraryAt(query: string, options: { warmupCeiling: number }, universe: readonly Instrument[], t: number): Map<string, Columns> {
  const q = compile(query, options);
  const base = q.plan.sources[0]!.timeframe;
  const injected: Instrument[] = [];
  for (const instrument of universe) {
    const time = instrument.bars[base]?.time;
    if (!time || !Array.from(time).includes(t)) continue;
    const cutAt = truncateInstrument(instrument, base, t);
    const bars: Partial<Record<Timeframe, Bars>> = {};
    for (const f of q.fetch) {
      const b = cutAt.bars[f.timeframe];
      if (!b) continue;
      const a = q.anchor(f.timeframe, t);
      const from = Array.from(b.time).findIndex((x) => x >= a);
      const n = from < 0 ? b.time.length : from;
      const slice = (c: ArrayLike<number>): number[] => Array.from(c).slice(n);
      bars[f.timeframe] = { time: slice(b.time), open: slice(b.open), high: slice(b.high), low: slice(b.low), close: slice(b.close), volume: slice(b.volume) };
    }
    injected.push({ symbol: instrument.symbol, bars });
  }
  return new Map(json(q.run(injected).results).map((r) => [r.symbol, r.columns]));
}

/** History's matches at each time: time → symbol → columns. */
function byTime(matches: readonly { time: number; symbol: string; columns: Columns }[]): Map<number, Map<string, Columns>> {
  const out = new Map<number, Map<string, Columns>>();
  for (const m of json(matches)) {
    let at = out.get(m.time);
    if (!at) out.set(m.time, (at = new Map()));
    at.set(m.symbol, m.columns);
  }
  return out;
}

let compared = 0;

describe("one number per bar: every path that reads the store gives the value at t, bit for bit", () => {
  afterAll(() => {
    // Not vacuous: values were compared, many of them after their anchor moved.
    expect(compared).toBeGreaterThan(300);
  });

  it("for random queries and stored series", async () => {
    const { dir, cleanup } = tempDir();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.constantFrom(...FAMILIES), { minLength: 1, maxLength: 3 }),
          fc.constantFrom(...CROSSINGS),
          fc.constantFrom(20, 30, 45),
          fc.integer({ min: 1, max: 10_000 }),
          fc.constantFrom("CRYPTO", "FOREX"),
          async (columns, condition, warmupCeiling, seed, market) => {
            n++;
            // FOREX: anchors reach back 1.5 times as far, and its h4 and d bars open at 17:00 New York.
            const query = `market = "${market}"\ntimeframe = h1\ncolumns = [${columns.join(", ")}]\n${condition}`;
            const options = { warmupCeiling };
            const compiled = compile(query, options);
            const rand = prng(seed);
            const symbols = ["AAA", "BBB", "CCC"].map((symbol, i) => ({ symbol, bars: gappedSeries(seed * 3 + i, MONDAY + Math.floor(rand() * 40) * HOUR, 260 + Math.floor(rand() * 60), { drop: 0.03, longGap: true }) }));
            const all = [...new Set(symbols.flatMap((s) => Array.from(s.bars.time)))].sort((a, b) => a - b);
            const latest = all[all.length - 1]!;
            // The full store, and one whose first bars are 60 hours later (fewer older bars).
            const full = join(dir, `full-${n}.db`);
            const later = join(dir, `later-${n}.db`);
            const older = all[0]! + 60 * HOUR;
            await storeOf(full, market, symbols, -Infinity, Infinity);
            await storeOf(later, market, symbols, older, Infinity);

            // The reference: the library over the bars from each source's anchor.
            const store = new SqliteStore(full);
            const universe = await fetchUniverse(store, compiled.plan, { warmup: 100_000, fetch: compiled.fetch });
            await store.close();
            const reference = new Map<number, Map<string, Columns>>();
            for (const t of all.slice(-100)) reference.set(t, libraryAt(query, options, universe, t));

            const server = await startServer({ file: full, dir, seed: false, warmupCeiling, warmup: 20 });
            try {
              const { key } = await server.key("plus");
              for (const bars of [1, 10, 100, 1000]) {
                const response = await server.post(`/xql/history?bars=${bars}`, query, key);
                expect(response.status).toBe(200);
                const got = byTime(((await response.json()) as { matches: { time: number; symbol: string; columns: Columns }[] }).matches);
                for (const t of all.slice(-Math.min(bars, 100))) {
                  expect(got.get(t) ?? new Map(), `history ${bars} at ${new Date(t).toISOString()}\n${query}`).toEqual(reference.get(t));
                  compared += reference.get(t)!.size;
                }
              }
            } finally {
              await server.stop();
            }

            // `xql history` on the store: the same numbers.
            const cli = await xqlIn(["history", "--db", full, "--bars", "100", "--warmup-ceiling", String(warmupCeiling), "--format", "json"], { input: query, env: { HOME: dir } });
            expect(cli.code, cli.stderr).toBe(0);
            const cliRows = byTime((JSON.parse(cli.stdout) as { matches: { time: number; symbol: string; columns: Columns }[] }).matches);
            for (const t of all.slice(-100)) expect(cliRows.get(t) ?? new Map()).toEqual(reference.get(t));

            // A store holding fewer older bars gives the same values wherever it holds every bar from t's anchors.
            const laterStore = new SqliteStore(later);
            try {
              const read = await fetchAnchored(laterStore, compiled.plan, { warmup: 20, fetch: compiled.fetch, anchorSources: compiled.fetch, bars: 100 });
              const got = byTime((await historyAnchoredAsync(compiled, read, { bars: 100 })).result.matches);
              for (const t of all.slice(-100)) {
                if (compiled.fetch.some((f) => compiled.anchor(f.timeframe, t) < older)) continue;
                expect(got.get(t) ?? new Map(), `fewer older bars at ${new Date(t).toISOString()}`).toEqual(reference.get(t));
              }
            } finally {
              await laterStore.close();
            }

            // The service's run and `xql run` on the store cut after t, at a few bars t.
            for (const t of [all[all.length - 1 - Math.floor(rand() * 60)]!, latest]) {
              const file = join(dir, `cut-${n}-${t}.db`);
              await storeOf(file, market, symbols, -Infinity, t + HOUR);
              const at = reference.get(t)!;
              const cutServer = await startServer({ file, dir, seed: false, warmupCeiling, warmup: 20 });
              try {
                const { key } = await cutServer.key("plus");
                const response = await cutServer.post("/xql/run", query, key);
                const body = (await response.json()) as { results: { symbol: string; columns: Columns }[] };
                // Symbols whose latest bar is t: the others' latest is earlier, another bar.
                const present = new Set(symbols.filter((s) => s.bars.time.includes(t)).map((s) => s.symbol));
                const run = new Map(body.results.filter((r) => present.has(r.symbol)).map((r) => [r.symbol, r.columns]));
                expect(run, `run cut after ${new Date(t).toISOString()}\n${query}`).toEqual(at);
              } finally {
                await cutServer.stop();
              }
              const cliRun = await xqlIn(["run", "--db", file, "--warmup-ceiling", String(warmupCeiling), "--format", "json"], { input: query, env: { HOME: dir } });
              expect(cliRun.code, cliRun.stderr).toBe(0);
              const present = new Set(symbols.filter((s) => s.bars.time.includes(t)).map((s) => s.symbol));
              const rows = (JSON.parse(cliRun.stdout) as { results: { symbol: string; columns: Columns }[] }).results.filter((r) => present.has(r.symbol));
              expect(new Map(rows.map((r) => [r.symbol, r.columns]))).toEqual(at);
            }
          },
        ),
        {
          numRuns: 10,
          seed: 20261205,
          // Nested timeframes every time, whatever the random draws.
          examples: [
            [["h4::ema(close, 5)", "rsi(14)"], "crossover(close, ema(close, 10))", 20, 7, "CRYPTO"],
            [["h4::rsi(6)", "obv", "d::close - d::close[1]"], "true", 30, 11, "FOREX"],
          ],
        },
      );
    } finally {
      cleanup();
    }
  }, 300_000);
});

describe("meta.unconverged", () => {
  it("counts instruments evaluated on fewer bars than a recursive source's fetch, in run and history", async () => {
    const store = new SqliteStore(":memory:");
    try {
      // AAA has 700 bars; BBB is young (50 bars).
      await store.upsertBars([
        {
          market: "CRYPTO",
          timeframe: "h1",
          symbols: [
            { symbol: "AAA", bars: tickWalk({ seed: 1, count: 700, timeframe: "h1", start: MONDAY }) },
            { symbol: "BBB", bars: tickWalk({ seed: 2, count: 50, timeframe: "h1", start: MONDAY + 650 * HOUR }) },
          ],
        },
      ]);
      const recursive = compile(`${HEAD}rsi(14) > 0`);
      const read = await fetchAnchored(store, recursive.plan, { fetch: recursive.fetch, anchorSources: recursive.fetch });
      expect((await runAnchoredAsync(recursive, read)).meta.unconverged).toBe(1);
      const history = await historyAnchoredAsync(recursive, read, { bars: 10 });
      expect(history.result.meta.unconverged).toBe(1);
      // A screen without recursion is exact on its minLookback: nothing unconverged.
      const windowed = compile(`${HEAD}close > sma(close, 20)`);
      const readW = await fetchAnchored(store, windowed.plan, { fetch: windowed.fetch, anchorSources: windowed.fetch });
      expect((await runAnchoredAsync(windowed, readW)).meta.unconverged).toBe(0);
      // The library over injected bars keeps its meta as it was.
      expect(recursive.run(read).meta).not.toHaveProperty("unconverged");
    } finally {
      await store.close();
    }
  });
});
