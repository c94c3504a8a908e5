/**
 * Everything one write does to one symbol (\`symbolTask\`): its timeframes written by the
 * cheapest path, then its derived timeframes folded (an append) or aggregated again over the
 * periods the write touched (\`deriveJob\`).
 */
import { type Timeframe, TIMEFRAMES } from "../../types.js";
import { BarAggregator } from "../../sessions/aggregate.js";
import { periodRange } from "../../sessions/periods.js";
import { type CatalogRow, type Columns, type SeriesKey, type Tail, tailFirst, tailLimit } from "../blocks.js";
import { type DeriveJob, planDerivation } from "../derive.js";
import type { Incoming, SymbolWrite } from "../store.js";
import { type Step, TAIL_WRITE_MAX, type Task, WriteContext } from "./context.js";
import { BlockBuilder, collect, mergeTail, replaceLast } from "./packing.js";
import { RangeReplacer, streamSeries } from "./range.js";
import { catalogRow, newRow, writeNew, dropSeries, writeTail, writeMerge, settleTail } from "./series.js";

/**
 * Starts what one write does to one symbol: an append (the usual write) is done here and now,
 * without a task (undefined), except the tails it grows past their limit into a block they
 * continue, which must be read first: those seals go to `seals`, for the write to run after all
 * its symbols (their reads in one request, not one per group of symbols: on PostgreSQL each
 * read waits for the rows in flight). Anything else is a task. `held`: the symbol's catalog
 * rows as the write found them (never changed here).
 */
export function startSymbol(ctx: WriteContext, write: SymbolWrite, held: ReadonlyMap<Timeframe, CatalogRow>, seals: Task[]): Task | undefined {
  const only = write.incoming.length === 1 ? write.incoming[0]! : undefined;
  const onlyRow = only && held.get(only.timeframe);
  if (only && onlyRow && !onlyRow.derived && !only.replace && only.count > 0 && only.count <= TAIL_WRITE_MAX && only.lo > onlyRow.lastTime && coarserHeld(only.timeframe, held)) {
    const sealing = appendNow(ctx, write.market, only, onlyRow, held);
    if (sealing) seals.push(sealing);
    return undefined;
  }
  return symbolTask(ctx, write, new Map(held));
}

/** Every timeframe coarser than `tf` has a row (a coarse timeframe missing is derived wholly, by the general path). */
function coarserHeld(tf: Timeframe, held: ReadonlyMap<Timeframe, CatalogRow>): boolean {
  for (let c = TIMEFRAMES.indexOf(tf) + 1; c < TIMEFRAMES.length; c++) if (!held.has(TIMEFRAMES[c]!)) return false;
  return true;
}

/** Everything one write does to one symbol: its timeframes written, then the derived ones. */
export function* symbolTask(ctx: WriteContext, write: SymbolWrite, rows: Map<Timeframe, CatalogRow>): Task {
  const { market, symbol } = write;
  const before = new Map<Timeframe, { derived: boolean }>();
  for (const [tf, row] of rows) before.set(tf, { derived: row.derived });
  const wholly = new Map<Timeframe, { wholly: boolean }>();
  /** Per timeframe written: the bars are all of it (new or replaced), or they follow everything it held. */
  const shape = new Map<Timeframe, "whole" | "append" | "merge">();
  const incomingOf = new Map<Timeframe, Incoming>();
  let emptied = false;
  // Derivation planned up front: when the finest timeframe is written whole and every derived one
  // is rebuilt wholly from it, they are all built in the one pass that writes it.
  const planned = new Map<Timeframe, { wholly: boolean }>();
  for (const incoming of write.incoming) {
    if (incoming.count > 0) planned.set(incoming.timeframe, { wholly: incoming.replace || rows.get(incoming.timeframe)?.derived === true });
  }
  const jobs = planDerivation(before, planned);
  const fine = jobs[0]?.fine;
  const fineRow = fine === undefined ? undefined : rows.get(fine);
  const onePass = fine !== undefined && jobs.every((job) => job.full) && (!fineRow || planned.get(fine)?.wholly === true);
  const done = new Set<Timeframe>();
  for (const incoming of [...write.incoming].sort((a, b) => TIMEFRAMES.indexOf(a.timeframe) - TIMEFRAMES.indexOf(b.timeframe))) {
    const tf = incoming.timeframe;
    const key: SeriesKey = { market, timeframe: tf, symbol };
    let row = rows.get(tf);
    if (incoming.count === 0) {
      // Nothing to write; a replace by nothing drops the series, and what it fed is derived again.
      if (incoming.replace && row) {
        dropSeries(ctx, row);
        rows.delete(tf);
        emptied = true;
      }
      continue;
    }
    const clear = incoming.replace || row?.derived === true;
    if (row && clear) {
      dropSeries(ctx, row);
      row = undefined;
    }
    wholly.set(tf, { wholly: clear });
    incomingOf.set(tf, incoming);
    ctx.written += incoming.count;
    if (!row) {
      shape.set(tf, "whole");
      const derive = onePass && tf === fine ? jobs.map((job) => job.coarse) : [];
      for (const coarse of derive) done.add(coarse);
      const created = yield* writeNew(ctx, key, false, incoming.chunks(), derive, rows);
      if (created) rows.set(tf, created);
      continue;
    }
    shape.set(tf, incoming.lo > row.lastTime ? "append" : "merge");
    const result =
      incoming.count <= TAIL_WRITE_MAX && incoming.lo >= tailFirst(row.tail)
        ? yield* writeTail(ctx, row, collect(incoming.chunks(), incoming.count))
        : yield* writeMerge(ctx, row, incoming);
    ctx.replaced += result.ties;
    if (result.row) rows.set(tf, result.row);
  }
  if (emptied) {
    yield* rederive(ctx, market, symbol, rows);
    return;
  }
  for (const job of planDerivation(before, wholly)) {
    if (done.has(job.coarse)) continue;
    yield* deriveJob(ctx, market, symbol, job, rows, incomingOf.get(job.fine), shape.get(job.fine));
  }
}

/**
 * The usual write, on its own path: a few bars after everything one imported series holds (the
 * next bar of a feed), merged into its tail, then folded into the last bar of each timeframe
 * derived from it. What the general path plans for this case, without its bookkeeping: the
 * timeframe stays imported and keeps its place, so its derived timeframes are updated over the
 * periods the bars touched, and only when it is the symbol's finest imported timeframe (else the
 * finest feeds them, unchanged).
 *
 * Done in plain calls, not as a task: an append to 10,000 symbols runs this 10,000 times, and
 * the generators of a task (one per series and step, each with a frame for all its locals) were
 * a third of what the append allocated. Only a tail outgrowing its limit into a block it
 * continues needs a read; those seals are returned as one task (undefined when there is none).
 */
function appendNow(ctx: WriteContext, market: string, incoming: Incoming, row: CatalogRow, rows: ReadonlyMap<Timeframe, CatalogRow>): Task | undefined {
  const tf = incoming.timeframe;
  ctx.written += incoming.count;
  const bars = collect(incoming.chunks(), incoming.count);
  const { merged, ties } = mergeTail(row.tail, bars);
  ctx.replaced += ties;
  ctx.touchOnce(row, bars.time[0]!);
  let seals: Step<CatalogRow>[] | undefined;
  const sealing = (next: Settled): void => {
    if (!isRow(next)) (seals ??= []).push(next);
  };
  sealing(keepTail(ctx, row, merged, row.bars + (merged.length - row.tail.length) / 6, true));
  const at = TIMEFRAMES.indexOf(tf);
  for (let f = 0; f < at; f++) if (rows.get(TIMEFRAMES[f]!)?.derived === false) return seals && allOf(seals);
  for (let c = at + 1; c < TIMEFRAMES.length; c++) {
    const coarseRow = rows.get(TIMEFRAMES[c]!);
    if (coarseRow?.derived === true) sealing(foldAppend(ctx, market, coarseRow, bars, true));
  }
  return seals && allOf(seals);
}

/** A series' new catalog row, sent; or, when its tail outgrew its limit, the step that seals it and gives the row. */
type Settled = CatalogRow | Step<CatalogRow>;

const isRow = (settled: Settled): settled is CatalogRow => !("next" in settled);

/**
 * A derived series whose finer bars gained `bars`, all after every bar it was built from: they
 * are folded into its last bar. The first coarse bar out is always that last one (folded,
 * closed or still open): it replaces it, any later ones follow.
 */
function foldAppend(ctx: WriteContext, market: string, coarseRow: CatalogRow, bars: Columns, once: boolean): Settled {
  const aggregator = ctx.aggregator(coarseRow.timeframe, market);
  const t = coarseRow.tail;
  const k = t.length / 6;
  const n = k - 1;
  aggregator.resume({ time: t[n]!, open: t[k + n]!, high: t[2 * k + n]!, low: t[3 * k + n]!, close: t[4 * k + n]!, volume: t[5 * k + n]! });
  const out = ctx.folded;
  out.length = 0;
  for (let i = 0; i < bars.time.length; i++) {
    const closed = aggregator.addAt(bars, i);
    if (closed) out.pushBar(closed);
  }
  out.pushBar(aggregator.finish()!);
  if (once) ctx.touchOnce(coarseRow, t[n]!);
  else ctx.touch(coarseRow, t[n]!);
  return keepTail(ctx, coarseRow, replaceLast(t, out, out.length), coarseRow.bars + out.length - 1, once);
}

/**
 * A series whose tail became `tail` (every bar from the old tail's first on; `bars` in all):
 * while the tail fits its limit, the new row is sent here and now; else {@link settleTail}
 * seals it (reading the newest block when the sealed bars continue it).
 */
function keepTail(ctx: WriteContext, row: CatalogRow, tail: Tail, bars: number, once: boolean): Settled {
  const n = tail.length / 6;
  if (n > tailLimit(row)) return settleTail(ctx, row, tail, bars);
  const next = catalogRow(row, bars, row.firstTime, tail[n - 1]!, row.sealedBlock, tail);
  if (once) ctx.putOnce(next);
  else ctx.putCatalog(next);
  return next;
}

function* allOf(steps: readonly Step<CatalogRow>[]): Task {
  for (const step of steps) yield* step;
}

/** Rebuilds one derived timeframe of a symbol after its finest timeframe was written. */
export function* deriveJob(
  ctx: WriteContext,
  market: string,
  symbol: string,
  job: DeriveJob,
  rows: Map<Timeframe, CatalogRow>,
  incoming: Incoming | undefined,
  shape: "whole" | "append" | "merge" | undefined,
): Task {
  const key: SeriesKey = { market, timeframe: job.coarse, symbol };
  const fineRow = rows.get(job.fine);
  let coarseRow = rows.get(job.coarse);
  if (coarseRow?.derived === false) return;
  if (!fineRow) {
    if (coarseRow) dropSeries(ctx, coarseRow);
    rows.delete(job.coarse);
    return;
  }
  if (job.full || !coarseRow || !incoming) {
    // Wholly: from the incoming bars when they are all the fine bars, else from the store.
    if (coarseRow) dropSeries(ctx, coarseRow);
    const aggregator = new BarAggregator(job.coarse, market);
    const builder = new BlockBuilder(ctx, key);
    const visit = (c: Columns, i: number): void => {
      const closed = aggregator.addAt(c, i);
      if (closed) builder.push(closed.time, closed.open, closed.high, closed.low, closed.close, closed.volume);
    };
    if (shape === "whole" && incoming) {
      for (const c of incoming.chunks()) {
        for (let i = 0; i < c.time.length; i++) visit(c, i);
        if (ctx.full) yield [];
      }
    } else {
      yield* streamSeries(fineRow, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, visit);
    }
    const last = aggregator.finish();
    if (last) builder.push(last.time, last.open, last.high, last.low, last.close, last.volume);
    const row = newRow(key, true, builder, builder.finish(true));
    if (row) {
      ctx.putCatalog(row);
      rows.set(job.coarse, row);
      ctx.touch(key, row.firstTime);
    } else rows.delete(job.coarse);
    return;
  }
  if (shape === "append" && incoming.count <= TAIL_WRITE_MAX) {
    const folded = foldAppend(ctx, market, coarseRow, collect(incoming.chunks(), incoming.count), false);
    rows.set(job.coarse, isRow(folded) ? folded : yield* folded);
    return;
  }
  // The periods the fine span touched, aggregated again from every fine bar they gather.
  const first = periodRange(incoming.lo, job.coarse, market);
  const last = periodRange(incoming.hi, job.coarse, market);
  const replacer = new RangeReplacer(ctx, coarseRow, first.start, last.start);
  yield* replacer.begin();
  const aggregator = new BarAggregator(job.coarse, market);
  yield* streamSeries(fineRow, first.from, last.to, (c, i) => {
    const closed = aggregator.addAt(c, i);
    if (closed) replacer.push(closed.time, closed.open, closed.high, closed.low, closed.close, closed.volume);
  });
  const final = aggregator.finish();
  if (final) replacer.push(final.time, final.open, final.high, final.low, final.close, final.volume);
  coarseRow = yield* replacer.end();
  if (coarseRow) rows.set(job.coarse, coarseRow);
  else rows.delete(job.coarse);
}

/** Derives every derived timeframe of one symbol again, wholly, from its finest imported timeframe (or drops them). */
export function* rederive(ctx: WriteContext, market: string, symbol: string, rows: Map<Timeframe, CatalogRow>): Task {
  const imported = TIMEFRAMES.filter((tf) => rows.get(tf)?.derived === false);
  const fine = imported[0];
  for (const tf of TIMEFRAMES) {
    const row = rows.get(tf);
    if (!row?.derived) continue;
    if (fine === undefined || TIMEFRAMES.indexOf(tf) < TIMEFRAMES.indexOf(fine)) {
      dropSeries(ctx, row);
      rows.delete(tf);
    }
  }
  if (fine === undefined) return;
  for (const coarse of TIMEFRAMES.slice(TIMEFRAMES.indexOf(fine) + 1)) {
    if (rows.get(coarse)?.derived === false) continue;
    yield* deriveJob(ctx, market, symbol, { fine, coarse, full: true }, rows, undefined, undefined);
  }
}

