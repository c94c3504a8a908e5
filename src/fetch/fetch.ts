/**
 * Fetching by plan: for each plan source, the latest max(minLookback, warmup, the compiled
 * query's fetch bars) bars of every
 * symbol of the plan's market, reading only the series the plan names. The evaluator aligns
 * timeframes itself; the store cuts non-base sources at each symbol's latest base close.
 */
import { anchorReach, anchoredBars } from "../eval/anchor.js";
import { trustRead } from "../bars/trust.js";
import { windowTimes } from "../eval/history.js";
import type { Bars, FetchSource, Instrument, Plan, Timeframe } from "../types.js";
import { DEFAULT_LOOKBACK_CEILING, TIMEFRAME_MS } from "../types.js";
import type { BarStore, LatestBarsRequest, SymbolBars } from "../store/store.js";
import type { HotLease, HotTier } from "../store/hot-tier.js";

/** Warmup bars fetched per source by default: the lookback ceiling. */
export const DEFAULT_WARMUP = DEFAULT_LOOKBACK_CEILING;

/** Bars fetched for a source: enough for the plan and for recursive indicators to warm up. */
export function fetchCount(minLookback: number, warmup: number): number {
  return Math.max(minLookback, warmup);
}

/** Options of {@link fetchUniverse}: the warmup and an optional hot tier. */
export interface FetchOptions {
  /** Bars of history per source beyond what the plan strictly needs. Default 300. */
  warmup?: number;
  /**
   * The service's hot tier: bars read from memory, exact at the store's data version; omit to
   * read the store. While nothing changed, a run gets the instruments of the run before it (the
   * same objects): callers read them, never change them.
   */
  cache?: HotTier;
  /**
   * The run's lease on the tier's views (`cache.lease()`), released by the caller once the run is
   * done with the bars; without one, the fetch takes a lease that ends a minute later.
   */
  lease?: HotLease;
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
  /**
   * Only these symbols (a screen over `symbols = [...]` or a watchlist, decisions §13): the
   * store reads their series alone, not the whole market's. Listed symbols the market lacks
   * are left out; the compiled query counts them.
   */
  symbols?: readonly string[];
  /** Bars per source to read at least (before `extraBaseBars`): an anchored read's reach. */
  atLeast?: Partial<Record<Timeframe, number>>;
}

/** Options of {@link fetchAnchored}. */
export interface AnchoredFetchOptions extends FetchOptions {
  /**
   * The fetch of every query the bars are read for (several for a group of alerts; a timeframe
   * may come more than once): the read covers each one's anchors.
   */
  anchorSources: readonly FetchSource[];
  /** Base bars to evaluate, the latest (screen history's window); default 1 (a run). */
  bars?: number;
  /**
   * The earliest base time the caller will evaluate, from the universe read (the alerts' first
   * bar still to evaluate); default the first of the universe's last `bars` distinct base times.
   */
  firstTime?: (universe: Instrument[]) => number | undefined;
}

/**
 * The instruments a plan runs over when every bar is evaluated from its anchors (decisions §9):
 * each source holds every bar from the anchor of the earliest base bar evaluated. The first read
 * takes what a series without gaps needs — (g + 1)·F bars and the window — and when the window
 * spans more time than that (gaps, a sparse universe), one more read takes exactly the bars
 * from that anchor (`anchoredBars`).
 */
export async function fetchAnchored(store: BarStore, plan: Plan, options: AnchoredFetchOptions): Promise<Instrument[]> {
  const base = plan.sources[0]?.timeframe;
  if (base === undefined) return [];
  const market = plan.market;
  const window = options.bars ?? 1;
  const reach: Partial<Record<Timeframe, number>> = {};
  for (const f of options.anchorSources) reach[f.timeframe] = Math.max(reach[f.timeframe] ?? 0, anchorReach(market, base, f.timeframe, f.bars));
  const first = await fetchUniverse(store, plan, { ...options, atLeast: reach, extraBaseBars: window - 1 });
  const from = options.firstTime ? options.firstTime(first) : windowTimes(first, base, window)[0];
  if (from === undefined) return first;
  let last = -Infinity;
  for (const instrument of first) {
    const time = instrument.bars[base]?.time;
    if (time && time.length > 0 && time[time.length - 1]! > last) last = time[time.length - 1]!;
  }
  const read = countsOf(plan, options, reach, window - 1);
  const needed: Partial<Record<Timeframe, number>> = {};
  let more = false;
  for (const f of options.anchorSources) {
    const count = anchoredBars(market, base, f.timeframe, f.bars, from, last);
    needed[f.timeframe] = Math.max(needed[f.timeframe] ?? 0, count);
    if (count > (read.get(f.timeframe) ?? 0)) more = true;
  }
  if (!more) return first;
  return fetchUniverse(store, plan, { ...options, atLeast: needed, extraBaseBars: 0 });
}

/** Bars per source a read with these options asks for. */
function countsOf(plan: Plan, options: FetchOptions, atLeast: Partial<Record<Timeframe, number>>, extra: number): Map<Timeframe, number> {
  const base = plan.sources[0]!.timeframe;
  const warmup = options.warmup ?? DEFAULT_WARMUP;
  return new Map(
    plan.sources.map((source) => [
      source.timeframe,
      Math.max(
        fetchCount(source.minLookback, warmup),
        options.fetch?.find((f) => f.timeframe === source.timeframe)?.bars ?? 0,
        atLeast[source.timeframe] ?? 0,
      ) + (extra > 0 ? Math.ceil((extra * TIMEFRAME_MS[base]) / TIMEFRAME_MS[source.timeframe]) : 0),
    ]),
  );
}

/** How long a fetch without a lease of its own keeps the tier's views safe from writes. */
const IMPLICIT_LEASE_MS = 60_000;

/**
 * The instruments a plan runs over. Each call touches the store (at least its data
 * version), so an unavailable store always rejects, cached or not.
 */
export async function fetchUniverse(store: BarStore, plan: Plan, options: FetchOptions = {}): Promise<Instrument[]> {
  const warmup = options.warmup ?? DEFAULT_WARMUP;
  const cache = options.cache;
  let lease = options.lease;
  if (cache) {
    await cache.sync(await store.dataVersion());
    if (!lease) {
      const own = cache.lease();
      setTimeout(() => own.release(), IMPLICIT_LEASE_MS).unref?.();
      lease = own;
    }
  }
  const base = plan.sources[0];
  if (!base) return [];
  const counts = countsOf(plan, { ...options, warmup }, options.atLeast ?? {}, options.extraBaseBars ?? 0);
  const requests: LatestBarsRequest[] = plan.sources.map((source) => ({
    market: plan.market,
    timeframe: source.timeframe,
    baseTimeframe: base.timeframe,
    series: source.series,
    count: counts.get(source.timeframe)!,
    ...(options.symbols ? { symbols: options.symbols } : {}),
  }));
  const listed = options.symbols ? new Set(options.symbols) : undefined;
  const marketRead = cache ? cache.symbols(plan.market) : store.symbols(plan.market);
  const symbolsRead = listed ? marketRead.then((all) => all.filter((s) => listed.has(s))) : marketRead;
  const reads = await Promise.all(
    // The store checked these bars when they were written and read them back in time order: the
    // evaluator may skip its own pass over their times (src/eval/bars.ts); the tier marks its own.
    requests.map(async (request) => (cache ? cache.latestBars(request, lease) : trustRead(await store.latestBars(request)))),
  );
  // Instruments are every symbol of the market (decisions §2 meta: one without bars on a
  // source the plan needs counts as noData); each source joins by symbol.
  const order = await symbolsRead;
  if (!cache || listed) return joinInOrder(order, requests, reads) ?? joinBySymbol(order, requests, reads);
  const known = joined.get(reads[0]!);
  if (known && known.order === order && known.reads.length === reads.length && known.reads.every((read, s) => read === reads[s] && known.timeframes[s] === requests[s]!.timeframe)) return known.instruments;
  const instruments = joinInOrder(order, requests, reads) ?? joinBySymbol(order, requests, reads);
  joined.set(reads[0]!, { order, reads, timeframes: requests.map((r) => r.timeframe), instruments });
  return instruments;
}

/**
 * The instruments last joined from the tier's answers, by the base source's answer: a warm run
 * whose answers and symbol list are the tier's same ones (nothing changed) gets the same
 * instruments, which no caller changes. Weak: an answer the tier drops takes its entry along.
 */
const joined = new WeakMap<SymbolBars[], { order: readonly string[]; reads: readonly SymbolBars[][]; timeframes: readonly Timeframe[]; instruments: Instrument[] }>();

/**
 * The join when every source lists its symbols in the market's order (as the stores and the tier
 * do): one pass per source beside the symbols, no lookup by symbol. Undefined when a source names
 * a symbol out of that order or not in the list (written between the reads).
 */
function joinInOrder(order: readonly string[], requests: readonly LatestBarsRequest[], reads: readonly SymbolBars[][]): Instrument[] | undefined {
  const held: Partial<Record<Timeframe, Bars>>[] = order.map(() => ({}));
  for (let s = 0; s < reads.length; s++) {
    const timeframe = requests[s]!.timeframe;
    let i = 0;
    for (const { symbol, bars } of reads[s]!) {
      while (i < order.length && order[i] !== symbol) i++;
      if (i === order.length) return undefined;
      held[i]![timeframe] = bars;
    }
  }
  return order.map((symbol, i) => ({ symbol, bars: held[i]! }));
}

/** The join through a map by symbol, for sources in any order and symbols the list lacks. */
function joinBySymbol(symbols: readonly string[], requests: readonly LatestBarsRequest[], reads: readonly SymbolBars[][]): Instrument[] {
  const order = [...symbols];
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
      held[timeframe] = bars;
    }
  }
  return order.map((symbol) => ({ symbol, bars: bySymbol.get(symbol)! }));
}
