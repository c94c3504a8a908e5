/**
 * Version 4 of the bars' room, written once for both backends: the bars move out of the row
 * table. Blocks hold every bar (version 3; a backend first builds them when an older version
 * never did); each series' newest bar leaves its block for the catalog row's tail, the row
 * table goes, and every FOREX timeframe derived so far on UTC days is derived again on the
 * session. A generator of requests, as the engine's (`engine/io.ts`): each backend answers
 * them with its SQL, inside the migration's transaction.
 */
import { sessionOf } from "../sessions/periods.js";
import type { Timeframe } from "../types.js";
import { type Columns, float64s, sliceColumns } from "./blocks.js";
import type { IoRequest } from "./engine/io.js";
import { rederiveSymbols } from "./engine/writer.js";

/** A series of the version-3 catalog. */
export interface V3Series {
  market: string;
  timeframe: Timeframe;
  symbol: string;
  bars: number;
  firstTime: number;
  lastTime: number;
  derived: number;
}

/** What the move asks of a backend. */
export type V4Request =
  /** Every series of the version-3 catalog: answered with `V3Series[]`. */
  | { kind: "v3-series" }
  /** The series' version-3 blocks, ascending: answered with `[block, time, open, high, low, close, volume][]` (each column a float64 blob). */
  | { kind: "v3-blocks"; series: V3Series }
  /** One version-4 block row of the series (every column in one value). */
  | { kind: "v4-block"; series: V3Series; block: number; columns: Columns }
  /** The series' version-4 catalog row. */
  | { kind: "v4-series"; series: V3Series; sealedBlock: number | null; tail: Columns }
  /** The new tables take the old ones' names (the row table and the version-3 ones go). */
  | { kind: "v4-swap" }
  /** The (market, symbol) pairs with derived timeframes: answered with `[market, symbol][]`. */
  | { kind: "v4-derived" };

/** The move, as requests (the engine's too, for the derivation again). */
export function* upgradeTo4(): Generator<V4Request | IoRequest, void, unknown> {
  const catalog = (yield { kind: "v3-series" }) as V3Series[];
  for (const series of catalog) {
    const rows = (yield { kind: "v3-blocks", series }) as [unknown, ...Uint8Array[]][];
    let sealed: number | null = null;
    let tail: Columns | undefined;
    for (let i = 0; i < rows.length; i++) {
      const [block, ...columns] = rows[i]!;
      const [time, open, high, low, close, volume] = columns.map((bytes) => float64s(bytes));
      let c: Columns = { time: time!, open: open!, high: high!, low: low!, close: close!, volume: volume! };
      const n = c.time.length;
      if (i === rows.length - 1) {
        // The series' newest bar leaves its block for the tail.
        tail = sliceColumns(c, n - 1, n);
        c = sliceColumns(c, 0, n - 1);
      }
      if (c.time.length === 0) continue;
      yield { kind: "v4-block", series, block: Number(block), columns: c };
      sealed = Number(block);
    }
    if (tail) yield { kind: "v4-series", series, sealedBlock: sealed, tail };
  }
  yield { kind: "v4-swap" };
  const derived = (yield { kind: "v4-derived" }) as [string, string][];
  const byMarket = new Map<string, string[]>();
  for (const [market, symbol] of derived) {
    if (sessionOf(market) !== "forex") continue;
    byMarket.set(market, [...(byMarket.get(market) ?? []), symbol]);
  }
  for (const [market, symbols] of byMarket) yield* rederiveSymbols(market, symbols);
}
