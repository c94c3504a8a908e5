/** What the sync tests share: a stand-in exchange, clocks, and what the store holds of a pair. */
import type { SyncClock } from "../../src/ingest/sync.js";
import type { BarStore } from "../../src/store/store.js";
import { ExchangeStandIn, finalBar, type StandInPair } from "./exchange-stand-in.js";
import { type OneBar, RAW_SERIES } from "../../src/types.js";

export const MINUTE = 60_000;

/**
 * The sync's clock in tests: the test sets it, and a sleep of the sync moves it on by the
 * sleep and returns at once. A `--follow` that sleeps until the next close plus the settling
 * delay finds that bar closed when it wakes (the stand-ins serve by this clock too): its rounds
 * come as fast as the machine runs them, in the same order on an idle machine and a loaded one.
 * Sleeps taken at once (retries of pages fetched together) add up rather than overlap: time
 * then runs ahead, never behind, of what a sync under test may expect.
 */
export class ManualClock implements SyncClock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  async sleep(ms: number): Promise<void> {
    this.t += Math.max(0, ms);
  }
}

/** Starts a stand-in with `pairs` on `now`; the caller stops it. */
export async function standIn(pairs: readonly StandInPair[], now?: () => number): Promise<ExchangeStandIn> {
  const exchange = new ExchangeStandIn(pairs, now);
  await exchange.start();
  return exchange;
}

export type StoredBar = OneBar;

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
