/**
 * Fetching by plan: for each plan source, the latest max(minLookback, warmup, the compiled
 * query's fetch bars) bars of every
 * symbol of the plan's market, reading only the series the plan names. The evaluator aligns
 * timeframes itself; the store cuts non-base sources at each symbol's latest base close.
 */
import { trustBars } from "../eval/bars.js";
import type { Bars, FetchSource, Instrument, Plan, Timeframe } from "../types.js";
import { DEFAULT_LOOKBACK_CEILING, TIMEFRAME_MS } from "../types.js";
import type { BarStore, LatestBarsRequest, SymbolBars } from "./store.js";

/** Warmup bars fetched per source by default: the lookback ceiling. */
export const DEFAULT_WARMUP = DEFAULT_LOOKBACK_CEILING;

/** Bars fetched for a source: enough for the plan and for recursive indicators to warm up. */
export function fetchCount(minLookback: number, warmup: number): number {
  return Math.max(minLookback, warmup);
}

/** Options of {@link fetchUniverse}: the warmup and an optional cache of reads. */
export interface FetchOptions {
  /** Bars of history per source beyond what the plan strictly needs. Default 300. */
  warmup?: number;
  /** Reuse of earlier reads while the store's data version is unchanged; omit to read every time. */
  cache?: BarCache;
  /**
   * Base bars of history beyond the latest that must be evaluable too (screen history's window
   * less one): every source gets the bars that cover them, ceil(extra · dur(base) / dur(tf)).
   */
  extraBaseBars?: number;
  /**
   * The compiled query's `fetch` (`compile(q).fetch`): bars per source that let its recursive
   * indicators converge. A source reads at least this many bars (and at least `warmup`).
   */
  fetch?: readonly FetchSource[];
}

/**
 * Reads of the store kept while its data version stays the same. A write changes the
 * version and empties the cache, so a cached read is never older than the store.
 * At most `capacity` reads are kept, least recently used dropped first.
 */
export class BarCache {
  private version: number | undefined;
  private readonly entries = new Map<string, SymbolBars[]>();
  private readonly symbolLists = new Map<string, string[]>();

  /** @param capacity - The most reads kept; beyond it the least recently used is dropped. Default 64. */
  constructor(readonly capacity = 64) {}

  /** Forgets everything read before `version`. */
  observe(version: number): void {
    if (version !== this.version) {
      this.entries.clear();
      this.symbolLists.clear();
      this.version = version;
    }
  }

  /** The read cached under `key`, or `undefined`; a hit becomes the most recently used. */
  get(key: string): SymbolBars[] | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  /** Caches a read under `key`, then drops the least recently used reads beyond `capacity`. */
  set(key: string, value: SymbolBars[]): void {
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  /** The symbols of `market` read under the current version, or `undefined`. */
  symbolsOf(market: string): string[] | undefined {
    return this.symbolLists.get(market);
  }

  /** Keeps the symbols of `market` until the version changes (markets are few: the map stays small). */
  setSymbols(market: string, symbols: string[]): void {
    if (this.symbolLists.size >= this.capacity) this.symbolLists.clear();
    this.symbolLists.set(market, symbols);
  }

  /** How many reads are cached. */
  get size(): number {
    return this.entries.size;
  }
}

function cacheKey(request: LatestBarsRequest): string {
  return [request.market, request.timeframe, request.baseTimeframe, request.count, request.series.join(",")].join("|");
}

/**
 * The instruments a plan runs over. Each call touches the store (at least its data
 * version), so an unavailable store always rejects, cached or not.
 */
export async function fetchUniverse(store: BarStore, plan: Plan, options: FetchOptions = {}): Promise<Instrument[]> {
  const warmup = options.warmup ?? DEFAULT_WARMUP;
  const cache = options.cache;
  if (cache) cache.observe(await store.dataVersion());
  const base = plan.sources[0];
  if (!base) return [];
  const extra = options.extraBaseBars ?? 0;
  const requests: LatestBarsRequest[] = plan.sources.map((source) => ({
    market: plan.market,
    timeframe: source.timeframe,
    baseTimeframe: base.timeframe,
    series: source.series,
    count:
      Math.max(fetchCount(source.minLookback, warmup), options.fetch?.find((f) => f.timeframe === source.timeframe)?.bars ?? 0) +
      (extra > 0 ? Math.ceil((extra * TIMEFRAME_MS[base.timeframe]) / TIMEFRAME_MS[source.timeframe]) : 0),
  }));
  const symbolsRead = (async (): Promise<string[]> => {
    const hit = cache?.symbolsOf(plan.market);
    if (hit) return hit;
    const symbols = await store.symbols(plan.market);
    cache?.setSymbols(plan.market, symbols);
    return symbols;
  })();
  const reads = await Promise.all(
    requests.map(async (request) => {
      const key = cacheKey(request);
      const hit = cache?.get(key);
      if (hit) return hit;
      const bars = await store.latestBars(request);
      cache?.set(key, bars);
      return bars;
    }),
  );
  // Instruments are every symbol of the market (decisions §2 meta: one without bars on a
  // source the plan needs counts as noData); each source joins by symbol.
  const order = [...(await symbolsRead)];
  const bySymbol = new Map<string, Partial<Record<Timeframe, Bars>>>();
  for (const symbol of order) bySymbol.set(symbol, {});
  for (let s = 0; s < reads.length; s++) {
    const timeframe = requests[s]!.timeframe;
    for (const { symbol, bars } of reads[s]!) {
      let held = bySymbol.get(symbol);
      if (!held) {
        // Written between the two reads: it is in the market all the same.
        bySymbol.set(symbol, (held = {}));
        order.push(symbol);
      }
      // The store checked these bars when they were written and read them back in time
      // order: the evaluator may skip its own pass over their times (src/eval/bars.ts).
      held[timeframe] = trustBars(bars);
    }
  }
  return order.map((symbol) => ({ symbol, bars: bySymbol.get(symbol)! }));
}
