/**
 * Carried passes (decisions §9, "Carried state"; src/eval/carry.ts): alerts and `watch` take
 * each newly closed bar in a step from the pass the previous bar left. The defining property:
 * for random screens (recursive, cumulative, windowed, run in primed blocks, candle patterns,
 * nested timeframes, offsets, crossings, short-circuits) over random stored series (gaps, flat
 * stretches, bars written one at a time and in batches, older bars replaced), the rows and
 * events of every bar are identical (`toEqual`, Object.is on numbers) to those of a pass from
 * each bar's anchor — the path the anchor suite proves equal to run and history — and the
 * carried path was taken (restored passes counted).
 */
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { compile } from "../../src/api.js";
import { type EvaluatedBar, type Screen, evaluateGroup } from "../../src/alerts/evaluate.js";
import { CarryStore } from "../../src/eval/carry.js";
import { SqliteStore } from "../../src/open/sqlite.js";
import { syntheticUniverse } from "../../src/synthetic/synthetic.js";
import { HOUR, MONDAY, prng, tempDir } from "../kit/index.js";
import { CROSSINGS, FAMILIES as ANCHOR_FAMILIES, cutBars, gappedSeries } from "./stored-series.js";

// The anchor suite's families and conditions, and what a carried pass must also take in steps:
// nested windows, primed blocks, composite states, candle patterns, extremes.
// Stepped in one kernel call for every symbol (round.ts `stackCall`): a derived series, a raw column, a constant as inputs.
const FAMILIES = [
  ...ANCHOR_FAMILIES,
  "sma(ema(close, 5), 12)",
  "bb_upper(20, 2)",
  "stochrsi_k(14, 14, 3, 3)",
  "supertrend(10, 3)",
  "sar(0.02, 0.2)",
  "change(hl2, 2)",
  "roc(close, 3) + max(open, 100)",
];
// The crossings read a raw column, a carried indicator, a constant and a derived series (`hl2`): an alert round steps them for every symbol in one kernel call (round.ts `stackCall`).
const CONDITIONS = [
  ...CROSSINGS,
  "close > open and rsi(7) < 60",
  "bullish_engulfing or doji",
  "hammer or close < lowest(low, 10)[1]",
  "crossover(rsi(7), 50) or crossunder(hl2, sma(close, 5)) or abs(change(close, 2)) > 1",
  // Read only through offsets: stepped at the bars before the new one.
  "close > highest(high, 10)[1]",
  "crossover(close, ema(close, 4))[1] or (close - sma(close, 6))[2] > 0 and rsi(7)[1] < rsi(7)",
  "sma(close, 7)[1] > sma(close, 7)[2] and volume[1] > volume[2] or crossover(close, ema(close, 20))[1]",
  "sma(rsi(7), 3)[1] < rsi(7)",
];

/** Rows and events compared, bars evaluated, and passes taken on in steps. */
let compared = 0;
let bars = 0;
let restored = 0;
/** Bars taken across symbols (round.ts): a round of one new bar, the pass continuing. */
let across = 0;

describe("carried passes give every bar the numbers of a pass from its anchor, bit for bit", () => {
  afterAll(() => {
    // Not vacuous: many bars compared, most of them taken in a step from a carried pass.
    expect(compared).toBeGreaterThan(2000);
    expect(restored).toBeGreaterThan(bars);
    // And many of those across symbols, as an alert round of one new bar takes them.
    expect(across).toBeGreaterThan(restored / 6);
  });

  it("for random screens and series written a bar at a time, in batches, and with older bars replaced", async () => {
    const { dir, cleanup } = tempDir();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.uniqueArray(fc.constantFrom(...FAMILIES), { minLength: 1, maxLength: 3 }),
          fc.constantFrom(...CONDITIONS),
          fc.constantFrom(20, 40),
          fc.integer({ min: 1, max: 10_000 }),
          fc.constantFrom("CRYPTO", "FOREX"),
          fc.constantFrom(false, true),
          async (columns, condition, warmupCeiling, seed, market, ranked) => {
            n++;
            // Ranked: the rows a limit keeps are decided over the symbols stepped across and those evaluated by symbol together.
            const order = ranked ? `sort = ${columns[0]} desc\nlimit = 2\n` : "";
            const query = `market = "${market}"\ntimeframe = h1\ncolumns = [${columns.join(", ")}]\n${order}${condition}`;
            const compiled = compile(query, { warmupCeiling });
            const rand = prng(seed);
            const symbols = ["AAA", "BBB", "CCC", "DDD"].map((symbol, i) => ({ symbol, bars: gappedSeries(seed * 4 + i, MONDAY + Math.floor(rand() * 30) * HOUR, 420, { drop: 0.04, longGap: false }) }));
            const all = [...new Set(symbols.flatMap((s) => Array.from(s.bars.time)))].sort((a, b) => a - b);
            const store = new SqliteStore(join(dir, `carry-${n}.db`));
            try {
              // The first 250 hours at once, then the rest in steps of 1 to 4 bars.
              let written = all[0]! + 250 * HOUR;
              await store.upsertBars([{ market, timeframe: "h1", symbols: symbols.map((s) => ({ symbol: s.symbol, bars: cutBars(s.bars, -Infinity, written) })) }]);
              const carry = new CarryStore();
              const screen = (id: string): Screen => ({ id, query, compiled, lastTime: null, matching: [] });
              const carried = screen("carried");
              const fresh = screen("fresh");
              const follow = (s: Screen, bars: EvaluatedBar[]): void => {
                for (const bar of bars) {
                  s.lastTime = bar.time;
                  s.matching = bar.matching;
                }
              };
              const options = { warmup: 20, graceMs: 0, maxCatchUp: 10 };
              for (let step = 0; written <= all[all.length - 1]!; step++) {
                // Mostly one bar at a time, as rounds on bar close see them; else a batch of 2 to 4.
                const next = written + (rand() < 0.6 ? 1 : 2 + Math.floor(rand() * 3)) * HOUR;
                await store.upsertBars([{ market, timeframe: "h1", symbols: symbols.map((s) => ({ symbol: s.symbol, bars: cutBars(s.bars, written, next) })).filter((s) => s.bars.time.length > 0) }]);
                written = next;
                if (step % 9 === 4) {
                  // An older bar of one symbol replaced: its carried pass must not survive it.
                  const s = symbols[step % symbols.length]!;
                  const at = Math.max(0, s.bars.time.findIndex((t) => t >= written) - 1 - Math.floor(rand() * 30));
                  const bars = cutBars(s.bars, s.bars.time[at]!, s.bars.time[at]! + 1);
                  bars.close[0] = bars.close[0]! * 1.01;
                  bars.high[0] = Math.max(bars.high[0]!, bars.close[0]!);
                  await store.upsertBars([{ market, timeframe: "h1", symbols: [{ symbol: s.symbol, bars }] }]);
                }
                const now = written + HOUR;
                const a = await evaluateGroup(store, [carried], now, { ...options, carry });
                const b = await evaluateGroup(store, [fresh], now, options);
                const got = a.bars.get("carried")!;
                const want = b.bars.get("fresh")!;
                expect(got, `${query}\nstep ${step}`).toEqual(want);
                follow(carried, got);
                follow(fresh, want);
                compared += want.reduce((rows, bar) => rows + bar.matching.length + bar.events.length, 0);
                bars += want.length;
              }
              restored += carry.counts().restored;
              across += carry.counts().across;
            } finally {
              await store.close();
            }
          },
        ),
        {
          numRuns: 16,
          seed: 20261206,
          examples: [
            [["h4::ema(close, 5)", "sma(ema(close, 5), 12)"], "rsi(14) > 50 or close > sma(close, 20)", 20, 7, "CRYPTO", false],
            [["h4::rsi(6)", "obv", "d::close - d::close[1]"], "bullish_engulfing or doji", 40, 11, "FOREX", true],
          ],
        },
      );
    } finally {
      cleanup();
    }
  }, 600_000);
});

describe("an alert round over thousands of symbols", () => {
  // The round's arrays (picks, vectors, stacked windows, recent values) sized and read across 2,500 symbols.
  it("gives every symbol of every screen the numbers of a pass from its anchor, bit for bit, every one stepped across and shared calls stepped once", async () => {
    const { dir, cleanup } = tempDir();
    const store = new SqliteStore(join(dir, "chunks.db"));
    try {
      const universe = syntheticUniverse({ market: "CRYPTO", symbols: 2_500, timeframes: ["h1"], bars: 80, seed: 28 });
      const batch = (from: number, to: number) => ({
        market: "CRYPTO",
        timeframe: "h1" as const,
        symbols: universe.map((i) => {
          const b = i.bars.h1!;
          const cut = (c: ArrayLike<number>): Float64Array => Float64Array.from(Array.from(c).slice(from, to));
          return { symbol: i.symbol, bars: { time: cut(b.time), open: cut(b.open), high: cut(b.high), low: cut(b.low), close: cut(b.close), volume: cut(b.volume) } };
        }),
      });
      await store.upsertBars([batch(0, 72)]);
      // Per-bar operators, offsets of carried slots and of the bars, calls with states, stacked calls, short-circuits;
      // and slots read only through an offset, computed the bars before the new one (a breakout's `highest(high, 10)[1]`).
      const condition = [
        "crossover(close, sma(close, 5)) or rsi(5) < 40 and not (close > highest(high, 10)[1])",
        "crossover(close, ema(close, 4))[1] or (close - sma(close, 6))[2] > 0 and rsi(5)[1] < rsi(5)",
        // Two offsets of one slot (the nearer is its bar, the other its tail), a raw column only under offsets.
        "sma(close, 7)[1] > sma(close, 7)[2] and volume[1] > volume[2]",
        // A call a bar before the new one over a slot computed at it (rsi(5), a column).
        "sma(rsi(5), 3)[1] > 60",
      ].join(" or ");
      // ema(close, 4) read at the new bar too: the crossing a bar before reads it from its tail.
      const head = 'market = "CRYPTO"\ntimeframe = h1\n';
      // Three screens of one round; the other two read the first's rsi(5), sma(close, 5) and
      // highest(high, 10): a round steps each once per symbol and the others take its steps.
      const queries = [
        `${head}columns = [sma(close, 5), rsi(5), close[1], change(hl2, 2), ema(close, 4)]\n${condition}`,
        `${head}columns = [rsi(5), sma(close, 5)]\nrsi(5) < 35 or close > highest(high, 10)[1]`,
        `${head}columns = [close]\nsma(close, 5) > close and rsi(5) > 50`,
      ];
      const carry = new CarryStore();
      const screens = (prefix: string): Screen[] => queries.map((query, k) => ({ id: `${prefix}${k}`, query, compiled: compile(query, { warmupCeiling: 40 }), lastTime: null, matching: [] }));
      const carried = screens("carried");
      const fresh = screens("fresh");
      const options = { warmup: 20, graceMs: 0 };
      let rows = 0;
      for (let bar = 72; bar < 80; bar++) {
        if (bar > 72) await store.upsertBars([batch(bar - 1, bar)]);
        const now = universe[0]!.bars.h1!.time[bar - 1]! + HOUR;
        const got = (await evaluateGroup(store, carried, now, { ...options, carry })).bars;
        const want = (await evaluateGroup(store, fresh, now, options)).bars;
        queries.forEach((query, k) => {
          const a = got.get(`carried${k}`)!;
          const b = want.get(`fresh${k}`)!;
          expect(a, `${query}\nbar ${bar}`).toEqual(b);
          for (const [screen, bars] of [[carried[k]!, a], [fresh[k]!, b]] as const) {
            for (const evaluated of bars) {
              screen.lastTime = evaluated.time;
              screen.matching = evaluated.matching;
            }
          }
          rows += b.reduce((n, e) => n + e.matching.length + e.events.length, 0);
        });
      }
      // Seven rounds of one new bar each, every symbol of every screen stepped across (not by symbol).
      expect(carry.counts().across).toBe(7 * 2_500 * queries.length);
      // The second and third screens took the first's steps of rsi(5) and sma(close, 5), and the second its
      // highest(high, 10) a bar before the new one (the same call at the same lag): 5 steps a symbol. In the first
      // round stepped across the round does not know yet which calls are shared: the second screen to have one
      // keeps its steps, so only the third takes them (rsi, sma: 2 a symbol).
      expect(carry.counts().shared).toBe(2_500 * (2 + 6 * 5));
      expect(rows).toBeGreaterThan(1_000);
    } finally {
      await store.close();
      cleanup();
    }
  }, 120_000);
});
