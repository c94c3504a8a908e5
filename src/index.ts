/**
 * xql: the XQL market-screening language. The core: parse, check, plan, explain and evaluate
 * queries over injected bars. No server, database or MCP code is reachable from here.
 *
 * The other entry points are `xql/testing` (fast-check arbitraries), `xql/server`
 * (`createServer`) and `xql/client` (`XqlClient`).
 *
 * @example
 * ```ts
 * import { compile, syntheticUniverse, validate } from "xql";
 *
 * const text = 'market = "FOREX"\ntimeframe = h1\ncolumns = [rsi(14)]\nrsi(14) < 30';
 * validate(text); // { valid: true }
 * const { results } = compile(text).run(syntheticUniverse({ market: "FOREX", symbols: 20, timeframes: ["h1"], bars: 300 }));
 * ```
 *
 * @packageDocumentation
 * @module xql
 */
export { validate, explain, compile } from "./api.js";
export type { CompiledQuery, ValidateResult, ExplainResult, YieldOptions, WhyOptions } from "./api.js";
export type { WhyNode, WhyResult } from "./eval/why.js";
export { XqlError, ERROR_CATALOGUE, errorMessage } from "./errors.js";
export { XqlDataError } from "./bars/trust.js";
export type { Stage, ErrorCode, ErrorEntry, ErrorGroup, ErrorParams, TypedPlace } from "./errors.js";
export { syntheticUniverse, DEFAULT_SYNTHETIC_SEED, DEFAULT_SYNTHETIC_END } from "./synthetic/synthetic.js";
export type { SyntheticOptions } from "./synthetic/synthetic.js";
export { deriveTimeframes } from "./sessions/derive.js";
export { formatColumnValue, priceDecimals } from "./precision.js";
export type { ColumnKind } from "./functions/module.js";
export type { DeriveOptions } from "./sessions/derive.js";
export { PHRASES, PHRASE_CATEGORIES, findPhrases } from "./phrases/index.js";
export type { PhraseEntry, PhraseCategory } from "./phrases/index.js";
export {
  TIMEFRAMES,
  TIMEFRAME_MS,
  RAW_SERIES,
  DEFAULT_MARKETS,
  DEFAULT_LOOKBACK_CEILING,
  DEFAULT_HISTORY_BARS,
  MAX_HISTORY_BARS,
  DEFAULT_WARMUP_CEILING,
  MIN_WARMUP,
} from "./types.js";
export type {
  Timeframe,
  RawSeries,
  Position,
  ErrorBody,
  InvalidResult,
  Plan,
  PlanSource,
  Bars,
  Instrument,
  ResultRow,
  RunResult,
  RunMeta,
  RunSkipped,
  HistoryOptions,
  HistoryMatch,
  HistoryResult,
  ForwardStats,
  XqlOptions,
  FetchSource,
} from "./types.js";
export { VERSION } from "./version.js";
