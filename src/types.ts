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
/** The name of a raw series a bar carries: `open`, `high`, `low`, `close` or `volume`. */
export type RawSeries = (typeof RAW_SERIES)[number];
/** The six columns of a bar, its open time then its raw series: the order of blocks, tails, packed bars, files and bodies. */
export const BAR_COLUMNS = ["time", ...RAW_SERIES] as const;
/** One of {@link BAR_COLUMNS}. */
export type BarColumn = (typeof BAR_COLUMNS)[number];
/** One bar as numbers: its open time (ms) and each of {@link RAW_SERIES}. */
export type OneBar = Record<BarColumn, number>;

/** Where an error is: 1-based line and column, 0-based UTF-16 offset into the query. */
export interface Position {
  /** 1-based line; `\r\n`, `\n` and `\r` each end a line. */
  line: number;
  /** 1-based column within the line, counted in UTF-16 code units. */
  column: number;
  /** 0-based UTF-16 offset from the start of the query text. */
  offset: number;
}

/** The error body (docs/errors.md): syntax errors carry a position, plan errors never do. */
export interface ErrorBody {
  /** `syntax` (the text is wrong at `position`) or `plan` (well-formed, but not plannable). */
  type: "syntax" | "plan";
  /** What is wrong, in one sentence, often with a suggestion (`did you mean 'rsi'?`). */
  message: string;
  /** Where a syntax error is; absent for plan errors. */
  position?: Position;
}

/** A failed validation, exactly the HTTP 400 body. */
export interface InvalidResult {
  /** Always `false`. */
  valid: false;
  /** The first error found. */
  error: ErrorBody;
}

/** One timeframe whose data a query needs. */
export interface PlanSource {
  /** The timeframe whose bars are read. */
  timeframe: Timeframe;
  /** Sorted names of the raw series needed (`hl2` needs `high` and `low`). */
  series: RawSeries[];
  /** Bars of this timeframe needed so that every expression is defined at the latest bar. */
  minLookback: number;
}

/**
 * What to fetch for one source of a plan so that every value at the latest bar is defined and
 * every recursive indicator has converged (decisions §1 "Evaluation"): the plan source's
 * timeframe and series, and `bars = max(minLookback, warmup)`.
 */
export interface FetchSource {
  /** The timeframe whose bars are read (as in the plan). */
  timeframe: Timeframe;
  /** Sorted names of the raw series needed (as in the plan). */
  series: RawSeries[];
  /** Bars to fetch: at least the plan's minLookback, and the source's warm-up. */
  bars: number;
}

/** The data-requirements manifest of a query. */
export interface Plan {
  /** The market queried, in its configured spelling (`"forex"` plans as `FOREX`). */
  market: string;
  /** Base timeframe first, then by duration. */
  sources: PlanSource[];
}

/** Columns of bars, oldest bar first; `time` is the UTC open time in ms since epoch. */
export interface Bars {
  /** Open time of each bar: UTC, ms since epoch, finite and strictly increasing. */
  time: ArrayLike<number>;
  /** Opening price of each bar. */
  open: ArrayLike<number>;
  /** Highest price of each bar. */
  high: ArrayLike<number>;
  /** Lowest price of each bar. */
  low: ArrayLike<number>;
  /** Closing price of each bar (the latest price for a bar in progress). */
  close: ArrayLike<number>;
  /** Traded volume of each bar. */
  volume: ArrayLike<number>;
}

/** One instrument and its bars per timeframe. */
export interface Instrument {
  /** The instrument's symbol, such as `EURUSD`; results report it and sort ties by it. */
  symbol: string;
  /** Bars per timeframe. Only the plan's timeframes are read; an instrument lacking one does not match. */
  bars: Partial<Record<Timeframe, Bars>>;
}

/** One matching instrument. Column values that are not finite are `null`. */
export interface ResultRow {
  /** The instrument's symbol. */
  symbol: string;
  /**
   * The value of each column at the latest base bar, keyed by the column's source text as written;
   * a boolean column is 1 or 0. Empty when the query has no `columns`.
   */
  columns: Record<string, number | null>;
}

/** Instruments a run left out before evaluating the condition, by reason. */
export interface RunSkipped {
  /** Instruments with bars on every source the plan needs, but fewer than a source's minLookback (aligned bars for a non-base source). */
  shortHistory: number;
  /** Instruments without any bar on a source the plan needs (the timeframe missing or empty). */
  noData: number;
}

/**
 * What a run looked at, so that "no results" can be told from "no data" (decisions §2).
 * `instruments = matched + skipped.shortHistory + skipped.noData + (evaluated, not matched)`.
 */
export interface RunMeta {
  /** Every instrument of the universe considered, skipped ones included. */
  instruments: number;
  /** Instruments whose condition held, counted before `limit`. */
  matched: number;
  /** Instruments left out before evaluation, by reason (each counted once; noData wins over shortHistory). */
  skipped: RunSkipped;
  /** ISO 8601 open time of the latest base bar evaluated (the newest over the instruments evaluated), or null when none was evaluated. */
  asOf: string | null;
  /**
   * Evaluations from the store only (the service, the CLI on a store, alerts): instruments
   * evaluated on fewer bars than a source's fetch (`compile(q).fetch`, its warm-up) from the
   * bar's anchor — a young series or a short store — whose recursive values may be further from
   * the all-history value than the warm-up promises (docs/language.md "Warm-up").
   */
  unconverged?: number;
}

/** The body of a successful run. */
export interface RunResult {
  /** The matching instruments: sorted as the query says (by symbol without `sort`), at most `limit` of them. */
  results: ResultRow[];
  /** What the run considered and why instruments were left out. */
  meta: RunMeta;
}

/** Options of `compile(q).history`. */
export interface HistoryOptions {
  /** How many of the universe's latest distinct base bar times to evaluate at (default 100). */
  bars?: number;
  /**
   * The most bytes the matches may take as JSON (`JSON.stringify(result.matches)`, UTF-8),
   * counted while they are built: beyond it history throws a plan {@link XqlError}
   * (`Response too large: …`) instead of building them. Default: no bound. The service
   * passes 16 MiB.
   */
  maxBytes?: number;
}

/** One match of screen history: the base bar's open time (ms), the symbol and its columns then. */
export interface HistoryMatch {
  /** Open time of the base bar, UTC ms since epoch, as in bars. */
  time: number;
  /** The instrument's symbol. */
  symbol: string;
  /** Column values at that bar, exactly as `run` over bars truncated after it would give them. */
  columns: Record<string, number | null>;
}

/** Statistics of the close-to-close returns (percent) from match bars to k base bars later. */
export interface ForwardStats {
  /** Matches with k later bars (only those count). */
  n: number;
  /** Mean return in percent; null when n = 0. */
  mean: number | null;
  /** Median return in percent (the mean of the middle two for an even n); null when n = 0. */
  median: number | null;
  /** Share 0..1 of returns above 0; null when n = 0. */
  hitRate: number | null;
}

/** The body of a successful screen history (decisions §5). */
export interface HistoryResult {
  /** Every match, by bar time, then by symbol. */
  matches: HistoryMatch[];
  /** Totals and forward returns. */
  stats: {
    /** Bars in the window (at most the bars asked for). */
    bars: number;
    /** Matches listed (after the query's limit at each bar). */
    matches: number;
    /** Distinct symbols among the matches. */
    symbolsMatched: number;
    /** Forward returns at 1, 5 and 20 base bars. */
    forward: {
      /** Returns one base bar after each match. */
      "1": ForwardStats;
      /** Returns five base bars after each match. */
      "5": ForwardStats;
      /** Returns twenty base bars after each match. */
      "20": ForwardStats;
    };
  };
  /** Over the window: instruments considered, matches before limit, skipped, latest bar. */
  meta: RunMeta;
}

/** The window of screen history when none is given: the last 100 base bars. */
export const DEFAULT_HISTORY_BARS = 100;
/** The largest window `POST /xql/history` accepts (the library takes any positive integer). */
export const MAX_HISTORY_BARS = 1000;

/** Options shared by `validate`, `explain` and `compile`. */
export interface XqlOptions {
  /** Known markets (matched case-insensitively; the plan reports this spelling). Default `["FOREX", "CRYPTO"]`. */
  markets?: readonly string[];
  /** Largest minLookback a source may need. Default 300. */
  lookbackCeiling?: number;
  /**
   * Largest warm-up a source may ask for (`compile(q).fetch`): recursive indicators are fetched
   * enough history to forget their seed, capped here. Default 5000. Not an error when exceeded:
   * the warm-up is cut to the ceiling.
   */
  warmupCeiling?: number;
  /**
   * Largest static cost of a query, in bar-steps per instrument (the cost guard; see
   * docs/deployment.md "Limits and guards"). Default 100,000.
   */
  costBudget?: number;
  /**
   * Saved symbol lists by name, for queries that say `watchlist = "name"` (decisions §13). A
   * query naming a list missing here is the plan error `Unknown watchlist 'name'`. Without this
   * option the name is left for whoever runs the query to resolve: validate and explain accept
   * it, and `run`/`history` fail with that plan error.
   */
  watchlists?: Readonly<Record<string, readonly string[]>>;
}

/** The markets a query may name when {@link XqlOptions.markets} is not given. */
export const DEFAULT_MARKETS: readonly string[] = ["FOREX", "CRYPTO"];

/**
 * The markets a query on a store may name: the default ones, then each market the store holds
 * (`held`, its stored spelling) that is not one of them, whatever its case.
 */
export function withDefaultMarkets(held: readonly string[]): string[] {
  const markets = [...DEFAULT_MARKETS];
  for (const market of held) {
    if (!markets.some((m) => m.toUpperCase() === market.toUpperCase())) markets.push(market);
  }
  return markets;
}
/** The largest `minLookback` a source may need when {@link XqlOptions.lookbackCeiling} is not given. */
export const DEFAULT_LOOKBACK_CEILING = 300;

/** The fewest bars of warm-up a source gets: the bars fetched before warm-up followed convergence. */
export const MIN_WARMUP = 300;

/** The largest warm-up a source may ask for when {@link XqlOptions.warmupCeiling} is not given. */
export const DEFAULT_WARMUP_CEILING = 5000;

/** A series a store write changed (`BarStore.changesSince`, `DataChange.touched`): its bars opening at or after `from` may differ (−Infinity: any of them, or the series is gone). */
export interface TouchedSeries {
  /** The market, in its stored spelling. */
  market: string;
  /** The timeframe; derived timeframes a write rebuilt are listed too. */
  timeframe: Timeframe;
  /** The symbol. */
  symbol: string;
  /** Open time (UTC ms) of the earliest bar that may have changed; −Infinity: any bar, or the series is gone. */
  from: number;
}
