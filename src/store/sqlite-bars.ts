/**
 * The embedded store's bars on the version-4 layout (`blocks.ts`): the SQL that answers the
 * storage engine's requests (`engine/io.ts`) synchronously inside a write's transaction, the
 * latest-bars read, and the log of what each write touched (for other processes' readers).
 */
import { alignmentCut } from "../alignment.js";
import type Database from "better-sqlite3";
import type { Timeframe } from "../types.js";
import { TIMEFRAME_MS } from "../types.js";
import { type BlockRow, type CatalogRow, type ReadBlock, decodeColumns, orderedSeries, readTail } from "./blocks.js";
import type { BlockRange, IoRequest, StoreChanges } from "./engine/io.js";
import { type BlockSpan, LatestAssembler, type LatestRow, RowBlocks, assembleSince, blocksSince, blocksWanted, shortOf, wholeSpan } from "./engine/reader.js";
import type { TouchedSeries } from "./engine/writer.js";
import type { LatestBarsRequest, SymbolBars } from "./store.js";
import { CHANGES_KEPT, decodeTouched, encodeTouched } from "./changes.js";

type CatalogSqlRow = [string, Timeframe, string, number, number, number, number, number | null, Uint8Array, number];

const CATALOG_COLUMNS = "market, timeframe, symbol, derived, bars, first_time, last_time, sealed_block, tail";

/** A catalog row read (the properties and their order those `catalogRowOf` gives, blocks.ts: one shape for every row). */
function catalogRow(r: CatalogSqlRow): CatalogRow {
  return {
    market: r[0],
    timeframe: r[1],
    symbol: r[2],
    derived: r[3] === 1,
    bars: r[4],
    firstTime: r[5],
    lastTime: r[6],
    sealedBlock: r[7],
    tail: readTail(r[8]),
    place: r[9],
  };
}


/** Statements on the version-4 tables of one connection. */
export class SqliteBars {
  private readonly stmt;

  constructor(db: Database.Database) {
    const where = "market = ? AND timeframe = ? AND symbol = ? AND block BETWEEN ? AND ?";
    this.stmt = {
      catalogOf: db.prepare(`SELECT ${CATALOG_COLUMNS}, id FROM series WHERE market = ? AND symbol = ?`).raw(true),
      blocks: db.prepare(`SELECT block, n, bars FROM bar_blocks WHERE ${where} ORDER BY block`).raw(true),
      newest: db.prepare(`SELECT block, n, bars FROM bar_blocks WHERE ${where} ORDER BY block DESC LIMIT 1`).raw(true),
      oldest: db.prepare(`SELECT block, n, bars FROM bar_blocks WHERE ${where} ORDER BY block LIMIT 1`).raw(true),
      counts: db.prepare(`SELECT block, n FROM bar_blocks WHERE ${where} ORDER BY block`).raw(true),
      deleteBlocks: db.prepare(`DELETE FROM bar_blocks WHERE ${where}`),
      insertBlock: db.prepare("INSERT INTO bar_blocks (market, timeframe, symbol, block, n, bars) VALUES (?, ?, ?, ?, ?, ?)"),
      rewriteBlock: db.prepare("UPDATE bar_blocks SET n = ?, bars = ? WHERE market = ? AND timeframe = ? AND symbol = ? AND block = ?"),
      deleteCatalog: db.prepare("DELETE FROM series WHERE market = ? AND timeframe = ? AND symbol = ?"),
      // A catalog row is updated in place where it exists (most writes: appends), else inserted:
      // by its rowid when the row read or written before says it (the key checked too, for a
      // rowid is reused after a delete), else by its key; an upsert looked the key up twice.
      updatePlace: db.prepare(
        "UPDATE series SET derived = ?, bars = ?, first_time = ?, last_time = ?, sealed_block = ?, tail = ? WHERE id = ? AND market = ? AND timeframe = ? AND symbol = ?",
      ),
      updateCatalog: db.prepare(
        "UPDATE series SET derived = ?, bars = ?, first_time = ?, last_time = ?, sealed_block = ?, tail = ? WHERE market = ? AND timeframe = ? AND symbol = ?",
      ),
      insertCatalog: db.prepare(`INSERT INTO series (${CATALOG_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      sinceRow: db.prepare("SELECT sealed_block, tail FROM series WHERE market = ? AND timeframe = ? AND symbol = ?").raw(true),
      // One statement for every symbol's span (a JSON array of [symbol, from, to]), the spans
      // driving the index lookups (CROSS JOIN keeps that order): per-symbol statements cost twice
      // as much for a market.
      spanBlocks: db
        .prepare(
          `SELECT j.key, b.block, b.n, b.bars FROM json_each(?) j CROSS JOIN bar_blocks b
           ON b.market = ? AND b.timeframe = ? AND b.symbol = j.value ->> 0 AND b.block BETWEEN j.value ->> 1 AND j.value ->> 2`,
        )
        .raw(true),
      latestRows: db.prepare("SELECT symbol, bars, first_time, last_time, sealed_block, tail FROM series WHERE market = ? AND timeframe = ? ORDER BY symbol").raw(true),
      lastTimes: db.prepare("SELECT symbol, last_time FROM series WHERE market = ? AND timeframe = ?").raw(true),
      logChange: db.prepare("INSERT INTO changes (version, touched) VALUES (?, ?)"),
      trimChanges: db.prepare("DELETE FROM changes WHERE version <= ?"),
      changesSince: db.prepare("SELECT version, touched FROM changes WHERE version > ? ORDER BY version").raw(true),
      oldestChange: db.prepare("SELECT min(version) FROM changes").pluck(),
    };
  }

  /** Answers one request of the storage engine (inside the caller's transaction). */
  answer(request: IoRequest): unknown {
    switch (request.kind) {
      case "catalog": {
        const out: CatalogRow[] = [];
        for (const symbol of request.symbols) {
          for (const r of this.stmt.catalogOf.all(request.market, symbol) as CatalogSqlRow[]) out.push(catalogRow(r));
        }
        return out;
      }
      case "blocks":
        return request.reads.map((range) => this.readBlocks(range));
      case "write":
        this.write(request.changes);
        return undefined;
      case "pause":
        return undefined;
      default: {
        const never: never = request;
        throw new Error(`internal: unknown engine request ${JSON.stringify(never)}`);
      }
    }
  }

  private readBlocks(range: BlockRange): ReadBlock[] {
    const args = [range.market, range.timeframe, range.symbol, range.from, range.to];
    if (range.counts) {
      return (this.stmt.counts.all(...args) as [number, number][]).map(([block, n]) => ({ block, n, bytes: EMPTY }));
    }
    const statement = range.newest ? this.stmt.newest : range.oldest ? this.stmt.oldest : this.stmt.blocks;
    return (statement.all(...args) as [number, number, Uint8Array][]).map(([block, n, bytes]) => ({ block, n, bytes }));
  }

  private write(changes: StoreChanges): void {
    const inPlace = rewrittenInPlace(changes);
    changes.deleteBlocks.forEach((r, i) => {
      if (!inPlace.deletes.has(i)) this.stmt.deleteBlocks.run(r.market, r.timeframe, r.symbol, r.from, r.to);
    });
    changes.putBlocks.forEach((b, i) => {
      if (inPlace.puts.has(i) && this.stmt.rewriteBlock.run(b.n, b.bytes, b.market, b.timeframe, b.symbol, b.block).changes > 0) return;
      insertBlock(this.stmt.insertBlock, b);
    });
    for (const k of changes.deleteCatalog) this.stmt.deleteCatalog.run(k.market, k.timeframe, k.symbol);
    for (const r of changes.putCatalog) {
      const derived = r.derived ? 1 : 0;
      // The tail's own array: the driver binds any typed array's bytes as a BLOB (a Buffer view
      // per row was 40,000 objects an append for the collector).
      const tail = r.tail;
      if (r.place !== undefined && this.stmt.updatePlace.run(derived, r.bars, r.firstTime, r.lastTime, r.sealedBlock, tail, r.place, r.market, r.timeframe, r.symbol).changes > 0) continue;
      if (this.stmt.updateCatalog.run(derived, r.bars, r.firstTime, r.lastTime, r.sealedBlock, tail, r.market, r.timeframe, r.symbol).changes > 0) continue;
      // The row object goes on into the handle's catalog cache: the next write finds it by this.
      r.place = Number(this.stmt.insertCatalog.run(r.market, r.timeframe, r.symbol, derived, r.bars, r.firstTime, r.lastTime, r.sealedBlock, tail).lastInsertRowid);
    }
  }

  /** Records what the write of `version` touched, keeping the last {@link CHANGES_KEPT} writes. */
  logChange(version: number, touched: readonly TouchedSeries[]): void {
    this.stmt.logChange.run(version, encodeTouched(touched));
    this.stmt.trimChanges.run(version - CHANGES_KEPT);
  }

  /** The writes after `version`: what they touched, or null when the log no longer reaches back that far. */
  changesSince(version: number): { version: number; touched: TouchedSeries[] }[] | null {
    const oldest = this.stmt.oldestChange.get() as number | null;
    const rows = this.stmt.changesSince.all(version) as [number, string][];
    if (rows.length > 0 && (oldest === null || oldest > version + 1)) return null;
    if (rows.length > 0 && rows[0]![0] !== version + 1) return null;
    return rows.map(([v, text]) => ({ version: v, touched: decodeTouched(text) }));
  }

  /** See `BarStore.barsSince`; inside the caller's read transaction. */
  barsSince(market: string, timeframe: Timeframe, since: readonly { symbol: string; from: number }[]): SymbolBars[] {
    const out: SymbolBars[] = [];
    for (const { symbol, from } of since) {
      const found = this.stmt.sinceRow.get(market, timeframe, symbol) as [number | null, Uint8Array] | undefined;
      if (!found) continue;
      const tail = decodeColumns(found[1]);
      const range = blocksSince({ sealedBlock: found[0], tail }, timeframe, from);
      const blocks = range ? this.readBlocks({ market, timeframe, symbol, from: range.from, to: range.to }) : [];
      const bars = assembleSince(tail, blocks, from);
      if (bars.time.length > 0) out.push({ symbol, bars });
    }
    return out;
  }

  /** See {@link BarStore.latestBars} (and `latestBarsWithRoom` for `room`); inside the caller's read transaction. */
  latestBars(request: LatestBarsRequest, room = 0): SymbolBars[] {
    const { market, timeframe, baseTimeframe, count } = request;
    const series = orderedSeries(request.series);
    const base = timeframe === baseTimeframe;
    const want = base ? count : count + 1;
    const baseClose = base ? undefined : new Map((this.stmt.lastTimes.all(market, baseTimeframe) as [string, number][]));
    const only = request.symbols ? new Set(request.symbols) : undefined;
    const rows: LatestRow[] = [];
    for (const [symbol, bars, firstTime, lastTime, sealedBlock, tail] of this.stmt.latestRows.all(market, timeframe) as [string, number, number, number, number | null, Uint8Array][]) {
      if (only && !only.has(symbol)) continue;
      let cut = Number.POSITIVE_INFINITY;
      if (baseClose) {
        const last = baseClose.get(symbol);
        // A symbol without the base timeframe has no base close to cut at: no bars for this source.
        if (last === undefined) continue;
        cut = alignmentCut(last, TIMEFRAME_MS[baseTimeframe]);
      }
      rows.push({ symbol, bars, firstTime, lastTime, sealedBlock, tail: decodeColumns(tail), cut });
    }
    const assembler = new LatestAssembler(rows, series, want, room);
    const spans = rows.map((row) => blocksWanted(row, timeframe, want));
    // A symbol whose blocks are sparser than assumed is read again over all its blocks.
    const short: number[] = [];
    this.spanBlocks(market, timeframe, rows, spans, (r, blocks) => {
      if (shortOf(rows[r]!, timeframe, blocks, spans[r]!, want)) short.push(r);
      else assembler.put(r, blocks);
    });
    if (short.length > 0) {
      const whole: (BlockSpan | undefined)[] = rows.map(() => undefined);
      for (const r of short) whole[r] = wholeSpan(rows[r]!, timeframe, spans[r]!);
      this.spanBlocks(market, timeframe, rows, whole, (r, blocks) => assembler.put(r, blocks));
    }
    return assembler.finish();
  }

  /**
   * Reads the blocks numbered in each row's span (rows without one are skipped) and hands each
   * row's to `each`, newest first, as soon as they are read: one statement for every row.
   */
  private spanBlocks(
    market: string,
    timeframe: Timeframe,
    rows: readonly LatestRow[],
    spans: readonly (BlockSpan | undefined)[],
    each: (row: number, blocks: ReadBlock[]) => void,
  ): void {
    const asked = spans.flatMap((span, i) => (span ? [i] : []));
    if (asked.length === 0) return;
    const json = JSON.stringify(asked.map((i) => [rows[i]!.symbol, spans[i]!.from, spans[i]!.to]));
    // CROSS JOIN keeps the spans the outer loop: each span's rows come together, in order, and
    // the index gives its blocks oldest first.
    const byRow = new RowBlocks(asked, each, true);
    for (const [k, block, n, bytes] of this.stmt.spanBlocks.iterate(json, market, timeframe) as IterableIterator<[number, number, number, Uint8Array]>) {
      byRow.add(asked[k]!, { block, n, bytes });
    }
    byRow.end();
  }
}

const EMPTY = new Uint8Array(0);

/**
 * The blocks a batch deletes alone and puts again (a tail sealed into the block it continues:
 * about 650 of an append to 10,000 symbols): rewritten in place by their key, one statement
 * where a delete and an insert each changed the table and its key's index. By index in the
 * batch's lists: the deletes to skip, the puts to rewrite (inserted when nothing was there).
 */
function rewrittenInPlace(changes: StoreChanges): { deletes: Set<number>; puts: Set<number> } {
  const deletes = new Set<number>();
  const puts = new Set<number>();
  if (changes.deleteBlocks.length === 0 || changes.putBlocks.length === 0) return { deletes, puts };
  const single = new Map<string, number>();
  changes.deleteBlocks.forEach((r, i) => {
    if (r.from === r.to) single.set(`${r.market}\u0000${r.timeframe}\u0000${r.symbol}\u0000${r.from}`, i);
  });
  if (single.size === 0) return { deletes, puts };
  changes.putBlocks.forEach((b, i) => {
    const key = `${b.market}\u0000${b.timeframe}\u0000${b.symbol}\u0000${b.block}`;
    const d = single.get(key);
    if (d === undefined) return;
    // One put per deleted block: a second put of the same block (never made) would be inserted.
    single.delete(key);
    deletes.add(d);
    puts.add(i);
  });
  return { deletes, puts };
}

function insertBlock(statement: Database.Statement, b: BlockRow): void {
  statement.run(b.market, b.timeframe, b.symbol, b.block, b.n, b.bytes);
}
