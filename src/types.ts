/**
 * Public data types shared by every stage: timeframes, bars, instruments, plans and
 * error bodies. Nothing here imports a stage, so every stage may import it.
 */

/** Every timeframe the language knows, finest first. */
export const TIMEFRAMES = ["m1", "m5", "m15", "m30", "h1", "h4", "d", "w"] as const;

/** A bar timeframe: `m1 m5 m15 m30 h1 h4 d w`. */
export type Timeframe = (typeof TIMEFRAMES)[number];

const MINUTE = 60_000;

/** Bar duration of each timeframe in milliseconds. */
export const TIMEFRAME_MS: Readonly<Record<Timeframe, number>> = {
  m1: MINUTE,
  m5: 5 * MINUTE,
  m15: 15 * MINUTE,
  m30: 30 * MINUTE,
  h1: 60 * MINUTE,
  h4: 240 * MINUTE,
  d: 1440 * MINUTE,
  w: 7 * 1440 * MINUTE,
};

/** True when `name` is one of {@link TIMEFRAMES}. */
export function isTimeframe(name: string): name is Timeframe {
  return (TIMEFRAMES as readonly string[]).includes(name);
}

/** The raw OHLCV series a bar carries. */
export const RAW_SERIES = ["open", "high", "low", "close", "volume"] as const;
export type RawSeries = (typeof RAW_SERIES)[number];

/** Where an error is: 1-based line and column, 0-based UTF-16 offset into the query. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/** The error body of the spec: syntax errors carry a position, plan errors never do. */
export interface ErrorBody {
  type: "syntax" | "plan";
  message: string;
  position?: Position;
}

/** A failed validation, exactly the HTTP 400 body. */
export interface InvalidResult {
  valid: false;
  error: ErrorBody;
}

/** One timeframe whose data a query needs. */
export interface PlanSource {
  timeframe: Timeframe;
  /** Sorted names of the raw series needed (`hl2` needs `high` and `low`). */
  series: RawSeries[];
  /** Bars of this timeframe needed so that every expression is defined at the latest bar. */
  minLookback: number;
}

/** The data-requirements manifest of a query. */
export interface Plan {
  market: string;
  /** Base timeframe first, then by duration. */
  sources: PlanSource[];
}

/** Columns of bars, oldest bar first; `time` is the UTC open time in ms since epoch. */
export interface Bars {
  time: ArrayLike<number>;
  open: ArrayLike<number>;
  high: ArrayLike<number>;
  low: ArrayLike<number>;
  close: ArrayLike<number>;
  volume: ArrayLike<number>;
}

/** One instrument and its bars per timeframe. */
export interface Instrument {
  symbol: string;
  bars: Partial<Record<Timeframe, Bars>>;
}

/** One matching instrument. Column values that are not finite are `null`. */
export interface ResultRow {
  symbol: string;
  columns: Record<string, number | null>;
}

/** The body of a successful run. */
export interface RunResult {
  results: ResultRow[];
}

/** Options shared by `validate`, `explain` and `compile`. */
export interface XqlOptions {
  /** Known markets (matched case-insensitively; the plan reports this spelling). Default `["FOREX", "CRYPTO"]`. */
  markets?: readonly string[];
  /** Largest minLookback a source may need. Default 300. */
  lookbackCeiling?: number;
}

/** The markets a query may name when {@link XqlOptions.markets} is not given. */
export const DEFAULT_MARKETS: readonly string[] = ["FOREX", "CRYPTO"];
/** The largest `minLookback` a source may need when {@link XqlOptions.lookbackCeiling} is not given. */
export const DEFAULT_LOOKBACK_CEILING = 300;
