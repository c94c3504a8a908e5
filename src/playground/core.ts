/**
 * The core as the playground's browser bundle sees it: the pipeline, the synthetic universe and
 * the store's derivation of coarser timeframes (`src/sessions/`, browser-safe),
 * the phrase reference and the editor services. `scripts/build-playground.mjs` bundles this
 * entry alone to check that it reaches no server code and no Node built-in, and to hold it to
 * its size budget.
 */
export { validate, explain, compile } from "../api.js";
export { syntheticUniverse } from "../synthetic/synthetic.js";
export { deriveTimeframes } from "../sessions/derive.js";
export { PHRASES, PHRASE_CATEGORIES } from "../phrases/index.js";
export { DEFAULT_MARKETS, TIMEFRAME_MS } from "../types.js";
export { complete, diagnose, format, hover, scan, signatureHelp } from "../editor/index.js";
export { chartBars, columnHistory, columnsQuery } from "./overlay.js";
export { formatColumnValue, priceDecimals, significantDecimals } from "../precision.js";
