/**
 * The public entry points: `validate`, `explain`, `compile`. They run the stages in order
 * (parse → lower → check → plan → explain) and return exactly the HTTP bodies.
 */
import { parse } from "./ast/lower.js";
import { check, type CheckedQuery } from "./check/check.js";
import { columnKind } from "./check/column-kind.js";
import type { ColumnKind } from "./functions/module.js";
import { XqlError, fail } from "./errors.js";
import { createRunner, type Runner } from "./eval/evaluate.js";
import { explainQuery } from "./plan/explain.js";
import { DEFAULT_COST_BUDGET, checkColumns, checkCost, queryWork, type QueryWork } from "./plan/cost.js";
import { planQuery, type Planned } from "./plan/plan.js";
import {
  DEFAULT_LOOKBACK_CEILING,
  DEFAULT_WARMUP_CEILING,
  type FetchSource,
  DEFAULT_MARKETS,
  type ErrorBody,
  type Instrument,
  type Plan,
  type RunResult,
  type XqlOptions,
  type HistoryOptions,
  type HistoryResult,
  type Timeframe,
  DEFAULT_HISTORY_BARS,
} from "./types.js";
import { type AnchoredHistory, type HistoryScan, historyResult, type TrackedRow } from "./eval/history.js";
import { anchorTime } from "./eval/anchor.js";
import { anchoredInstrument } from "./eval/truncate.js";
import { type WhyResult, type WhySource, whyIndex, whyQueryText, whyShape, whyTree } from "./eval/why.js";
import { XqlDataError } from "./errors.js";
import type { Expression } from "./ast/nodes.js";
import { FUNCTIONS } from "./functions/registry.js";

/**
 * A query that passed every check: its plan, its explanation, and `run` over injected bars.
 * Made by {@link compile}; immutable, and safe to run any number of times over any bars.
 *
 * @example
 * ```ts
 * const query = compile('market = "FOREX"\ntimeframe = h1\ncolumns = [rsi(14)]\nrsi(14) < 30');
 * query.plan;        // { market: "FOREX", sources: [{ timeframe: "h1", minLookback: ... }] }
 * query.run(myInstruments).results; // [{ symbol: "EURUSD", columns: { "rsi(14)": 27.4 } }, ...]
 * ```
 */
export interface CompiledQuery {
  /** The data-requirements manifest (exactly the `plan` of the explain body). */
  readonly plan: Plan;
  /** The mechanical rendering of the query (exactly the `explanation` of the explain body). */
  readonly explanation: string;
  /**
   * What to fetch per plan source, in plan order: `{ timeframe, series, bars }` with
   * `bars = max(minLookback, warmup)`. The warm-up lets recursive indicators (EMA, RSI, ATR,
   * MACD, ...) forget their seed to 1e-6: at least 300 bars, at most `warmupCeiling` (default
   * 5000). Give `run` this many bars per source for values that match the whole history.
   */
  readonly fetch: readonly FetchSource[];
  /**
   * The anchor (ms) of a plan source at base bar `t` (its open time, ms): every path that reads
   * the store evaluates bar t over that source's bars opening at or after it (decisions §9,
   * docs/language.md "Warm-up"). Inject each source's bars from `anchor(timeframe, t)` up to t
   * (the bars closed by t's close) and the latest value is the service's, bit for bit.
   *
   * @throws RangeError when `timeframe` is not one of the plan's sources or `t` is not finite.
   * @example
   * ```ts
   * const q = compile('market = "CRYPTO"\ntimeframe = h1\nrsi(14) < 30');
   * const from = q.anchor("h1", Date.parse("2026-12-01T10:00:00Z")); // inject h1 bars from here
   * ```
   */
  anchor(timeframe: Timeframe, t: number): number;
  /**
   * What each column holds, by its key (`price`, `oscillator`, `volume` or `number`), so a table
   * can show it as people read it: pass it to `formatColumnValue`. Derived from the expression
   * (docs/service.md, "How the table shows numbers").
   */
  readonly columnKinds: Readonly<Record<string, ColumnKind>>;
  /**
   * Evaluates the query at the latest bar of every instrument and returns the matches, sorted
   * and limited as the query says. Pure: reads only the bars given. Odd values (NaN bars, zero
   * volume, flat prices) never throw: they leave an instrument out or make a comparison false.
   *
   * @throws {@link XqlDataError} for bars that cannot be evaluated honestly: times that are not
   * finite and strictly increasing (unsorted or duplicate), or a column whose length differs
   * from the time column's. The message names the instrument, the timeframe and the index.
   */
  run(universe: Iterable<Instrument>): RunResult;
  /**
   * Screen history (decisions §5): the screen evaluated at each of the last `bars` distinct base
   * bar times of the universe as if that bar were the latest, in one pass per instrument. The
   * matches and column values at a bar t are bit-identical to `run` over the same bars truncated
   * after t (every timeframe cut at t's close), restricted to the instruments that have a base
   * bar at t. Sorting and limit apply per bar, as in run; within a bar matches are listed by
   * symbol. `stats.forward` gives the close-to-close returns 1, 5 and 20 base bars after each
   * match (only matches with that many later bars count).
   *
   * @param options - `bars`: the window, default 100 (any positive integer here; the HTTP
   * service allows at most 1,000).
   * @throws RangeError when `bars` is not a positive integer; {@link XqlDataError} as `run`.
   * @example
   * ```ts
   * const q = compile('market = "FOREX"\ntimeframe = h1\nrsi(14) < 30');
   * const { matches, stats } = q.history(syntheticUniverse({ market: "FOREX", symbols: 20, timeframes: ["h1"], bars: 600 }), { bars: 300 });
   * stats.forward["5"].hitRate; // share of matches followed by a higher close 5 bars later
   * ```
   */
  history(universe: Iterable<Instrument>, options?: HistoryOptions): HistoryResult;
  /**
   * `run`, giving the event loop a turn whenever `sliceMs` (default 10) of evaluation have
   * passed, so a server that screens a large universe keeps answering other requests meanwhile.
   * The result is exactly `run`'s.
   */
  runAsync(universe: Iterable<Instrument>, options?: YieldOptions): Promise<RunResult>;
  /** `history`, giving the event loop a turn every `sliceMs` (default 10); the result is exactly `history`'s. */
  historyAsync(universe: Iterable<Instrument>, options?: HistoryOptions & YieldOptions): Promise<HistoryResult>;
  /**
   * The only symbols the screen considers (decisions §13): the query's `symbols = [...]`, or the
   * list its `watchlist = "name"` resolved to through the `watchlists` option; undefined for a
   * screen of the whole market. `run` and `history` read only these instruments of the universe
   * given; `meta.instruments` counts the list, and a listed symbol the universe lacks counts in
   * `meta.skipped.noData`.
   */
  readonly symbols: readonly string[] | undefined;
  /** The watchlist the query names (`watchlist = "name"`), resolved or not; undefined without one. */
  readonly watchlist: string | undefined;
  /**
   * Why `instrument` matches the screen at a base bar, or not (decisions §11): the condition as a
   * tree of its parts, each with its value at that bar — the values `run` (or `history`, at an
   * earlier bar) computes there, bit for bit. `and`/`or`/`not` and comparisons list their operands,
   * a `let` name its definition; a part read at another bar (`d::x`, `x[k]`) gives that bar's time.
   *
   * @param options - `at`: the bar, as ms or ISO 8601 (the latest base bar at or before it);
   * default the latest base bar.
   * @throws {@link XqlDataError} when the instrument has no base bar at or before `at`.
   * @example
   * ```ts
   * const q = compile('market = "FOREX"\ntimeframe = h1\nrsi(14) < 30 and close > d::sma(close, 200)');
   * q.why(eurusd).tree; // { expr: "rsi(14) < 30 and close > d::sma(close, 200)", value: false, children: [...] }
   * ```
   */
  why(instrument: Instrument, options?: WhyOptions): WhyResult;
}

/** Options of {@link CompiledQuery.why}. */
export interface WhyOptions {
  /** The base bar asked about: ms since epoch or ISO 8601; the latest at or before it. Default the latest bar. */
  at?: number | string;
}

/** How often the `…Async` evaluations give the event loop a turn. */
export interface YieldOptions {
  /** Milliseconds of evaluation between turns of the event loop. Default 10. */
  sliceMs?: number;
  /**
   * How a turn is given: resolves when the evaluation may go on. Default: the next turn of the
   * event loop (`setImmediate`). The service passes its scheduler, which hands turns out
   * round-robin by account.
   */
  turn?: () => Promise<void>;
}

function historyBars(options: HistoryOptions): number {
  const bars = options.bars ?? DEFAULT_HISTORY_BARS;
  if (!Number.isInteger(bars) || bars < 1) {
    throw new RangeError(`history: bars must be a positive integer, got ${String(options.bars)}`);
  }
  return bars;
}

function maxBytesOf(options: HistoryOptions): number {
  const max = options.maxBytes ?? Infinity;
  if (!(max > 0)) throw new RangeError(`history: maxBytes must be a positive number, got ${String(options.maxBytes)}`);
  return max;
}

function sliceOf(options: YieldOptions): number {
  const slice = options.sliceMs ?? 10;
  if (!(slice >= 0) || !Number.isFinite(slice)) throw new RangeError(`sliceMs must be a non-negative number, got ${String(options.sliceMs)}`);
  return slice;
}

/** What {@link validate} returns: exactly the body of the HTTP service's `POST /validate`. */
export type ValidateResult =
  | {
      /** Always `true`: the query is well-formed and plannable. */
      valid: true;
    }
  | {
      /** Always `false`: the query is invalid. */
      valid: false;
      /** The first error found: syntax errors carry a position, plan errors none. */
      error: ErrorBody;
    };
/** What {@link explain} returns: exactly the body of the HTTP service's `POST /explain`. */
export type ExplainResult =
  | {
      /** The data-requirements manifest: the market and, per timeframe, the series and bars needed. */
      plan: Plan;
      /** The mechanical rendering of the query, e.g. `Matches when rsi(14) < 30.` */
      explanation: string;
    }
  | {
      /** Always `false`: the query is invalid. */
      valid: false;
      /** The first error found, exactly as {@link validate} reports it. */
      error: ErrorBody;
    };

/** Internal facts of each compiled query: its static cost (`src/plan/cost.ts`) and its runner. */
const internals = new WeakMap<CompiledQuery, Internals>();

interface Internals {
  readonly cost: number;
  readonly work: QueryWork;
  readonly runner: Runner;
  readonly checked: CheckedQuery;
  readonly planned: Planned;
  readonly warmupCeiling: number;
  /** The symbols the query screens (`symbols = [...]` or its resolved watchlist); undefined for the whole market. */
  readonly symbols: readonly string[] | undefined;
}

/**
 * The static cost of a query compiled by {@link compile}: bar-steps per instrument. Internal
 * (not exported by the package): a history's price starts from it (`historyPrice`).
 */
export function costOf(query: CompiledQuery): number {
  return internalsOf(query).cost;
}

/**
 * Bytes a compiled query keeps between runs (its evaluator's buffers, grown to the longest bars
 * it evaluated). Internal: the service's query cache weighs its entries with it.
 */
export function retainedBytesOf(query: CompiledQuery): number {
  return internalsOf(query).runner.retainedBytes();
}

/** Options of the store's history ({@link historyAnchoredAsync}). */
export interface AnchoredHistoryOptions extends YieldOptions {
  bars: number;
  maxBytes?: number;
  /** Symbols whose rows are wanted at every window bar they have, matching or not: in the bar's rows where they match, else in `tracked` (see `AnchoredHistory`). */
  track?: ReadonlySet<string>;
  /** Carried passes (eval/carry.ts): each symbol's last pass kept in `store` under `key`, its next bars taken in steps. */
  carry?: AnchoredHistory["carry"];
}

/**
 * `runAsync` as every path that reads the store evaluates (decisions §9): each instrument's
 * latest bar over each source's bars from its anchor, `meta.unconverged` counted. Internal: the
 * service, the CLI on a store and the alerts call it over bars read by `fetchUniverse`.
 */
export function runAnchoredAsync(query: CompiledQuery, universe: Iterable<Instrument>, options: YieldOptions = {}): Promise<RunResult> {
  const { runner, symbols } = internalsOf(query);
  return restrictRunAsync(symbols, universe, (u) => runner.runAnchoredAsync(u, sliceOf(options), options.turn));
}

/**
 * `historyAsync` as every path that reads the store evaluates (decisions §9): one pass per
 * anchor, each window bar's values those of a run on the store cut after it. With `track`, also
 * the tracked symbols' rows at their window bars where the bar's rows do not hold them
 * (`TrackedRow`). Internal.
 */
export async function historyAnchoredAsync(
  query: CompiledQuery,
  universe: Iterable<Instrument>,
  options: AnchoredHistoryOptions,
): Promise<{ result: HistoryResult; tracked: readonly TrackedRow[] }> {
  const { scan, restriction } = await scanAnchored(query, universe, options);
  const result = historyResult(scan);
  return { result: restriction === undefined ? result : restriction.account(result), tracked: scan.tracked };
}

/**
 * The rows `historyAnchoredAsync` finds, per window bar, without the answer's statistics
 * (forward returns, counts): what alerts read at every round. Internal.
 */
export async function historyRowsAnchoredAsync(query: CompiledQuery, universe: Iterable<Instrument>, options: AnchoredHistoryOptions): Promise<HistoryScan> {
  return (await scanAnchored(query, universe, options)).scan;
}

async function scanAnchored(query: CompiledQuery, universe: Iterable<Instrument>, options: AnchoredHistoryOptions): Promise<{ scan: HistoryScan; restriction: Restriction | undefined }> {
  const bars = historyBars(options);
  const { runner, symbols } = internalsOf(query);
  const anchored: AnchoredHistory = { ...(options.track ? { track: options.track } : {}), ...(options.carry ? { carry: options.carry } : {}) };
  // A screen over a list: only its symbols, and the listed ones the universe lacks counted (decisions §13).
  const restriction = symbols === undefined ? undefined : new Restriction(symbols);
  const scan = await runner.historyAnchoredAsync(restriction === undefined ? universe : restriction.filter(universe), bars, sliceOf(options), anchored, maxBytesOf(options), options.turn);
  return { scan, restriction };
}

/**
 * `why` as every path that reads the store answers it (decisions §9, §11): at the instrument's
 * latest base bar at or before `at` (its latest without), over each source's bars from its
 * anchor there, so the tree holds the numbers run and history give at that bar. Internal: the
 * service's `POST /xql/why` and `xql why` on a store. The instrument must have a base bar at or
 * before `at`.
 */
export function whyAnchored(query: CompiledQuery, instrument: Instrument, at?: number): WhyResult {
  const { planned } = internalsOf(query);
  const base = planned.baseTimeframe;
  const times = instrument.bars[base]?.time ?? [];
  const t = times[whyIndex(times, at)]!;
  return query.why(anchoredInstrument(instrument, base, t, query.anchor), { at: t });
}

/** The query's work per bar by source, which history's price reads (`historyPrice`). Internal. */
export function workOf(query: CompiledQuery): QueryWork {
  return internalsOf(query).work;
}

function internalsOf(query: CompiledQuery): Internals {
  const found = internals.get(query);
  if (!found) throw new TypeError("not a query compiled by compile()");
  return found;
}

interface Compiled {
  readonly checked: CheckedQuery;
  readonly planned: Planned;
  readonly cost: number;
}

function resolveOptions(options: XqlOptions | undefined): {
  markets: readonly string[];
  lookbackCeiling: number;
  warmupCeiling: number;
  costBudget: number;
} {
  const markets = options?.markets ?? DEFAULT_MARKETS;
  const lookbackCeiling = options?.lookbackCeiling ?? DEFAULT_LOOKBACK_CEILING;
  const warmupCeiling = options?.warmupCeiling ?? DEFAULT_WARMUP_CEILING;
  const costBudget = options?.costBudget ?? DEFAULT_COST_BUDGET;
  if (!(costBudget > 0)) throw new TypeError("options.costBudget must be a positive number");
  if (!Array.isArray(markets) || markets.some((m) => typeof m !== "string")) {
    throw new TypeError("options.markets must be an array of strings");
  }
  if (!Number.isInteger(lookbackCeiling) || lookbackCeiling < 1) {
    throw new TypeError("options.lookbackCeiling must be a positive integer");
  }
  if (!Number.isInteger(warmupCeiling) || warmupCeiling < 1) {
    throw new TypeError("options.warmupCeiling must be a positive integer");
  }
  return { markets, lookbackCeiling, warmupCeiling, costBudget };
}

/**
 * The symbols a checked query screens: its own list, or its watchlist's from `watchlists`
 * (undefined when no lists were given: the caller resolves the name).
 */
function listOf(checked: CheckedQuery, watchlists: XqlOptions["watchlists"]): readonly string[] | undefined {
  if (checked.symbols !== undefined) return checked.symbols;
  if (checked.watchlist === undefined || watchlists === undefined) return undefined;
  if (!Object.hasOwn(watchlists, checked.watchlist)) throw fail("unknown-watchlist", { name: checked.watchlist });
  return watchlists[checked.watchlist];
}

function compileStages(query: string, options: XqlOptions | undefined): Compiled {
  const { markets, lookbackCeiling, warmupCeiling, costBudget } = resolveOptions(options);
  if (typeof query !== "string") throw fail("query-not-string", {}, { text: "", offset: 0, stage: "parse" });
  let ast;
  try {
    ast = parse(query);
  } catch (error) {
    // Chevrotain recursion is bounded by MAX_NESTING; this is the last line of defence.
    if (error instanceof RangeError) throw fail("query-too-complex", { what: "complex to parse" }, { text: query, offset: 0, stage: "parse" });
    throw error;
  }
  const checked = check(ast, query, markets);
  checkColumns(checked);
  const planned = planQuery(checked, lookbackCeiling, warmupCeiling);
  const cost = checkCost(checked, planned, costBudget);
  listOf(checked, options?.watchlists);
  return { checked, planned, cost };
}

function attempt<T>(query: string, options: XqlOptions | undefined, then: (c: Compiled) => T): T | { valid: false; error: ErrorBody } {
  try {
    return then(compileStages(query, options));
  } catch (error) {
    if (error instanceof XqlError) return error.toResult();
    if (error instanceof RangeError) {
      return { valid: false, error: { type: "syntax", message: "Query too complex", position: { line: 1, column: 1, offset: 0 } } };
    }
    throw error;
  }
}

/**
 * Checks that a query is well-formed and plannable, touching no data.
 *
 * @param query - The query text (settings and `let` bindings, then one condition).
 * @param options - Known markets (default `FOREX`, `CRYPTO`) and the lookback ceiling (default 300).
 * @returns `{ valid: true }`, or `{ valid: false, error }` with the first error (syntax errors
 * carry `position: { line, column, offset }`; plan errors have none). Never throws for any query text.
 * @example 
 * ```ts
 * validate('market = "FOREX"\ntimeframe = h1\nrsi(14) < 30'); // { valid: true }
 * validate('market = "FOREX"\ntimeframe = h1\nrsi(14) <');
 * // { valid: false, error: { type: "syntax", message: "...", position: { line: 3, column: 10, offset: 35 } } }
 * ```
 */
export function validate(query: string, options?: XqlOptions): ValidateResult {
  return attempt(query, options, () => ({ valid: true as const }));
}

/**
 * Returns the data requirements (plan) and the mechanical explanation of a query, or the
 * validation failure body. Never throws for any query text.
 *
 * @param query - The query text.
 * @param options - Known markets and the lookback ceiling, as for {@link validate}.
 * @returns `{ plan, explanation }`, or `{ valid: false, error }` exactly as {@link validate} fails.
 * @example
 * ```ts
 * const result = explain('market = "FOREX"\ntimeframe = h1\nd::close > d::close[1]');
 * if ("plan" in result) console.log(result.plan.sources, result.explanation);
 * ```
 */
export function explain(query: string, options?: XqlOptions): ExplainResult {
  return attempt(query, options, ({ checked, planned }) => ({ plan: planned.plan, explanation: explainQuery(checked) }));
}

/**
 * Compiles a query once for many runs.
 *
 * @param query - The query text.
 * @param options - Known markets and the lookback ceiling, as for {@link validate}.
 * @returns A {@link CompiledQuery}: its plan, its explanation and `run(universe)`.
 * @throws {@link XqlError} with `type`, `message` and `position` (syntax errors) when the query
 * is invalid: the same error {@link validate} reports.
 * @example
 * ```ts
 * const q = compile('market = "CRYPTO"\ntimeframe = h1\ncolumns = [rsi(14)]\nrsi(14) < 30');
 * const { results } = q.run(syntheticUniverse({ market: "CRYPTO", symbols: 50, timeframes: ["h1"], bars: 300 }));
 * ```
 */
export function compile(query: string, options?: XqlOptions): CompiledQuery {
  let compiled: Compiled;
  try {
    compiled = compileStages(query, options);
  } catch (error) {
    if (error instanceof RangeError) throw fail("query-too-complex", { what: "complex" }, { text: String(query), offset: 0, stage: "parse" });
    throw error;
  }
  const { checked, planned } = compiled;
  return assemble(checked, planned, compiled.cost, createRunner(checked, planned), listOf(checked, options?.watchlists), resolveOptions(options).warmupCeiling);
}

/**
 * `query` over `symbols`: the same compiled query (its plan, its evaluator) screening only
 * that list. Internal: the service and the CLI resolve a query's `watchlist = "name"` with it,
 * from the account's (or the store's) saved lists, without compiling the text again.
 */
export function overSymbols(query: CompiledQuery, symbols: readonly string[]): CompiledQuery {
  const { cost, runner, checked, planned, warmupCeiling } = internalsOf(query);
  return assemble(checked, planned, cost, runner, symbols, warmupCeiling);
}

function assemble(
  checked: CheckedQuery,
  planned: Planned,
  cost: number,
  runner: Runner,
  symbols: readonly string[] | undefined,
  warmupCeiling: number,
): CompiledQuery {
  const explanation = explainQuery(checked);
  const watchlist = checked.watchlist;
  // A watchlist nobody resolved: the library has no saved lists of its own.
  const resolved = (): void => {
    if (watchlist !== undefined && symbols === undefined) throw fail("unknown-watchlist", { name: watchlist });
  };
  const list = symbols === undefined ? undefined : Object.freeze([...symbols]);
  let whyQuery: { shape: ReturnType<typeof whyShape>; query: CompiledQuery } | undefined;
  const compiledQuery: CompiledQuery = Object.freeze({
    why: (instrument: Instrument, options: WhyOptions = {}): WhyResult => {
      // The tree's query is compiled once, on the first question.
      whyQuery ??= whyQueryOf(checked, warmupCeiling);
      return whyOf(whyQuery.query, whyQuery.shape, checked, instrument, planned.baseTimeframe, planned.plan.market, options);
    },
    plan: planned.plan,
    explanation,
    fetch: planned.fetch,
    anchor: (timeframe: Timeframe, t: number): number => {
      const source = planned.fetch.find((f) => f.timeframe === timeframe);
      if (!source) throw new RangeError(`anchor: timeframe ${String(timeframe)} is not a source of this query (${planned.fetch.map((f) => f.timeframe).join(", ")})`);
      if (!Number.isFinite(t)) throw new RangeError(`anchor: t must be a finite time in ms, got ${String(t)}`);
      return anchorTime(planned.plan.market, planned.baseTimeframe, timeframe, source.bars, t);
    },
    columnKinds: Object.freeze(Object.fromEntries(checked.columns.map((column) => [column.text, columnKind(column.ir)]))),
    symbols: list,
    watchlist,
    run: (universe: Iterable<Instrument>): RunResult => {
      resolved();
      return restrictRun(list, universe, (u) => runner.run(u));
    },
    history: (universe: Iterable<Instrument>, options: HistoryOptions = {}): HistoryResult => {
      resolved();
      const bars = historyBars(options);
      const maxBytes = maxBytesOf(options);
      return restrictRun(list, universe, (u) => historyResult(runner.history(u, bars, maxBytes)));
    },
    // Bad options throw at once, as before the evaluation starts (not as a rejection).
    runAsync: (universe: Iterable<Instrument>, options: YieldOptions = {}): Promise<RunResult> => {
      resolved();
      const slice = sliceOf(options);
      return restrictRunAsync(list, universe, (u) => runner.runAsync(u, slice, options.turn));
    },
    historyAsync: (universe: Iterable<Instrument>, options: HistoryOptions & YieldOptions = {}): Promise<HistoryResult> => {
      resolved();
      const bars = historyBars(options);
      const slice = sliceOf(options);
      const maxBytes = maxBytesOf(options);
      return restrictRunAsync(list, universe, async (u) => historyResult(await runner.historyAsync(u, bars, slice, maxBytes, options.turn)));
    },
  });
  internals.set(compiledQuery, { cost, work: queryWork(checked, planned, cost), runner, checked, planned, warmupCeiling, symbols: list });
  return compiledQuery;
}

/**
 * The instruments of `universe` on the list, and afterwards how many listed symbols it lacked:
 * those count as considered and as having no data (decisions §13).
 */
class Restriction {
  private readonly wanted: ReadonlySet<string>;
  private readonly seen = new Set<string>();
  constructor(symbols: readonly string[]) {
    this.wanted = new Set(symbols);
  }
  *filter(universe: Iterable<Instrument>): Generator<Instrument> {
    for (const instrument of universe) {
      if (!this.wanted.has(instrument.symbol) || this.seen.has(instrument.symbol)) continue;
      this.seen.add(instrument.symbol);
      yield instrument;
    }
  }
  account<R extends { meta: RunResult["meta"] }>(result: R): R {
    const missing = this.wanted.size - this.seen.size;
    if (missing === 0) return result;
    const meta = result.meta;
    return { ...result, meta: { ...meta, instruments: meta.instruments + missing, skipped: { ...meta.skipped, noData: meta.skipped.noData + missing } } };
  }
}

function restrictRun<R extends { meta: RunResult["meta"] }>(symbols: readonly string[] | undefined, universe: Iterable<Instrument>, run: (u: Iterable<Instrument>) => R): R {
  if (symbols === undefined) return run(universe);
  const restriction = new Restriction(symbols);
  return restriction.account(run(restriction.filter(universe)));
}

async function restrictRunAsync<R extends { meta: RunResult["meta"] }>(
  symbols: readonly string[] | undefined,
  universe: Iterable<Instrument>,
  run: (u: Iterable<Instrument>) => Promise<R>,
): Promise<R> {
  if (symbols === undefined) return run(universe);
  const restriction = new Restriction(symbols);
  return restriction.account(await run(restriction.filter(universe)));
}

/** Whether an expression is boolean, read from its form and the lets' and functions' types. */
function booleanIn(checked: CheckedQuery): (e: Expression) => boolean {
  const lets = new Map(checked.lets.map((l) => [l.name, l.expression]));
  const test = (e: Expression): boolean => {
    switch (e.kind) {
      case "boolean":
        return true;
      case "binary":
        return !["+", "-", "*", "/"].includes(e.operator);
      case "unary":
        return e.operator === "not";
      case "identifier": {
        const bound = lets.get(e.name);
        return bound !== undefined && test(bound);
      }
      case "call":
        return FUNCTIONS.get(e.callee)?.result === "boolean";
      case "timeframe":
      case "history":
        return test(e.expression);
      default:
        return false;
    }
  };
  return test;
}

/** The query that evaluates a why tree, compiled without the column and cost guards: its parts are the screen's own. */
function whyQueryOf(checked: CheckedQuery, warmupCeiling: number): { shape: ReturnType<typeof whyShape>; query: CompiledQuery } {
  const source: WhySource = {
    ast: checked.ast,
    lets: checked.lets,
    condition: checked.condition.expression,
    columns: checked.columns,
    sort: checked.sort,
    isBoolean: booleanIn(checked),
  };
  const shape = whyShape(source);
  const text = whyQueryText(source, shape);
  const markets = [checked.market!];
  const ast = parse(text);
  const whyChecked = check(ast, text, markets);
  const planned = planQuery(whyChecked, Number.MAX_SAFE_INTEGER, warmupCeiling);
  return { shape, query: assemble(whyChecked, planned, 0, createRunner(whyChecked, planned), undefined, warmupCeiling) };
}

function whyOf(
  query: CompiledQuery,
  shape: ReturnType<typeof whyShape>,
  checked: CheckedQuery,
  instrument: Instrument,
  base: Plan["sources"][number]["timeframe"],
  market: string,
  options: WhyOptions,
): WhyResult {
  const at = options.at === undefined ? undefined : typeof options.at === "number" ? options.at : Date.parse(options.at);
  if (at !== undefined && !Number.isFinite(at)) throw new RangeError(`why: at must be ms since epoch or an ISO 8601 time, got ${String(options.at)}`);
  const times = instrument.bars[base]?.time ?? [];
  const index = whyIndex(times, at);
  if (index < 0) throw new XqlDataError("no-bars-at", { symbol: instrument.symbol, market, timeframe: base });
  const time = times[index]!;
  const last = times.length - 1;
  const row =
    index === last
      ? query.run([instrument]).results[0]?.columns
      : query.history([instrument], { bars: last - index + 1 }).matches.find((m) => m.time === time)?.columns;
  const tree = whyTree(shape, row, instrument, base, index);
  // Defined, not assigned: a column written `__proto__` is a key like any other (as in rows.ts).
  const columns: Record<string, number | null> = {};
  for (const c of checked.columns) Object.defineProperty(columns, c.text, { value: row?.[c.text] ?? null, enumerable: true, writable: true, configurable: true });
  return { symbol: instrument.symbol, time, matched: tree.value === true, columns, tree };
}
