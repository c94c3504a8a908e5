/**
 * xql: the XQL market-screening language. The core: parse, check, plan, explain and evaluate
 * queries over injected bars. No server, database or MCP code is reachable from here.
 */
export { validate, explain, compile } from "./api.js";
export type { CompiledQuery, ValidateResult, ExplainResult } from "./api.js";
export { XqlError } from "./errors.js";
export { syntheticUniverse } from "./data/synthetic.js";
export type { SyntheticOptions } from "./data/synthetic.js";
export { PHRASES, PHRASE_CATEGORIES, findPhrases } from "./phrases/index.js";
export type { PhraseEntry, PhraseCategory } from "./phrases/index.js";
export { TIMEFRAMES, TIMEFRAME_MS, DEFAULT_MARKETS, DEFAULT_LOOKBACK_CEILING } from "./types.js";
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
  XqlOptions,
} from "./types.js";
export { VERSION } from "./version.js";
