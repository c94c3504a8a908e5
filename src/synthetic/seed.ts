/**
 * The embedded store's starting data: the deterministic synthetic FOREX and CRYPTO
 * universe at every timeframe, ending at the current time, so a new user can run queries
 * (and the service can answer them) before importing any real bars.
 */
import type { Timeframe } from "../types.js";
import { TIMEFRAMES } from "../types.js";
import type { BarBatch, BarStore, ProgressListener } from "../store/store.js";
import { syntheticUniverse } from "./synthetic.js";
import { CRYPTO_SYMBOLS, FOREX_SYMBOLS } from "./symbols.js";

/**
 * Bars per symbol and timeframe in the seed: the default warmup (300) with room to spare,
 * so warmup, the largest lookback and an in-progress coarse bar all fit.
 */
export const SEED_BARS = 600;

/** The synthetic markets and how many symbols each has. */
export const SEED_MARKETS: readonly { market: string; symbols: number }[] = [
  { market: "FOREX", symbols: FOREX_SYMBOLS.length },
  { market: "CRYPTO", symbols: CRYPTO_SYMBOLS.length },
];

export interface SeedOptions {
  /** Bars per symbol and timeframe. Default {@link SEED_BARS}. */
  bars?: number;
  /** ms since the epoch where the data ends (the last bar of each timeframe holds it). Default: now. */
  end?: number;
  timeframes?: readonly Timeframe[];
  onProgress?: ProgressListener;
}

/** The seed's bar batches, built in memory; every symbol replaces what it held before. */
export function seedBatches(options: SeedOptions = {}): BarBatch[] {
  const bars = options.bars ?? SEED_BARS;
  const timeframes = [...(options.timeframes ?? TIMEFRAMES)];
  const end = options.end ?? Date.now();
  const batches: BarBatch[] = [];
  for (const { market, symbols } of SEED_MARKETS) {
    const universe = syntheticUniverse({ market, symbols, timeframes, bars, end });
    for (const timeframe of timeframes) {
      batches.push({
        market,
        timeframe,
        replace: true,
        symbols: universe.flatMap((instrument) => {
          const series = instrument.bars[timeframe];
          return series ? [{ symbol: instrument.symbol, bars: series }] : [];
        }),
      });
    }
  }
  return batches;
}

/** Writes the synthetic universe in one transaction; resolves to the number of bars written. */
export async function seedStore(store: BarStore, options: SeedOptions = {}): Promise<number> {
  return (await store.upsertBars(seedBatches(options), options.onProgress)).written;
}

/** Seeds the store when it holds no bars at all; resolves to the bars written (0 when it had some). */
export async function seedIfEmpty(store: BarStore, options: SeedOptions = {}): Promise<number> {
  if ((await store.barCount()) > 0) return 0;
  return seedStore(store, options);
}
