/**
 * `deriveTimeframes` (decisions §4): the store's derivation for bars a library user injects.
 * Every timeframe coarser than the instrument's finest one and missing from it is built from the
 * finest one, by the same aggregation the store runs on every write ({@link aggregateBars}), with
 * FOREX on its New York session. So `d::` and `w::` work over h1 bars a user brings, and give
 * what the service gives for the same h1 bars.
 */
import { XqlDataError } from "../errors.js";
import type { Bars, Instrument, Timeframe } from "../types.js";
import { TIMEFRAMES, isTimeframe } from "../types.js";
import { aggregateBars } from "./aggregate.js";

/** Options of {@link deriveTimeframes}. */
export interface DeriveOptions {
  /** The market the bars trade on: FOREX follows its New York session, any other market UTC. */
  market: string;
  /** The timeframes wanted; default every timeframe coarser than the instrument's finest one. */
  to?: readonly Timeframe[];
}

/**
 * A copy of `instrument` with every timeframe of `to` it lacks (and that is coarser than its
 * finest one) derived from its finest timeframe: open of the first bar of each period, high max,
 * low min, close of the last, volume summed; a period without finer bars has no bar. Timeframes
 * the instrument has are kept as given, as the store serves an imported timeframe as imported.
 *
 * @throws XqlDataError when the finest timeframe's times are not finite and strictly increasing,
 * or its columns differ in length.
 * @example
 * ```ts
 * const withDays = deriveTimeframes({ symbol: "EURUSD", bars: { h1 } }, { market: "FOREX", to: ["d", "w"] });
 * compile(query).run([withDays]);
 * ```
 */
export function deriveTimeframes(instrument: Instrument, options: DeriveOptions): Instrument {
  if (typeof options?.market !== "string") throw new TypeError("deriveTimeframes: options.market must be a string");
  const wanted = options.to ?? TIMEFRAMES;
  for (const tf of wanted) {
    if (typeof tf !== "string" || !isTimeframe(tf)) throw new TypeError(`deriveTimeframes: unknown timeframe '${String(tf)}'`);
  }
  const finest = TIMEFRAMES.find((tf) => instrument.bars[tf] !== undefined);
  const bars: Partial<Record<Timeframe, Bars>> = { ...instrument.bars };
  if (finest === undefined) return { symbol: instrument.symbol, bars };
  const fine = instrument.bars[finest]!;
  let checked = false;
  for (const tf of TIMEFRAMES.slice(TIMEFRAMES.indexOf(finest) + 1)) {
    if (!wanted.includes(tf) || bars[tf] !== undefined) continue;
    if (!checked) {
      checkBars(instrument.symbol, finest, fine);
      checked = true;
    }
    bars[tf] = aggregateBars(fine, tf, options.market);
  }
  return { symbol: instrument.symbol, bars };
}

function checkBars(symbol: string, tf: Timeframe, bars: Bars): void {
  const n = bars.time.length;
  for (const column of [bars.open, bars.high, bars.low, bars.close, bars.volume]) {
    if (column.length !== n) throw new XqlDataError("bars-columns", { symbol, timeframe: tf, problem: "every column must have as many values as time" });
  }
  for (let i = 0; i < n; i++) {
    const t = bars.time[i]!;
    if (!Number.isFinite(t) || (i > 0 && !(t > bars.time[i - 1]!))) {
      throw new XqlDataError("bars-times", { symbol, timeframe: tf, problem: `bar times must be finite and strictly increasing (bar ${i})` });
    }
  }
}
