/** What the sync tests share: a stand-in exchange, clocks, and what the store holds of a pair. */
import type { SyncClock } from "../../src/ingest/sync.js";
import type { BarStore } from "../../src/store/store.js";
import { ExchangeStandIn, finalBar, type StandInPair } from "./exchange-stand-in.js";
import { RAW_SERIES } from "../../src/types.js";

export const MINUTE = 60_000;

/** A clock the test sets by hand; sleeping moves it (for syncs that do not follow). */
export class ManualClock implements SyncClock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    this.t += Math.max(0, ms);
  }
}

/** Wall time sped up `speed` times from `start`: a minute of the clock passes in 60/speed seconds. */
export class FastClock implements SyncClock {
  private readonly origin = performance.now();
  constructor(
    readonly start: number,
    readonly speed: number,
  ) {}
  now(): number {
    return Math.floor(this.start + (performance.now() - this.origin) * this.speed);
  }
  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const timer = setTimeout(done, Math.max(0, ms) / this.speed);
      signal.addEventListener("abort", done, { once: true });
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
    });
  }
}

/** Starts a stand-in with `pairs` on `now`; the caller stops it. */
export async function standIn(pairs: readonly StandInPair[], now?: () => number): Promise<ExchangeStandIn> {
  const exchange = new ExchangeStandIn(pairs, now);
  await exchange.start();
  return exchange;
}

export interface StoredBar {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

/** Every bar the store holds of `symbol` at `timeframe` (CRYPTO unless `market` says), oldest first. */
export async function storedBars(store: BarStore, symbol: string, timeframe: "m1" | "m5" | "m15" | "h1" | "h4" | "d" = "m1", market = "CRYPTO"): Promise<StoredBar[]> {
  const got = await store.latestBars({ market, timeframe, baseTimeframe: timeframe, series: RAW_SERIES, count: 1_000_000 });
  const bars = got.find((s) => s.symbol === symbol)?.bars;
  if (!bars) return [];
  return Array.from(bars.time, (time, i) => ({ time, open: bars.open[i]!, high: bars.high[i]!, low: bars.low[i]!, close: bars.close[i]!, volume: bars.volume[i]! }));
}

/** The bars the exchange serves as final for `symbol` at these open times, as numbers. */
export function servedBars(symbol: string, times: readonly number[]): StoredBar[] {
  return times.map((time) => {
    const bar = finalBar(symbol, time);
    return { time, open: Number(bar.open), high: Number(bar.high), low: Number(bar.low), close: Number(bar.close), volume: Number(bar.volume) };
  });
}

/** Open times of every closed bar any klines answer served for `symbol`. */
export function servedTimes(exchange: ExchangeStandIn, symbol: string, from = 0): number[] {
  return exchange.klines.slice(from).filter((k) => k.symbol === symbol).flatMap((k) => k.closed);
}
