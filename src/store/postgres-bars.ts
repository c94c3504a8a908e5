/**
 * The scale-out store's bars on the version-4 layout (`blocks.ts`): set-based SQL that answers
 * the storage engine's requests (`engine/io.ts`) on one client inside a write's transaction (one
 * round trip per request, whatever the number of series), the latest-bars read, and the change
 * log. Block rows go in by `COPY … FROM STDIN (FORMAT binary)` when `pg-copy-streams` is
 * installed (an optional peer), else by multi-row INSERTs with one binary parameter per column;
 * the latest-bars read takes them out by `COPY … TO STDOUT (FORMAT binary)` then, else as a
 * query's (hex) text.
 */
import { alignmentCut } from "../alignment.js";
import pg from "pg";
import type { Timeframe } from "../types.js";
import { TIMEFRAME_MS } from "../types.js";
import { type BlockRow, type CatalogRow, type ReadBlock, decodeColumns, orderedSeries, readTail, tailBytes } from "./blocks.js";
import { CHANGES_KEPT, decodeTouched, encodeTouched } from "./changes.js";
import type { BlockRange, IoRequest, StoreChanges } from "./engine/io.js";
import { type BlockSpan, LatestAssembler, type LatestRow, RowBlocks, assembleSince, blocksSince, blocksWanted, shortOf, wholeSpan } from "./engine/reader.js";
import type { LatestBarsRequest, SymbolBars, TouchedSeries } from "./store.js";
import { XqlDataError } from "../errors.js";

/** Something that runs a query: a pool, or a client inside a transaction. */
export interface Queryable {
  query(config: pg.QueryConfig | string, values?: unknown[]): Promise<pg.QueryResult>;
}

const CATALOG_COLUMNS = "market, timeframe, symbol, derived, bars, first_time, last_time, sealed_block, tail";

function catalogRow(r: unknown[]): CatalogRow {
  return {
    market: r[0] as string,
    timeframe: r[1] as Timeframe,
    symbol: r[2] as string,
    derived: Number(r[3]) === 1,
    bars: Number(r[4]),
    firstTime: Number(r[5]),
    lastTime: Number(r[6]),
    sealedBlock: r[7] === null ? null : Number(r[7]),
    tail: readTail(r[8] as Buffer),
    // Every row has the shape `catalogRowOf` gives (blocks.ts).
    place: undefined,
  };
}

/** How a block range is read: every row, the newest, the oldest, or counts only. */
const MODE = { all: 0, newest: 1, oldest: 2, counts: 3 } as const;

async function rows(db: Queryable, text: string, values: unknown[]): Promise<unknown[][]> {
  const result = await db.query({ text, values, rowMode: "array" } as pg.QueryConfig);
  return result.rows as unknown[][];
}

/** `pg-copy-streams`' two directions: a stream into `COPY … FROM STDIN`, and one out of `COPY … TO STDOUT`. */
interface CopyStreams {
  from(text: string): NodeJS.WritableStream;
  to(text: string): NodeJS.ReadableStream;
}

/** The optional COPY stream factories, loaded once (undefined when `pg-copy-streams` is not installed). */
let copyStreams: Promise<CopyStreams | undefined> | undefined;
function loadCopy(): Promise<CopyStreams | undefined> {
  copyStreams ??= import("pg-copy-streams")
    .then((m) => {
      const api = (m as unknown as Partial<CopyStreams>).from ? (m as unknown as CopyStreams) : (m as unknown as { default: CopyStreams }).default;
      return { from: api.from, to: api.to };
    })
    .catch(() => undefined);
  return copyStreams;
}

/** Answers one request of the storage engine on `client` (inside the caller's transaction). */
export async function answer(client: pg.PoolClient, request: IoRequest): Promise<unknown> {
  switch (request.kind) {
    case "catalog": {
      const found = await rows(client, `SELECT ${CATALOG_COLUMNS} FROM series WHERE market = $1 AND symbol = ANY($2::text[])`, [request.market, request.symbols]);
      return found.map(catalogRow);
    }
    case "blocks":
      return readBlocks(client, request.reads);
    case "write":
      await write(client, request.changes);
      return undefined;
    case "pause":
      return undefined;
    default: {
      const never: never = request;
      throw new Error(`internal: unknown engine request ${JSON.stringify(never)}`);
    }
  }
}

async function readBlocks(client: Queryable, reads: readonly BlockRange[]): Promise<ReadBlock[][]> {
  const out: ReadBlock[][] = reads.map(() => []);
  if (reads.length === 0) return out;
  const mode = reads.map((r) => (r.newest ? MODE.newest : r.oldest ? MODE.oldest : r.counts ? MODE.counts : MODE.all));
  const found = await rows(
    client,
    `SELECT r.i, b.block, b.n, CASE WHEN r.mode = 3 THEN NULL ELSE b.bars END
     FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::int[]) WITH ORDINALITY AS r(market, timeframe, symbol, lo, hi, mode, i)
     CROSS JOIN LATERAL (
       SELECT block, n, bars FROM bar_blocks b
       WHERE b.market = r.market AND b.timeframe = r.timeframe AND b.symbol = r.symbol AND b.block BETWEEN r.lo AND r.hi
       ORDER BY CASE WHEN r.mode = 1 THEN -b.block ELSE b.block END
       LIMIT CASE WHEN r.mode IN (1, 2) THEN 1 END
     ) b
     ORDER BY r.i, b.block`,
    [reads.map((r) => r.market), reads.map((r) => r.timeframe), reads.map((r) => r.symbol), reads.map((r) => r.from), reads.map((r) => r.to), mode],
  );
  for (const r of found) {
    const i = Number(r[0]) - 1;
    out[i]!.push({ block: Number(r[1]), n: Number(r[2]), bytes: (r[3] as Buffer | null) ?? EMPTY });
  }
  return out;
}

const EMPTY = Buffer.alloc(0);

async function write(client: pg.PoolClient, changes: StoreChanges): Promise<void> {
  const d = changes.deleteBlocks;
  if (d.length > 0) {
    await client.query(
      `DELETE FROM bar_blocks b USING unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[]) AS r(market, timeframe, symbol, lo, hi)
       WHERE b.market = r.market AND b.timeframe = r.timeframe AND b.symbol = r.symbol AND b.block BETWEEN r.lo AND r.hi`,
      [d.map((r) => r.market), d.map((r) => r.timeframe), d.map((r) => r.symbol), d.map((r) => r.from), d.map((r) => r.to)],
    );
  }
  if (changes.putBlocks.length > 0) await insertBlocks(client, changes.putBlocks);
  const k = changes.deleteCatalog;
  if (k.length > 0) {
    await client.query(
      `DELETE FROM series s USING unnest($1::text[], $2::text[], $3::text[]) AS r(market, timeframe, symbol)
       WHERE s.market = r.market AND s.timeframe = r.timeframe AND s.symbol = r.symbol`,
      [k.map((r) => r.market), k.map((r) => r.timeframe), k.map((r) => r.symbol)],
    );
  }
  const c = changes.putCatalog;
  for (let at = 0; at < c.length; at += CATALOG_ROWS) {
    const part = c.slice(at, at + CATALOG_ROWS);
    // The tails go as one bytea cut by offsets: a bytea[] parameter is sent as text, every
    // byte of every tail spelled out in hex.
    const offsets: number[] = [];
    const lengths: number[] = [];
    let bytes = 0;
    for (const r of part) {
      offsets.push(bytes);
      lengths.push(r.tail.byteLength);
      bytes += r.tail.byteLength;
    }
    await client.query(
      `INSERT INTO series (${CATALOG_COLUMNS})
       SELECT r.market, r.timeframe, r.symbol, r.derived, r.bars, r.first_time, r.last_time, r.sealed_block, substring($9::bytea from r.offset_ + 1 for r.length_)
       FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[], $10::int[], $11::int[])
         AS r(market, timeframe, symbol, derived, bars, first_time, last_time, sealed_block, offset_, length_)
       ON CONFLICT (market, timeframe, symbol) DO UPDATE SET derived = excluded.derived, bars = excluded.bars,
         first_time = excluded.first_time, last_time = excluded.last_time, sealed_block = excluded.sealed_block, tail = excluded.tail`,
      [
        textArray(part.map((r) => r.market)),
        textArray(part.map((r) => r.timeframe)),
        textArray(part.map((r) => r.symbol)),
        numberArray(part.map((r) => (r.derived ? 1 : 0))),
        numberArray(part.map((r) => r.bars)),
        numberArray(part.map((r) => r.firstTime)),
        numberArray(part.map((r) => r.lastTime)),
        numberArray(part.map((r) => r.sealedBlock)),
        Buffer.concat(part.map((r) => tailBytes(r.tail)), bytes),
        numberArray(offsets),
        numberArray(lengths),
      ],
    );
  }
}

/**
 * A `text[]` parameter as PostgreSQL's array literal, made in one join: node-postgres quotes
 * and escapes an array element by element (three per catalog row, 30,000 in a statement of an
 * append), which cost more than the statement's other work on this side.
 */
export function textArray(values: readonly string[]): string {
  if (values.length === 0) return "{}";
  // Only a quote or a backslash needs escaping inside a quoted element.
  if (!/["\\]/.test(values.join(""))) return `{"${values.join('","')}"}`;
  return `{${values.map((v) => `"${v.replace(/["\\]/g, "\\$&")}"`).join(",")}}`;
}

/** A numeric array parameter (integers, null for NULL) as PostgreSQL's array literal, made in one join. */
export function numberArray(values: readonly (number | null)[]): string {
  return `{${values.map((v) => (v === null ? "NULL" : v)).join(",")}}`;
}

/** Catalog rows per statement. */
const CATALOG_ROWS = 10_000;

/** PostgreSQL's binary COPY header: signature, flags, header extension length. */
const COPY_HEADER = Buffer.concat([Buffer.from("PGCOPY\n\xff\r\n\0", "latin1"), Buffer.alloc(8)]);

/** Block rows by binary COPY when available, else by multi-row INSERTs. */
async function insertBlocks(client: pg.PoolClient, blocks: readonly BlockRow[]): Promise<void> {
  const copy = await loadCopy();
  if (copy) {
    const stream = (client as unknown as { query(s: NodeJS.WritableStream): NodeJS.WritableStream }).query(
      copy.from("COPY bar_blocks (market, timeframe, symbol, block, n, bars) FROM STDIN (FORMAT binary)"),
    );
    const done = new Promise<void>((resolve, reject) => {
      stream.on("finish", () => resolve());
      stream.on("error", reject);
    });
    const parts: Buffer[] = [COPY_HEADER];
    let bytes = COPY_HEADER.length;
    const flush = async (): Promise<void> => {
      if (parts.length === 0) return;
      const chunk = Buffer.concat(parts, bytes);
      parts.length = 0;
      bytes = 0;
      if (!stream.write(chunk)) await new Promise((resolve) => stream.once("drain", resolve));
    };
    for (const b of blocks) {
      const row = copyRow(b);
      parts.push(row);
      bytes += row.length;
      if (bytes >= 1 << 20) await flush();
    }
    const trailer = Buffer.alloc(2);
    trailer.writeInt16BE(-1);
    parts.push(trailer);
    bytes += 2;
    await flush();
    stream.end();
    await done;
    return;
  }
  for (let at = 0; at < blocks.length; at += 500) {
    const part = blocks.slice(at, at + 500);
    const tuples: string[] = [];
    const values: unknown[] = [];
    for (const b of part) {
      const p = values.length;
      tuples.push(`($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6})`);
      values.push(b.market, b.timeframe, b.symbol, b.block, b.n, b.bytes);
    }
    await client.query(`INSERT INTO bar_blocks (market, timeframe, symbol, block, n, bars) VALUES ${tuples.join(", ")}`, values);
  }
}

/** One block row in PostgreSQL's binary COPY format: field count, then each field's length and bytes. */
function copyRow(b: BlockRow): Buffer {
  const text = [Buffer.from(b.market), Buffer.from(b.timeframe), Buffer.from(b.symbol)];
  const blobs = [b.bytes];
  let size = 2;
  for (const t of text) size += 4 + t.length;
  size += 4 + 8 + 4 + 4;
  for (const blob of blobs) size += 4 + blob.length;
  const out = Buffer.allocUnsafe(size);
  let at = out.writeInt16BE(6, 0);
  for (const t of text) {
    at = out.writeInt32BE(t.length, at);
    at += t.copy(out, at);
  }
  at = out.writeInt32BE(8, at);
  at = out.writeBigInt64BE(BigInt(b.block), at);
  at = out.writeInt32BE(4, at);
  at = out.writeInt32BE(b.n, at);
  for (const blob of blobs) {
    at = out.writeInt32BE(blob.length, at);
    at += blob.copy(out, at);
  }
  return out;
}

/** Records what the write of `version` touched, keeping the last {@link CHANGES_KEPT} writes. */
export async function logChange(client: pg.PoolClient, version: number, touched: readonly TouchedSeries[]): Promise<void> {
  await client.query("INSERT INTO changes (version, touched) VALUES ($1, $2)", [version, encodeTouched(touched)]);
  await client.query("DELETE FROM changes WHERE version <= $1", [version - CHANGES_KEPT]);
}

/** The data version and the series changed after `version`, or null when the log no longer reaches back that far. */
export async function changesSince(db: Queryable, version: number): Promise<{ version: number; touched: TouchedSeries[] | null }> {
  const found = await rows(
    db,
    `SELECT (SELECT value FROM meta WHERE key = 'data_version'), (SELECT min(version) FROM changes),
       (SELECT coalesce(json_agg(json_build_array(version, touched) ORDER BY version), '[]'::json) FROM changes WHERE version > $1)`,
    [version],
  );
  const [current, oldest, list] = found[0]!;
  const writes = list as [number, string][];
  const now = Number(current);
  if (now === version) return { version: now, touched: [] };
  if (writes.length === 0 || oldest === null || Number(oldest) > version + 1 || Number(writes[0]![0]) !== version + 1 || Number(writes.at(-1)![0]) !== now) {
    return { version: now, touched: null };
  }
  return { version: now, touched: writes.flatMap(([, text]) => decodeTouched(text)) };
}

/** See `BarStore.latestBars` (and `latestBarsWithRoom` for `room`): the catalog rows, then every symbol's newest blocks in one query. */
export async function latestBars(db: Queryable, request: LatestBarsRequest, room = 0): Promise<SymbolBars[]> {
  const { market, timeframe, baseTimeframe, count } = request;
  const series = orderedSeries(request.series);
  const base = timeframe === baseTimeframe;
  const want = base ? count : count + 1;
  const catalog = await rows(
    db,
    base
      ? `SELECT symbol, first_time, last_time, sealed_block, tail, NULL, bars FROM series WHERE market = $1 AND timeframe = $2 ORDER BY symbol COLLATE "C"`
      : `SELECT s.symbol, s.first_time, s.last_time, s.sealed_block, s.tail, b.last_time, s.bars FROM series s
         JOIN series b ON b.market = s.market AND b.timeframe = $3 AND b.symbol = s.symbol
         WHERE s.market = $1 AND s.timeframe = $2 ORDER BY s.symbol COLLATE "C"`,
    base ? [market, timeframe] : [market, timeframe, baseTimeframe],
  );
  const only = request.symbols ? new Set(request.symbols) : undefined;
  const latest: LatestRow[] = [];
  for (const r of catalog) {
    const symbol = r[0] as string;
    if (only && !only.has(symbol)) continue;
    latest.push({
      symbol,
      bars: Number(r[6]),
      firstTime: Number(r[1]),
      lastTime: Number(r[2]),
      sealedBlock: r[3] === null ? null : Number(r[3]),
      tail: decodeColumns(r[4] as Buffer),
      cut: base ? Number.POSITIVE_INFINITY : alignmentCut(Number(r[5]), TIMEFRAME_MS[baseTimeframe]),
    });
  }
  const assembler = new LatestAssembler(latest, series, want, room);
  const spans = latest.map((row) => blocksWanted(row, timeframe, want));
  // A symbol whose blocks are sparser than assumed is read again over all its blocks.
  const short: (BlockSpan | undefined)[] = latest.map(() => undefined);
  await spanBlocks(db, market, timeframe, latest, spans, (r, found) => {
    const span = spans[r];
    if (span && shortOf(latest[r]!, timeframe, found, span, want)) short[r] = wholeSpan(latest[r]!, timeframe, span);
    else assembler.put(r, found);
  });
  if (short.some(Boolean)) await spanBlocks(db, market, timeframe, latest, short, (r, found) => assembler.put(r, found));
  return assembler.finish();
}

/**
 * The blocks of every row with a span, numbered in it, newest first: `onRow(r, blocks)` for each
 * such row, in row order, as soon as its blocks are in (so they can be copied to their place and
 * dropped). Through `COPY … TO STDOUT (FORMAT binary)` when `pg-copy-streams` is installed:
 * node-postgres reads every field of a query's result as text, so a `bytea` comes as hex, twice
 * its bytes and decoded from a string, where a binary COPY hands the bytes over as they are.
 */
async function spanBlocks(
  db: Queryable,
  market: string,
  timeframe: Timeframe,
  latest: readonly LatestRow[],
  spans: readonly (BlockSpan | undefined)[],
  onRow: (r: number, blocks: ReadBlock[]) => void,
): Promise<void> {
  const asked = spans.flatMap((span, i) => (span ? [i] : []));
  if (asked.length === 0) return;
  const copy = await loadCopy();
  if (copy) {
    const text = (values: string[]) => `ARRAY[${values.map((value) => pg.escapeLiteral(value)).join(",")}]::text[]`;
    const ints = (values: number[], type: string) => `ARRAY[${values.map(integerLiteral).join(",")}]::${type}[]`;
    const query = `COPY (SELECT r.i, b.block, b.n, b.bars
      FROM unnest(${text(asked.map((i) => latest[i]!.symbol))}, ${ints(asked.map((i) => spans[i]!.from), "bigint")},
                  ${ints(asked.map((i) => spans[i]!.to), "bigint")}, ${ints(asked, "int")}) AS r(symbol, lo, hi, i)
      JOIN bar_blocks b ON b.market = ${pg.escapeLiteral(market)} AND b.timeframe = ${pg.escapeLiteral(timeframe)} AND b.symbol = r.symbol AND b.block BETWEEN r.lo AND r.hi
      ORDER BY r.i, b.block DESC) TO STDOUT (FORMAT binary)`;
    const stream = (db as unknown as { query(s: NodeJS.ReadableStream): NodeJS.ReadableStream }).query(copy.to(query));
    const byRow = new RowBlocks(asked, onRow);
    for await (const fields of copyTuples(stream as AsyncIterable<Buffer>)) {
      byRow.add(fields[0]!.readInt32BE(0), { block: Number(fields[1]!.readBigInt64BE(0)), n: fields[2]!.readInt32BE(0), bytes: fields[3]! });
    }
    byRow.end();
    return;
  }
  const found = await rows(
    db,
    `SELECT r.i, b.block, b.n, b.bars FROM unnest($3::text[], $4::bigint[], $5::bigint[], $6::int[]) AS r(symbol, lo, hi, i)
     JOIN bar_blocks b ON b.market = $1 AND b.timeframe = $2 AND b.symbol = r.symbol AND b.block BETWEEN r.lo AND r.hi
     ORDER BY r.i, b.block DESC`,
    [market, timeframe, asked.map((i) => latest[i]!.symbol), asked.map((i) => spans[i]!.from), asked.map((i) => spans[i]!.to), asked],
  );
  const byRow = new RowBlocks(asked, onRow);
  for (const r of found) byRow.add(Number(r[0]), { block: Number(r[1]), n: Number(r[2]), bytes: r[3] as Buffer });
  byRow.end();
}

/**
 * The tuples of a `COPY … TO STDOUT (FORMAT binary)` stream, each as its fields' bytes (views
 * of the chunks read, no copy): the header (signature, flags, extension), then per tuple a
 * 16-bit field count and each field's 32-bit length and bytes, until a count of −1.
 */
export async function* copyTuples(stream: AsyncIterable<Buffer>): AsyncGenerator<Buffer[]> {
  let buffer: Buffer = Buffer.alloc(0);
  let at = 0;
  let header = true;
  let ended = false;
  for await (const chunk of stream) {
    if (ended) continue;
    // A tuple cut by the chunk's end waits for the next chunk, joined to it.
    buffer = at < buffer.length ? Buffer.concat([buffer.subarray(at), chunk]) : chunk;
    at = 0;
    if (header) {
      if (buffer.length >= 11 && !buffer.subarray(0, 11).equals(COPY_HEADER.subarray(0, 11))) throw new XqlDataError("store-inconsistent", { problem: "COPY TO STDOUT did not answer in PostgreSQL's binary format" });
      if (buffer.length < 19 || buffer.length < 19 + buffer.readInt32BE(15)) continue;
      at = 19 + buffer.readInt32BE(15);
      header = false;
    }
    for (;;) {
      if (buffer.length - at < 2) break;
      const count = buffer.readInt16BE(at);
      if (count === -1) {
        ended = true;
        break;
      }
      let p = at + 2;
      const fields: Buffer[] = [];
      for (let f = 0; f < count; f++) {
        if (buffer.length - p < 4) break;
        const length = buffer.readInt32BE(p);
        if (length < 0) throw new XqlDataError("store-inconsistent", { problem: "COPY TO STDOUT gave a NULL where the columns are NOT NULL" });
        if (buffer.length - p - 4 < length) break;
        fields.push(buffer.subarray(p + 4, p + 4 + length));
        p += 4 + length;
      }
      if (fields.length < count) break;
      at = p;
      yield fields;
    }
  }
  if (!ended) throw new XqlDataError("store-inconsistent", { problem: "COPY TO STDOUT ended before its trailer" });
}

/** An integer as an SQL literal. */
function integerLiteral(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`internal: an SQL integer literal of ${value}, not a safe integer`);
  return String(value);
}

/** See `BarStore.barsSince`: the catalog rows, then the blocks each needs, in two round trips. */
export async function barsSince(db: Queryable, market: string, timeframe: Timeframe, since: readonly { symbol: string; from: number }[]): Promise<SymbolBars[]> {
  const found = await rows(
    db,
    `SELECT symbol, sealed_block, tail FROM series WHERE market = $1 AND timeframe = $2 AND symbol = ANY($3::text[])`,
    [market, timeframe, since.map((s) => s.symbol)],
  );
  const held = new Map(found.map((r) => [r[0] as string, { sealedBlock: r[1] === null ? null : Number(r[1]), tail: decodeColumns(r[2] as Buffer) }]));
  const wanted = since.filter((s) => held.has(s.symbol));
  const ranges = wanted.map((s) => blocksSince(held.get(s.symbol)!, timeframe, s.from));
  const asked = ranges.map((range, i) => (range ? i : -1)).filter((i) => i >= 0);
  const blocks = await readBlocks(
    db,
    asked.map((i) => ({ market, timeframe, symbol: wanted[i]!.symbol, from: ranges[i]!.from, to: ranges[i]!.to })),
  );
  const byIndex = new Map(asked.map((i, k) => [i, blocks[k]!]));
  const out: SymbolBars[] = [];
  wanted.forEach((s, i) => {
    const bars = assembleSince(held.get(s.symbol)!.tail, byIndex.get(i) ?? [], s.from);
    if (bars.time.length > 0) out.push({ symbol: s.symbol, bars });
  });
  return out;
}
