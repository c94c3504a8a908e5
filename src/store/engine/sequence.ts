/**
 * A whole write, written once for every backend: the claim of new series, the markets' write
 * lock, the data version the catalog cache is checked against, the engine's work (`writer.ts`),
 * the new data version and the change log, in that order and in one transaction. Each backend
 * only answers the requests (`io.ts`) with its SQL.
 */
import type { CatalogCache, CatalogWrite } from "./catalog-cache.js";
import type { Sequence } from "./io.js";
import { type WriteOutcome, deleteBars, writeBars } from "./writer.js";
import type { SeriesClaim } from "../series-owners.js";
import type { DeleteBarsRequest, SymbolWrite, TouchedSeries } from "../store.js";

/** What a committed write did: the engine's outcome, its data version and the catalog rows it leaves to keep. */
export interface WriteDone {
  outcome: WriteOutcome;
  version: number;
  catalog: CatalogWrite;
}

/** The sequence of a write of bars (see the module's comment); `onProgress` gets the bars written so far. */
export function* writeSequence(writes: readonly SymbolWrite[], cache: CatalogCache, claim?: SeriesClaim, onProgress?: (written: number) => void): Sequence<WriteDone> {
  if (claim) yield { kind: "claim", writes, claim };
  yield { kind: "lock", markets: [...new Set(writes.map((w) => w.market))].sort() };
  // Once the locks are held, the version says whether the catalog rows the cache holds are still the database's.
  const catalog = cache.begin((yield { kind: "version" }) as number);
  const outcome = yield* writeBars(writes, onProgress, catalog);
  const version = (yield { kind: "bump" }) as number;
  yield { kind: "log", version, touched: outcome.touched };
  return { outcome, version, catalog };
}

/** What a delete did: the bars removed and, when any were, its data version and the series touched. */
export interface DeleteDone {
  deleted: number;
  version?: number;
  touched: TouchedSeries[];
}

/** The sequence of a delete of one symbol's bars in each of `markets` (those holding it that the request names). */
export function* deleteSequence(markets: readonly string[], request: DeleteBarsRequest): Sequence<DeleteDone> {
  let deleted = 0;
  const touched: TouchedSeries[] = [];
  for (const market of markets) {
    yield { kind: "lock", markets: [market] };
    const done = yield* deleteBars({ market, symbol: request.symbol, timeframe: request.timeframe, from: request.from });
    deleted += done.deleted;
    touched.push(...done.touched);
  }
  if (deleted === 0) return { deleted, touched };
  const version = (yield { kind: "bump" }) as number;
  yield { kind: "log", version, touched };
  return { deleted, version, touched };
}
