/**
 * `xql data import`: a file of bars into the store in one streaming pass with bounded memory.
 * Lines are read in chunks (`lines.ts`), decoded and checked (`csv.ts`, `formats.ts`) and staged
 * in a temporary file (`staging.ts`); once the last line is in (the first bad one stops the import
 * with nothing written), the staged bars go to the store's write path in one transaction, packed
 * into blocks with their coarser timeframes derived as they stream by.
 */
import { createReadStream } from "node:fs";
import { open, stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import type { Timeframe } from "../types.js";
import type { BarStore, ProgressListener } from "../store/store.js";
import { BarsCsvParser } from "./csv.js";
import { CsvImportError } from "./errors.js";
import { type FormatOptions, type ImportFormat, hintsFromFileName } from "./formats.js";
import { readLines } from "./lines.js";
import { Staging } from "./staging.js";
import { XqlDataError } from "../errors.js";

export interface ImportProgress {
  /** Reading and checking: bytes read of the file's size (0 when unknown: stdin, .gz), and rows so far. */
  onRead?: (bytes: number, size: number, rows: number) => void;
  /** Writing: bars written of the total. */
  onWrite?: ProgressListener;
}

/** Options of {@link importBars}. */
export interface ImportOptions extends FormatOptions, ImportProgress {
  /** The market, stored in upper case. */
  market: string;
  /** The timeframe; for a Binance dump it may come from the file name. */
  timeframe?: string;
  /** The symbol of every row, for formats without a symbol column (Binance: from the file name when not given). */
  symbol?: string;
  /** Standard input when the file is `-` (tests pass their own stream). */
  stdin?: Readable;
  /** "Now" for the future-time bound, ms (tests). */
  now?: number;
  /** Where the staging file goes (default the system's temporary directory). */
  stagingDir?: string;
}

/** What {@link importBars} wrote. */
export interface ImportResult {
  bars: number;
  symbols: number;
  market: string;
  timeframe: Timeframe;
  /** The format taken. */
  format: ImportFormat;
  /** The sentence saying which format was taken and how times were read. */
  formatDescription: string;
  /** Rows read and checked. */
  rows: number;
}

/**
 * Bytes read (and gunzipped) at a time: 64 KiB. Each chunk becomes one string that its lines are
 * sliced from; a string up to this size is made in V8's young generation and reclaimed cheaply,
 * while one of 128 KiB or more is a large object (a fresh mapping per chunk: decoding a 45 MB
 * file in 1 MiB chunks took 4× as long as in 64 KiB ones).
 */
const CHUNK_BYTES = 1 << 16;

/** Opens `file` (`-` for stdin), gunzipping when it starts with the gzip magic bytes. */
async function openInput(file: string, stdin: Readable | undefined): Promise<{ stream: Readable; size: number; raw: Readable }> {
  if (file === "-") {
    const raw = stdin ?? process.stdin;
    // gzip on stdin is told by its first two bytes; the rest streams through.
    async function* bytes(): AsyncGenerator<Buffer> {
      const iterator = raw[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
      const first = await iterator.next();
      if (first.done) return;
      const head = Buffer.from(first.value as Buffer);
      async function* all(): AsyncGenerator<Buffer> {
        yield head;
        for (;;) {
          const next = await iterator.next();
          if (next.done) return;
          yield Buffer.from(next.value as Buffer);
        }
      }
      if (head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b) {
        for await (const chunk of Readable.from(all()).pipe(createGunzip())) yield chunk as Buffer;
      } else {
        yield* all();
      }
    }
    return { stream: Readable.from(bytes()), size: 0, raw };
  }
  const size = (await stat(file)).size;
  const handle = await open(file, "r");
  const magic = Buffer.alloc(2);
  try {
    await handle.read(magic, 0, 2, 0);
  } finally {
    await handle.close();
  }
  const raw = createReadStream(file, { highWaterMark: CHUNK_BYTES });
  const gz = magic[0] === 0x1f && magic[1] === 0x8b;
  return { stream: gz ? raw.pipe(createGunzip({ chunkSize: CHUNK_BYTES })) : raw, size: gz ? 0 : size, raw };
}

/**
 * Reads, detects, checks and writes a file of bars in any format of `detectFormat` (`.gz` or
 * not; `-` for stdin): the first bad line is reported ({@link CsvImportError}) and nothing is
 * written; otherwise every bar lands in one transaction.
 */
export async function importBars(store: BarStore, file: string, options: ImportOptions): Promise<ImportResult> {
  const hints = file === "-" ? {} : hintsFromFileName(file);
  const timeframe = options.timeframe ?? hints.timeframe;
  if (timeframe === undefined) throw new XqlDataError("import-needs-timeframe", {});
  const parser = new BarsCsvParser({ ...options, timeframe, symbol: options.symbol ?? hints.symbol });
  const staging = new Staging(parser.timeframe, options.stagingDir);
  parser.sink = staging;
  const { stream, size, raw } = await openInput(file, options.stdin);
  let bytes = 0;
  let reported = 0;
  // Bytes are counted on files only: a listener on stdin would take its data before the reader.
  if (file !== "-") {
    raw.on("data", (chunk: Buffer | string) => {
      bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.length;
    });
  }
  try {
    try {
      for await (const { lines, firstLine } of readLines(stream)) {
        for (let i = 0; i < lines.length; i++) parser.push(lines[i]!, firstLine + i);
        if (options.onRead && parser.rows - reported >= 20_000) {
          reported = parser.rows;
          options.onRead(bytes, size, parser.rows);
        }
      }
    } catch (error) {
      if (error instanceof Error && "code" in error && String((error as { code: unknown }).code).startsWith("Z_")) {
        throw new CsvImportError(0, `the file is not valid gzip (${error.message})`);
      }
      throw error;
    } finally {
      if (raw !== (options.stdin ?? process.stdin)) raw.destroy();
      stream.destroy();
    }
    options.onRead?.(size, size, parser.rows);
    if (parser.rows === 0) throw new CsvImportError(0, "the file holds no bars");
    const staged = staging.finish();
    const { written } = await store.writeSeries(
      staged.map((s) => ({
        market: parser.market,
        symbol: s.symbol,
        incoming: [{ timeframe: parser.timeframe, replace: false, lo: s.lo, hi: s.hi, count: s.count, chunks: s.chunks }],
      })),
      options.onWrite,
    );
    return {
      bars: written,
      symbols: staged.length,
      market: parser.market,
      timeframe: parser.timeframe,
      format: parser.detected!.format,
      formatDescription: parser.detected!.description,
      rows: parser.rows,
    };
  } finally {
    staging.close();
  }
}

/**
 * Reads, checks and writes a CSV file of bars. Idempotent: importing the same file again
 * replaces the same bars with the same values. Resolves to the number of bars written.
 */
export async function importBarsCsv(
  store: BarStore,
  file: string,
  options: { market: string; timeframe: string; now?: number } & ImportProgress,
): Promise<{ bars: number; symbols: number; market: string; timeframe: Timeframe }> {
  const result = await importBars(store, file, options);
  return { bars: result.bars, symbols: result.symbols, market: result.market, timeframe: result.timeframe };
}
