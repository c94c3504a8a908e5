/**
 * The storage engine against a model (part of the store contract, both backends): random
 * sequences of writes — appends of one bar or thousands, overlaps in the past, backfills,
 * replaces, finer imports, deletes from a time — and after each one every series the store
 * serves must equal the model: a map of imported bars per timeframe, and derived timeframes
 * aggregated wholly from the finest imported one. Appends cross block boundaries (256 bars) and
 * derived period boundaries, tails seal at their limits, and many series are written at once.
 */
import { expect, it } from "vitest";
import { aggregateBars } from "../../src/sessions/aggregate.js";
import type { Store } from "../../src/open/open.js";
import type { Bars, Timeframe } from "../../src/types.js";
import { RAW_SERIES, TIMEFRAMES, TIMEFRAME_MS } from "../../src/types.js";
import { prng } from "../kit/index.js";

interface Bar { open: number; high: number; low: number; close: number; volume: number }

/** The model: per market and symbol, the imported bars per timeframe. */
type Model = Map<string, Map<Timeframe, Map<number, Bar>>>;

function sorted(bars: Map<number, Bar>): Bars {
  const times = [...bars.keys()].sort((a, b) => a - b);
  return {
    time: Float64Array.from(times),
    open: Float64Array.from(times, (t) => bars.get(t)!.open),
    high: Float64Array.from(times, (t) => bars.get(t)!.high),
    low: Float64Array.from(times, (t) => bars.get(t)!.low),
    close: Float64Array.from(times, (t) => bars.get(t)!.close),
    volume: Float64Array.from(times, (t) => bars.get(t)!.volume),
  };
}

/** What the store should serve for one symbol: imported timeframes as held, coarser ones aggregated from the finest. */
function expected(market: string, held: Map<Timeframe, Map<number, Bar>>): Map<Timeframe, { bars: Bars; derived: boolean }> {
  const out = new Map<Timeframe, { bars: Bars; derived: boolean }>();
  const imported = TIMEFRAMES.filter((tf) => (held.get(tf)?.size ?? 0) > 0);
  for (const tf of imported) out.set(tf, { bars: sorted(held.get(tf)!), derived: false });
  const finest = imported[0];
  if (finest === undefined) return out;
  for (const tf of TIMEFRAMES.slice(TIMEFRAMES.indexOf(finest) + 1)) {
    if (!out.has(tf)) out.set(tf, { bars: aggregateBars(out.get(finest)!.bars, tf, market), derived: true });
  }
  return out;
}

const plain = (b: Bars) => ({
  time: Array.from(b.time),
  open: Array.from(b.open),
  high: Array.from(b.high),
  low: Array.from(b.low),
  close: Array.from(b.close),
  volume: Array.from(b.volume),
});

async function compare(store: Store, model: Model, step: string): Promise<void> {
  const status = await store.series();
  const seen = new Set<string>();
  for (const [key, held] of model) {
    const [market, symbol] = key.split("\u0000") as [string, string];
    for (const [tf, { bars, derived }] of expected(market, held)) {
      seen.add(`${market}/${tf}/${symbol}`);
      const read = await store.latestBars({ market, timeframe: tf, baseTimeframe: tf, series: RAW_SERIES, count: 1_000_000 });
      const got = read.find((r) => r.symbol === symbol);
      expect(got ? plain(got.bars) : undefined, `${step}: ${market} ${tf} ${symbol}`).toEqual(plain(bars));
      const info = status.find((s) => s.market === market && s.timeframe === tf && s.symbol === symbol);
      expect(info, `${step}: catalog of ${market} ${tf} ${symbol}`).toEqual({
        market,
        timeframe: tf,
        symbol,
        bars: bars.time.length,
        firstTime: bars.time[0],
        lastTime: bars.time[bars.time.length - 1],
        derived,
      });
    }
  }
  expect(status.map((s) => `${s.market}/${s.timeframe}/${s.symbol}`).filter((k) => !seen.has(k)), `${step}: series the model lacks`).toEqual([]);
  let imported = 0;
  for (const held of model.values()) for (const bars of held.values()) imported += bars.size;
  expect(await store.barCount(), `${step}: barCount`).toBe(imported);
}

export function engineModel(open: () => Promise<Store>): void {
  for (const seed of (process.env.MODEL_SEEDS ?? "1,2,3").split(",").map(Number)) {
    it(`matches a model over random writes, appends, overlaps, replaces and deletes (seed ${seed})`, async () => {
      const store = await open();
      const random = prng(seed);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      const model: Model = new Map();
      const START = Date.UTC(2025, 10, 3);
      const symbols = ["AAA", "BBB", "CCC", "DDD"];
      const markets = ["CRYPTO", "FOREX"];
      const lastOf = new Map<string, number>();
      let price = 100;
      const bar = (): Bar => {
        price = Math.max(1, price + (random() - 0.5) * 2);
        const o = Math.round(price * 100) / 100;
        const c = Math.round((price + (random() - 0.5)) * 100) / 100;
        return { open: o, high: Math.max(o, c) + 0.5, low: Math.min(o, c) - 0.5, close: c, volume: Math.floor(random() * 1000) };
      };
      try {
        for (let step = 0; step < 40; step++) {
          const market = pick(markets);
          const kind = random();
          const chosen = symbols.filter(() => random() < 0.6);
          if (chosen.length === 0) chosen.push(pick(symbols));
          const batches: { symbol: string; bars: Bars }[] = [];
          const replace = kind >= 0.9;
          const timeframe: Timeframe = !replace && random() < 0.15 ? "m30" : "h1";
          let label: string;
          if (kind < 0.1 && step > 3) {
            // Delete from a time (or everything) of one symbol.
            const symbol = pick(symbols);
            const held = model.get(`${market}\u0000${symbol}`);
            const times = [...(held?.get("h1")?.keys() ?? [])].sort((a, b) => a - b);
            const from = times.length > 0 && random() < 0.7 ? times[Math.floor(random() * times.length)]! : undefined;
            await store.deleteBars({ symbol, market, timeframe: "h1", from });
            for (const t of [...(held?.get("h1")?.keys() ?? [])]) if (from === undefined || t >= from) held!.get("h1")!.delete(t);
            await compare(store, model, `step ${step} delete ${market} ${symbol} from ${from}`);
            continue;
          }
          for (const symbol of chosen) {
            const key = `${market}\u0000${symbol}`;
            let held = model.get(key);
            if (!held) model.set(key, (held = new Map()));
            const series = held.get(timeframe) ?? new Map<number, Bar>();
            held.set(timeframe, series);
            const step = TIMEFRAME_MS[timeframe];
            const last = lastOf.get(`${key}/${timeframe}`) ?? START - step;
            let times: number[];
            if (kind < 0.45) {
              times = [last + step * (1 + Math.floor(random() * 2))]; // one closed bar (sometimes after a gap)
              label = "append one";
            } else if (kind < 0.6) {
              const n = 200 + Math.floor(random() * 900);
              times = Array.from({ length: n }, (_, i) => last + step * (i + 1));
              label = "append many";
            } else if (kind < 0.8) {
              const from = START + step * Math.floor(random() * 1500);
              times = Array.from({ length: 1 + Math.floor(random() * 400) }, (_, i) => from + i * step).filter(() => random() < 0.9);
              label = "overlap";
            } else if (kind < 0.9) {
              times = [last]; // the latest bar again, changed (a bar in progress updated)
              label = "rewrite latest";
            } else {
              times = Array.from({ length: 50 + Math.floor(random() * 600) }, (_, i) => START + 500 * step + i * step);
              label = "replace";
            }
            if (replace) held.get(timeframe)!.clear();
            const target = held.get(timeframe)!;
            const bars = times.map(() => bar());
            times.forEach((t, i) => target.set(t, bars[i]!));
            if (target.size > 0) lastOf.set(`${key}/${timeframe}`, Math.max(...target.keys()));
            else lastOf.delete(`${key}/${timeframe}`);
            batches.push({
              symbol,
              bars: {
                time: Float64Array.from(times),
                open: Float64Array.from(bars, (b) => b.open),
                high: Float64Array.from(bars, (b) => b.high),
                low: Float64Array.from(bars, (b) => b.low),
                close: Float64Array.from(bars, (b) => b.close),
                volume: Float64Array.from(bars, (b) => b.volume),
              },
            });
          }
          if (process.env.MODEL_DEBUG) console.log(`step ${step} ${label!} ${market} ${timeframe} ${batches.map((b) => `${b.symbol}:${b.bars.time.length}@${b.bars.time[0]}`).join(",")}`);
          const result = await store.upsertBars([{ market, timeframe, replace, symbols: batches }]);
          expect(result.symbols).toBe(batches.length);
          await compare(store, model, `step ${step} ${label!} ${market} ${timeframe} ${chosen.join(",")}`);
        }
      } finally {
        await store.close();
      }
    }, 120_000);
  }

  it("appends one closed bar to each of 300 series at once, across block and period boundaries, as rebuilding them would", async () => {
    const store = await open();
    try {
      const n = 300;
      const symbols = Array.from({ length: n }, (_, i) => `S${String(i).padStart(3, "0")}`);
      const H = TIMEFRAME_MS.h1;
      // 250 bars each, so appends cross the 256-bar block of h1 and several h4, d and w periods.
      const start = Date.UTC(2026, 0, 1);
      // Bar k of symbol i, for `count` bars from bar `first`.
      const history = (i: number, count: number, from: number, first = 0): Bars => ({
        time: Float64Array.from({ length: count }, (_, k) => from + k * H),
        open: Float64Array.from({ length: count }, (_, k) => 100 + i + first + k),
        high: Float64Array.from({ length: count }, (_, k) => 102 + i + first + k),
        low: Float64Array.from({ length: count }, (_, k) => 99 + i + first + k),
        close: Float64Array.from({ length: count }, (_, k) => 101 + i + first + k),
        volume: Float64Array.from({ length: count }, (_, k) => 10 + first + k),
      });
      await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: symbols.map((symbol, i) => ({ symbol, bars: history(i, 250, start) })) }]);
      for (let k = 250; k < 290; k++) {
        const next = symbols.map((symbol, i) => ({ symbol, bars: history(i, 1, start + k * H, k) }));
        const result = await store.upsertBars([{ market: "CRYPTO", timeframe: "h1", symbols: next }]);
        expect(result).toMatchObject({ written: n, replaced: 0, symbols: n });
      }
      for (const tf of ["h1", "h4", "d", "w"] as const) {
        const read = await store.latestBars({ market: "CRYPTO", timeframe: tf, baseTimeframe: tf, series: RAW_SERIES, count: 10_000 });
        expect(read).toHaveLength(n);
        for (const i of [0, 137, n - 1]) {
          const whole = history(i, 290, start);
          const want = tf === "h1" ? whole : aggregateBars(whole, tf, "CRYPTO");
          expect(plain(read[i]!.bars), `${tf} ${symbols[i]}`).toEqual(plain(want));
        }
      }
    } finally {
      await store.close();
    }
  }, 120_000);
}
