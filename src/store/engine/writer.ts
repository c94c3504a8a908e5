/**
 * The one write path of the stores (import, seed, `data sync`, `POST /xql/bars`, deletes): merges
 * bars into a series' blocks and tail, seals tails, derives coarser timeframes, and says what
 * changed, the same way on SQLite and PostgreSQL (see `io.ts`). Per series it picks the cheapest
 * path that is exact:
 *
 * - a new series (or one replaced whole) is packed straight into blocks, nothing read;
 * - a few bars at or after the tail's first bar (an append, a bar still in progress) merge into
 *   the tail, which is sealed into its block when it grows past its limit (reading that block
 *   once); the derived timeframes of an append fold the new bars into their last bar;
 * - anything else (an overlap in the past, a large append) reads the blocks the write spans in
 *   windows and rewrites them; derived periods the write touched are aggregated again from the
 *   finer bars over those periods (or wholly when the finest timeframe changed).
 *
 * Symbols are worked on in groups whose reads go to the backend together (one round trip per
 * step of a group on PostgreSQL), and writes are sent in batches.
 */
import type { Timeframe } from "../../types.js";
import type { CatalogRow, ReadBlock } from "../blocks.js";
import type { BlockRange, Engine } from "./io.js";
import type { CatalogWrite } from "./catalog-cache.js";
import type { Incoming, SymbolWrite, TouchedSeries } from "../store.js";
import { GROUP_SYMBOLS, type Task, WriteContext } from "./context.js";
import { RangeReplacer } from "./range.js";
import { dropSeries } from "./series.js";
import { rederive, startSymbol } from "./symbol-task.js";

export type { Incoming, SymbolWrite, TouchedSeries };

/** What a write did. */
export interface WriteOutcome {
  /** Bars written to imported timeframes. */
  written: number;
  /** Of those, bars that replaced a stored bar of the same time. */
  replaced: number;
  /** Distinct (market, symbol) pairs written. */
  symbols: number;
  /** Every series changed, derived ones included. */
  touched: TouchedSeries[];
}

const PAUSE = { kind: "pause" } as const;

/**
 * Runs tasks side by side (a pause after each series' step): their reads go to the backend
 * together, after the writes pending before them. A task not there (undefined) was done when
 * it was made (an append): the writes it left go out once they fill a batch.
 */
function* runTasks(ctx: WriteContext, tasks: readonly (Task | undefined)[]): Engine<void> {
  let waiting: { task: Task; ranges: readonly BlockRange[] }[] = [];
  for (const task of tasks) {
    if (task) {
      const step = task.next();
      if (!step.done) waiting.push({ task, ranges: step.value });
    } else if (ctx.full) yield* ctx.flush();
    yield PAUSE;
  }
  while (waiting.length > 0) {
    yield* ctx.flush();
    const reads = waiting.flatMap((w) => w.ranges);
    const results = reads.length > 0 ? ((yield { kind: "blocks", reads }) as ReadBlock[][]) : [];
    const next: typeof waiting = [];
    let at = 0;
    for (const { task, ranges } of waiting) {
      const step = task.next(results.slice(at, at + ranges.length));
      at += ranges.length;
      if (!step.done) next.push({ task, ranges: step.value });
      yield PAUSE;
    }
    waiting = next;
  }
}

/** Rows of the catalog per symbol and timeframe: those `catalog` holds (not to be changed), the others read. */
function* catalogOf(market: string, symbols: readonly string[], catalog?: CatalogWrite): Engine<Map<string, ReadonlyMap<Timeframe, CatalogRow>>> {
  const out = new Map<string, ReadonlyMap<Timeframe, CatalogRow>>();
  const read = new Map<string, Map<Timeframe, CatalogRow>>();
  for (const symbol of symbols) {
    const held = catalog?.held(market, symbol);
    if (held) out.set(symbol, held);
    else {
      const rows = new Map<Timeframe, CatalogRow>();
      out.set(symbol, rows);
      read.set(symbol, rows);
    }
  }
  if (read.size === 0) return out;
  const missing = [...read.keys()];
  const rows = (yield { kind: "catalog", market, symbols: missing }) as CatalogRow[];
  for (const row of rows) read.get(row.symbol)?.set(row.timeframe, row);
  catalog?.read(market, missing, rows);
  return out;
}

/**
 * Writes bars to many series: the store's one write path. `onProgress` hears the bars written so
 * far, group by group; `catalog` serves the catalog rows the store handle holds and hears what
 * the write read and changed.
 */
export function* writeBars(writes: readonly SymbolWrite[], onProgress?: (written: number) => void, catalog?: CatalogWrite): Engine<WriteOutcome> {
  const ctx = new WriteContext(catalog);
  const byMarket = new Map<string, SymbolWrite[]>();
  for (const write of writes) {
    const list = byMarket.get(write.market);
    if (list) list.push(write);
    else byMarket.set(write.market, [write]);
  }
  let symbols = 0;
  for (const [market, list] of byMarket) {
    symbols += list.length;
    /** The appends' tails to seal into blocks they continue: run once every symbol of the market is done. */
    const seals: Task[] = [];
    for (let g = 0; g < list.length; g += GROUP_SYMBOLS) {
      const group = list.slice(g, g + GROUP_SYMBOLS);
      const rows = yield* catalogOf(market, group.map((w) => w.symbol), catalog);
      yield* runTasks(ctx, group.map((write) => startSymbol(ctx, write, rows.get(write.symbol)!, seals)));
      onProgress?.(ctx.written);
    }
    yield* runTasks(ctx, seals);
  }
  yield* ctx.flush();
  return { written: ctx.written, replaced: ctx.replaced, symbols, touched: ctx.touched() };
}

/** Which bars {@link deleteBars} removes: imported timeframes of one symbol in one market. */
export interface DeleteRequest {
  market: string;
  symbol: string;
  /** Only this timeframe; default every imported one. */
  timeframe?: Timeframe;
  /** Only bars opening at or after this time. */
  from?: number;
}

/**
 * Removes bars of one symbol's imported timeframes (all, or from `from` on); its derived
 * timeframes are then derived again wholly from the finest imported timeframe left, or removed
 * when none is left. Resolves to the bars removed and what changed.
 */
export function* deleteBars(request: DeleteRequest): Engine<{ deleted: number; touched: TouchedSeries[] }> {
  const ctx = new WriteContext();
  const catalog = yield* catalogOf(request.market, [request.symbol]);
  const rows = new Map(catalog.get(request.symbol)!);
  let deleted = 0;
  const from = request.from ?? Number.NEGATIVE_INFINITY;
  function* task(): Task {
    for (const [tf, row] of [...rows]) {
      if (row.derived || (request.timeframe !== undefined && request.timeframe !== tf)) continue;
      if (from <= row.firstTime) {
        deleted += row.bars;
        dropSeries(ctx, row);
        rows.delete(tf);
        continue;
      }
      if (from > row.lastTime) continue;
      const before = row.bars;
      const replacer = new RangeReplacer(ctx, row, from, Number.MAX_SAFE_INTEGER);
      yield* replacer.begin();
      const next = yield* replacer.end();
      deleted += before - (next?.bars ?? 0);
      if (next) rows.set(tf, next);
      else rows.delete(tf);
    }
    if (deleted === 0) return;
    yield* rederive(ctx, request.market, request.symbol, rows);
  }
  yield* runTasks(ctx, [task()]);
  yield* ctx.flush();
  return { deleted, touched: ctx.touched() };
}

/** Derives every derived timeframe of the given symbols again, wholly (a schema change of the derivation rules). */
export function* rederiveSymbols(market: string, symbols: readonly string[]): Engine<TouchedSeries[]> {
  const ctx = new WriteContext();
  for (let g = 0; g < symbols.length; g += GROUP_SYMBOLS) {
    const group = symbols.slice(g, g + GROUP_SYMBOLS);
    const catalog = yield* catalogOf(market, group);
    yield* runTasks(ctx, group.map((symbol) => rederive(ctx, market, symbol, new Map(catalog.get(symbol)!))));
  }
  yield* ctx.flush();
  return ctx.touched();
}
